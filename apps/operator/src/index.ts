/**
 * @orkestra/operator is the `ork` CLI and the operator process.
 *
 * Nothing is exported yet: see the package README for the plan.
 */
export {};

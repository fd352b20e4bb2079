/**
 * @orkestra/provider-kit helps authors write Orkestra providers: defineProvider, a fake KubeReader and
 * a conformance suite.
 *
 * Nothing is exported yet: see the package README for the plan.
 */
export {};

/**
 * @orkestra/types defines the Katalog: its zod schema and inferred types, the loader that turns YAML into
 * a typed Katalog or a list of positioned errors, condition evaluation, metadata keys, condition reasons,
 * typed errors and the Provider and KubeReader interfaces. It depends on zod and yaml only.
 *
 * Nothing is exported yet: see the package README for the plan.
 */
export {};

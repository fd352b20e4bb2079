/**
 * @orkestra/provider-aws manages S3 buckets for Katalog declarations.
 *
 * Nothing is exported yet: see the package README for the plan.
 */
export {};

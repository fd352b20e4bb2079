/**
 * @orkestra/provider-mongodb manages MongoDB databases, collections, indexes and users for Katalog
 * declarations.
 *
 * Nothing is exported yet: see the package README for the plan.
 */
export {};

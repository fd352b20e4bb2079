/**
 * @orkestra/template renders Katalog templates: Handlebars compiled once at load, evaluated per
 * reconcile, with the upstream helper library, native values, forEach expansion and normalize.
 * It never talks to Kubernetes or the network.
 *
 * Nothing is exported yet: see the package README for the plan.
 */
export {};

/**
 * @orkestra/reconciler runs a Katalog against a cluster: informers and cache, workqueue, workers,
 * the reconcile pipeline, status, finalizers, pruning, hooks and provider dispatch.
 *
 * Nothing is exported yet: see the package README for the plan.
 */
export {};

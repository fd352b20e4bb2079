/**
 * @orkestra/registry turns rendered Katalog entries into Kubernetes manifests and writes them only
 * when they differ from the cache.
 *
 * Nothing is exported yet: see the package README for the plan.
 */
export {};

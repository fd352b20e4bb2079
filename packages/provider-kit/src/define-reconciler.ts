import { RECONCILER_MODULE_MARK } from '@orkestra/types';
import type { DefinedReconciler, JsonObject, ReconcilerFunction } from '@orkestra/types';

/**
 * defineReconciler makes a module reconciler (docs/reference/katalog.md §15.3, ADR 0064), the
 * in-process counterpart of upstream's constructor and remote reconciler: export the value from an
 * npm package and name the package and the export in `operatorBox.remote: {module, function}`. It
 * receives the CR (`Spec` and `Status` from `ork generate types`), the rendered `args` and what was
 * prepared for the CR (cross reads, external results, its children) and returns `{resources,
 * status, requeueAfter}`, checked and applied as a remote reconciler's answer: only kinds in
 * `managedResources`; a throw or a timeout is the condition `RemoteReconcileFailed`, retried.
 * It must be deterministic, must not change its input and must honour `request.signal`.
 *
 * @example
 * export const reconcile = defineReconciler<SiteSpec, SiteStatus>(({ cr }) => ({
 *   resources: [{ type: 'configmap', fields: { name: `${cr.metadata.name}-page`, data: { title: cr.spec.title } } }],
 *   status: { phase: 'Ready' },
 * }));
 */
export function defineReconciler<Spec = JsonObject, Status = JsonObject, Args = JsonObject>(
  run: ReconcilerFunction<Spec, Status, Args>,
): DefinedReconciler<Spec, Status, Args> {
  if (typeof run !== 'function') throw new TypeError('defineReconciler expects the reconcile function');
  return Object.freeze({ orkestra: RECONCILER_MODULE_MARK, run });
}

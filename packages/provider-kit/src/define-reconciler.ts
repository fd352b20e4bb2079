import { RECONCILER_MODULE_MARK } from '@orkestra/types';
import type {
  DefinedReconciler,
  JsonObject,
  ReconcilerDeleteFunction,
  ReconcilerFunction,
} from '@orkestra/types';

/** DefineReconcilerOptions are the optional steps of a module reconciler besides its run step. */
export interface DefineReconcilerOptions<Spec = JsonObject, Status = JsonObject, Args = JsonObject> {
  /**
   * Called while the CR is being deleted, before its finalizer is released (after the entry's
   * onDelete jobs and groups, before its module hooks' onDelete steps and provider deletions):
   * release what the reconciler made outside the cluster; the children it returned are deleted by
   * the runtime. A throw or a timeout keeps the finalizer and retries with backoff (Ready=False
   * `RemoteReconcileFailed`); once it returns, it is not called again for that CR. It must be
   * idempotent (ADR 0109).
   */
  readonly onDelete?: ReconcilerDeleteFunction<Spec, Status, Args>;
}

/**
 * defineReconciler makes a module reconciler (docs/reference/katalog.md §15.3, ADR 0064), the
 * in-process counterpart of upstream's constructor and remote reconciler: export the value from an
 * npm package and name the package and the export in `operatorBox.remote: {module, function}`. It
 * receives the CR (`Spec` and `Status` from `ork generate types`), the rendered `args` and what was
 * prepared for the CR (cross reads, external results, its children) and returns `{resources,
 * status, requeueAfter}`, checked and applied as a remote reconciler's answer: only kinds in
 * `managedResources`; a throw or a timeout is the condition `RemoteReconcileFailed`, retried.
 * It must be deterministic, must not change its input and must honour `request.signal`.
 * `options.onDelete` runs on the deletion path (ADR 0109).
 *
 * @example
 * export const reconcile = defineReconciler<SiteSpec, SiteStatus>(
 *   ({ cr }) => ({
 *     resources: [{ type: 'configmap', fields: { name: `${cr.metadata.name}-page`, data: { title: cr.spec.title } } }],
 *     status: { phase: 'Ready' },
 *   }),
 *   { onDelete: async ({ cr }) => cdn.purge(cr.metadata.name) },
 * );
 */
export function defineReconciler<Spec = JsonObject, Status = JsonObject, Args = JsonObject>(
  run: ReconcilerFunction<Spec, Status, Args>,
  options: DefineReconcilerOptions<Spec, Status, Args> = {},
): DefinedReconciler<Spec, Status, Args> {
  if (typeof run !== 'function') throw new TypeError('defineReconciler expects the reconcile function');
  const { onDelete } = options;
  if (onDelete !== undefined && typeof onDelete !== 'function')
    throw new TypeError('defineReconciler expects `onDelete` to be a function');
  return Object.freeze({
    orkestra: RECONCILER_MODULE_MARK,
    run,
    ...(onDelete === undefined ? {} : { onDelete }),
  });
}

import { HOOK_MODULE_MARK } from '@orkestra/types';
import type { DefinedHook, HookDeleteFunction, HookFunction, JsonObject } from '@orkestra/types';

/** DefineHookOptions are the optional steps of a module hook besides its run step. */
export interface DefineHookOptions<Spec = JsonObject, Status = JsonObject, Args = JsonObject> {
  /**
   * Called while the CR is being deleted, before its finalizer is released (after the entry's
   * onDelete jobs and groups, before provider deletions): the counterpart of upstream's hooks on
   * delete events. A throw keeps the finalizer and retries with backoff (Ready=False `HookFailed`);
   * once it returns, it is not called again for that CR. It must be idempotent.
   */
  readonly onDelete?: HookDeleteFunction<Spec, Status, Args>;
}

/**
 * defineHook makes a module hook (docs/reference/katalog.md §14.5, ADR 0052, ADR 0099): export the
 * value from an npm package and name the package and the export in `operatorBox.hooks`. `Spec` and
 * `Status` type the CR (`ork generate types` writes them from the entry's CRD schema), `Outputs`
 * what the hook returns as `hooks.<name>`, `Args` the declaration's `args`. The run step is the
 * function itself; the operator calls it at step 12 of every reconcile of the entry, so it must be
 * idempotent and honour `request.signal`. `options.onDelete` runs on the deletion path.
 *
 * @example
 * export const ensureDns = defineHook<WebsiteSpec, WebsiteStatus, { record: string }>(
 *   async ({ cr, args }) => ({ outputs: { record: `${cr.metadata.name}.${String(args['zone'])}` } }),
 *   { onDelete: async ({ cr }) => dns.remove(cr.metadata.name) },
 * );
 */
export function defineHook<Spec = JsonObject, Status = JsonObject, Outputs = JsonObject, Args = JsonObject>(
  run: HookFunction<Spec, Status, Outputs, Args>,
  options: DefineHookOptions<Spec, Status, Args> = {},
): DefinedHook<Spec, Status, Outputs, Args> {
  if (typeof run !== 'function') throw new TypeError('defineHook expects the hook function');
  const { onDelete } = options;
  if (onDelete !== undefined && typeof onDelete !== 'function')
    throw new TypeError('defineHook expects `onDelete` to be a function');
  return Object.freeze({ orkestra: HOOK_MODULE_MARK, run, ...(onDelete === undefined ? {} : { onDelete }) });
}

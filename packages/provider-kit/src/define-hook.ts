import { HOOK_MODULE_MARK } from '@orkestra/types';
import type { DefinedHook, HookFunction, JsonObject } from '@orkestra/types';

/**
 * defineHook makes a module hook (docs/reference/katalog.md §14.5, ADR 0052): export the value from
 * an npm package and name the package and the export in `operatorBox.hooks`. `Spec` and `Status`
 * type the CR (`ork generate types` writes them from the entry's CRD schema), `Outputs` what the
 * hook returns as `hooks.<name>`, `Args` the declaration's `args`. The run step is the function
 * itself; the operator calls it at step 12 of every reconcile of the entry, so it must be
 * idempotent and honour `request.signal`.
 *
 * @example
 * export const ensureDns = defineHook<WebsiteSpec, WebsiteStatus, { record: string }>(
 *   async ({ cr, args }) => ({ outputs: { record: `${cr.metadata.name}.${String(args['zone'])}` } }),
 * );
 */
export function defineHook<Spec = JsonObject, Status = JsonObject, Outputs = JsonObject, Args = JsonObject>(
  run: HookFunction<Spec, Status, Outputs, Args>,
): DefinedHook<Spec, Status, Outputs, Args> {
  if (typeof run !== 'function') throw new TypeError('defineHook expects the hook function');
  return Object.freeze({ orkestra: HOOK_MODULE_MARK, run });
}

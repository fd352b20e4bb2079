/**
 * The hooks stage (docs/reference/runtime.md §7 steps 9–12 and 16, §7.1): one loop over the hook
 * table (hooks/table.ts) for a phase — `context` before the desired set, `after-writes` (providers)
 * after the child writes and pruning. Each declared hook's slot fills its context key; a pending
 * outcome ends the loop and is returned to the orchestrator, which writes Ready=False and
 * re-queues. Step 18 writes the annotations the hooks asked for.
 */
import { refOf } from '@orkestra/registry';
import type { KubeObject } from '@orkestra/registry';
import { isPending } from '../../hooks/hook-unit.js';
import type { HookEffects, HookPending, HookPhase, HookSlot } from '../../hooks/hook-unit.js';
import { hookUnits } from '../../hooks/table.js';
import type { HookSlots } from '../../hooks/table.js';
import { errorForLog } from '../log-error.js';
import type { RunContext } from '../reconcile-pipeline.js';
import { crWritten } from './run-state.js';
import type { RunState, StageServices } from './run-state.js';

export { recordedProviders } from '../../hooks/providers/index.js';

const ANNOTATION_RETRY_MS = 1000;

/** initialContext is the template context of the hooks and the desired set before any hook ran: the CR's fields and each hook's initial value. */
export function initialContext(view: KubeObject): Record<string, unknown> {
  const context: Record<string, unknown> = {
    apiVersion: view.apiVersion,
    kind: view.kind,
    metadata: view.metadata,
    spec: view['spec'] ?? {},
    status: view['status'] ?? {},
  };
  for (const unit of hookUnits) context[unit.key] = unit.initial(view);
  return context;
}

/** hookEffects is what the hooks of one run may ask of it, recorded in its state. */
export function hookEffects(state: RunState): HookEffects {
  return {
    requeueAt: (atMs) => {
      state.requeueAt.push(atMs);
    },
    annotate: (key, value) => {
      state.annotations.set(key, value);
    },
    recordProviders: (records) => {
      state.providers = records;
    },
  };
}

/**
 * runHooks runs the slots of one phase in table order, each seeing the context the ones before it
 * left; returns the first pending outcome (the rest do not run), else undefined.
 */
export async function runHooks(
  services: Pick<StageServices, 'crd' | 'clock'>,
  slots: HookSlots | undefined,
  phase: HookPhase,
  view: KubeObject,
  context: Record<string, unknown>,
  ctx: RunContext,
  state: RunState,
): Promise<HookPending | undefined> {
  if (slots == null) return undefined;
  const effects = hookEffects(state);
  for (const unit of hookUnits) {
    if (unit.phase !== phase) continue;
    const slot = (slots as Readonly<Record<string, HookSlot | undefined>>)[unit.key];
    if (slot == null) continue;
    const result = await slot({
      crd: services.crd,
      cr: view,
      context,
      signal: ctx.signal,
      logger: ctx.logger,
      effects,
    });
    if (isPending(result)) return result;
    const settled = unit.settle(result);
    context[unit.key] = settled.value;
    if (settled.requeueAfterMs != null) state.requeueAt.push(services.clock.now() + settled.requeueAfterMs);
  }
  return undefined;
}

/** writeHookAnnotations is step 18: one metadata merge patch (with the cached resource version) of the annotations that changed; a failure re-queues. */
export async function writeHookAnnotations(
  services: StageServices,
  cr: KubeObject,
  state: RunState,
  ctx: RunContext,
): Promise<void> {
  if (state.annotations.size === 0) return;
  const current = services.primary.getByName(cr.metadata.namespace, cr.metadata.name ?? '') ?? cr;
  const existing = current.metadata.annotations ?? {};
  const changed: Record<string, string> = {};
  for (const [key, value] of state.annotations) if (existing[key] !== value) changed[key] = value;
  if (Object.keys(changed).length === 0) return;
  try {
    const patched = await services.client.mergePatch(refOf(current), {
      metadata: { annotations: changed, resourceVersion: current.metadata.resourceVersion },
    });
    services.primary.upsertFromWrite(patched);
    crWritten(state);
  } catch (error) {
    ctx.logger.warn(
      { err: errorForLog(error), annotations: Object.keys(changed) },
      'writing CR annotations failed; retrying',
    );
    state.requeueAt.push(services.clock.now() + ANNOTATION_RETRY_MS);
  }
}

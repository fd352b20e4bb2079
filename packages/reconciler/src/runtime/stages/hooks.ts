/**
 * The hooks stage (docs/reference/runtime.md §7 steps 7–12 and 16, §7.1): one loop over the hook
 * table (hooks/table.ts) for a phase — `mutation` before step 7, `validation` before the rules of
 * step 8, `context` before the desired set, `after-writes` (providers) after the child writes and pruning. Each declared hook's slot fills its context key; a pending
 * outcome ends the loop and is returned to the orchestrator, which writes Ready=False and
 * re-queues. Step 18 (cr-metadata.ts) writes the annotations the hooks asked for.
 */
import type { KubeObject } from '@orkestra/registry';
import { isPending, shownBy } from '../../hooks/hook-unit.js';
import type { HookEffects, HookPending, HookPhase, HookSlot } from '../../hooks/hook-unit.js';
import { hookUnits } from '../../hooks/table.js';
import type { HookSlots } from '../../hooks/table.js';
import type { RunContext } from '../reconcile-pipeline.js';
import type { RunState, StageServices } from './run-state.js';

export { recordedProviders } from '../../hooks/providers/index.js';

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

/**
 * phaseFills copies into `to` what the hooks of `phase` filled in `from`: the context made after
 * step 7 (on the mutated CR) keeps the `mutation` phase's answers (ADR 0114).
 */
export function phaseFills(
  phase: HookPhase,
  from: Readonly<Record<string, unknown>>,
  to: Record<string, unknown>,
): void {
  for (const unit of hookUnits) {
    const key = unit.fills ?? unit.key;
    if (unit.phase === phase && from[key] !== undefined) to[key] = from[key];
  }
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
    crossUnavailable: (messages) => {
      state.crossUnavailable = [...messages];
    },
    writeStatus: (fields) => {
      state.serviceStatus = { ...fields };
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
    // A slot returns its context value; the loop alone writes the context (docs/adr/0038-hook-table-source-of-truth.md).
    const fill = (result: unknown): void => {
      const settled = unit.settle(result);
      context[unit.fills ?? unit.key] = settled.value;
      if (settled.requeueAfterMs != null) state.requeueAt.push(services.clock.now() + settled.requeueAfterMs);
    };
    let result: unknown;
    try {
      result = await slot({
        crd: services.crd,
        cr: view,
        context: { ...context },
        signal: ctx.signal,
        logger: ctx.logger,
        effects,
      });
    } catch (error) {
      const shown = shownBy(error);
      if (shown != null) context[unit.fills ?? unit.key] = unit.settle(shown.result).value;
      throw error;
    }
    if (isPending(result)) {
      if (result.shown != null) context[unit.fills ?? unit.key] = unit.settle(result.shown.result).value;
      return result;
    }
    fill(result);
  }
  return undefined;
}

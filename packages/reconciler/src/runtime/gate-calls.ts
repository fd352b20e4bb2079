/**
 * The external calls of pre-reconcile gates (docs/reference/katalog.md §20.3, ADR 0070): the shared
 * `preReconcile.external` calls, then the gate's own `external` calls, made through the runtime's
 * external caller — the same address guard, timeouts, `cacheFor` cache, retries and Secret-ref
 * credentials as `operatorBox.external` (katalog.md §15.1). Their results are what the gate's conditions read
 * as `external.<name>`. A failed shared call is ignored (the gate goes on without it, as upstream
 * does); a failed gate call is reported, and the gate's `failPolicy` decides what it means.
 */
import type { KubeObject } from '@orkestra/registry';
import type { TemplateEngine } from '@orkestra/template';
import type { PreReconcile } from '@orkestra/types';
import { compileExternalCalls, runExternalCalls } from '../hooks/external/index.js';
import type { CompiledExternal } from '../hooks/external/index.js';
import type { HookServices } from '../hooks/hook-unit.js';
import { shownBy } from '../hooks/hook-unit.js';
import type { CompiledCrd } from './compile-katalog.js';
import { GateName } from './runtime-observer.js';

/** GateCallAnswer is what a gate's calls answered: the results, and the gate call that failed. */
export interface GateCallAnswer {
  /** What the conditions read as `external` (every call made, failed ones included). */
  readonly external: Readonly<Record<string, unknown>>;
  /** Set when one of the gate's own calls failed (not a shared one): why. */
  readonly failed?: string;
}

/** GateCalls makes the calls of one entry's gates for a CR. */
export interface GateCalls {
  /** Whether the gate makes any call (its own or the shared ones). */
  calls(gate: GateName): boolean;
  /** Makes the shared calls, then the gate's; never throws. `context` is the gate's template context. */
  run(gate: GateName, cr: KubeObject, context: Readonly<Record<string, unknown>>): Promise<GateCallAnswer>;
}

/** GateCallsOptions are the entry and the services its calls go through. */
export interface GateCallsOptions {
  readonly crd: CompiledCrd;
  readonly engine: TemplateEngine;
  readonly services: Pick<HookServices, 'external' | 'conditions'>;
}

/** createGateCalls compiles an entry's gate calls; undefined when no gate of it makes a call. */
export function createGateCalls(o: GateCallsOptions): GateCalls | undefined {
  const pre: PreReconcile | undefined = o.crd.entry.preReconcile;
  if (pre == null) return undefined;
  const base = `${o.crd.katalogPath}.preReconcile`;
  const shared = compileExternalCalls(pre.external, `${base}.external`, o.engine);
  const own: Record<GateName, readonly CompiledExternal[]> = {
    [GateName.Enqueue]: compileExternalCalls(
      pre.enqueueGate?.external ?? [],
      `${base}.enqueueGate.external`,
      o.engine,
    ),
    [GateName.Reconcile]: compileExternalCalls(
      pre.reconcileGate?.external ?? [],
      `${base}.reconcileGate.external`,
      o.engine,
    ),
  };
  const calls = (gate: GateName): boolean =>
    (gate === GateName.Enqueue ? pre.enqueueGate : pre.reconcileGate) != null &&
    shared.length + own[gate].length > 0;
  if (!calls(GateName.Enqueue) && !calls(GateName.Reconcile)) return undefined;
  const signal = new AbortController().signal;
  const services = o.services as HookServices;
  const step = async (
    compiled: readonly CompiledExternal[],
    cr: KubeObject,
    context: Readonly<Record<string, unknown>>,
    earlier: Readonly<Record<string, unknown>>,
  ): Promise<GateCallAnswer> => {
    if (compiled.length === 0) return { external: earlier };
    try {
      const input = { crd: o.crd, cr, context: context as never, signal };
      return { external: await runExternalCalls(services, compiled, input, earlier) };
    } catch (error) {
      const shown = shownBy(error)?.result as Record<string, unknown> | undefined;
      return {
        external: shown ?? earlier,
        failed: error instanceof Error ? error.message : String(error),
      };
    }
  };
  return {
    calls,
    run: async (gate, cr, context) => {
      const first = await step(shared, cr, context, {});
      return step(own[gate], cr, { ...context, external: first.external }, first.external);
    },
  };
}

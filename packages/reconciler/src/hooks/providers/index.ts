/**
 * The `providers` hook (docs/reference/katalog.md §14, docs/reference/runtime.md §14.6): step 16
 * runs every provider declaration after the child writes and pruning, and `providers.<provider>.<name>`
 * is in the template context — before step 16 as recorded in `status.providers`, after it fresh.
 * Its run step calls the `providers` service (`ProviderDispatch` over the loaded providers,
 * runtime/provider-dispatch.ts; offline, over scripted ones); the deletion path calls its `delete`.
 */
import type { KubeObject } from '@orkestra/registry';
import type { CompiledValue } from '@orkestra/template';
import { compileValue } from '@orkestra/template';
import { katalogPathOf, parseDuration } from '@orkestra/types';
import type { ProviderDeclarationEntry } from '@orkestra/types';
import { defineHook, noMemory } from '../hook-unit.js';
import type { HookPending } from '../hook-unit.js';
import { createScriptedProviders } from './scripted.js';

/** CompiledProviderDeclaration is one provider declaration with its spec compiled. */
export interface CompiledProviderDeclaration {
  /** The provider name (the block key). */
  readonly provider: string;
  readonly declaration: ProviderDeclarationEntry;
  readonly katalogPath: string;
  /** Renders the kind's spec (whole-expression leaves keep their native value). */
  readonly spec: CompiledValue;
  /** The declaration's call timeout in ms. */
  readonly timeoutMs: number;
}

/** ProvidersResult is what the providers slot returns: the fresh `providers` context and an optional timed re-queue. */
export interface ProvidersResult {
  readonly outputs: unknown;
  readonly requeueAfterMs?: number;
}

/** providersHook is the `providers` unit. */
export const providersHook = defineHook({
  key: 'providers',
  schema:
    'operatorBox.providers — ProviderBlocks in @orkestra/types (schema/katalog.ts), specs by each provider',
  reference: 'docs/reference/katalog.md §14',
  phase: 'after-writes',
  label: { place: 'provider declarations', reader: 'providers' },
  enqueuedBy: [],
  // Every declaration in order: blocks in the order of their keys, then declaration order.
  compile: (entry, base, engine): readonly CompiledProviderDeclaration[] => {
    const providers: CompiledProviderDeclaration[] = [];
    for (const [provider, list] of Object.entries(entry.operatorBox.providers)) {
      list.forEach((declaration, i) => {
        const katalogPath = katalogPathOf(declaration) ?? `${base}.operatorBox.providers.${provider}[${i}]`;
        providers.push({
          provider,
          declaration,
          katalogPath,
          spec: compileValue(declaration.spec ?? {}, { path: `${katalogPath}.${declaration.kind}`, engine }),
          timeoutMs: parseDuration(declaration.timeout),
        });
      });
    }
    return providers;
  },
  declared: (compiled) => compiled.length > 0,
  names: (compiled) => [...new Set(compiled.map((d) => d.provider))].map((name) => `provider ${name}`),
  initial: (cr) => recordedProviders(cr),
  settle: (result: ProvidersResult) => ({ value: result.outputs, requeueAfterMs: result.requeueAfterMs }),
  memory: noMemory,
  results: 'by-provider',
  ordered: true,
  deletionStep: 'delete',
  offline: (script, inputs) => ({
    providers: inputs.dispatch(
      createScriptedProviders({
        names: inputs.providerNames,
        results: () => ({ providers: script.given() }),
        onCall: (verb, provider, declaration) => script.call(verb, provider, declaration),
        deleteFailure: (provider, declaration) => script.deletionFailure(provider, declaration),
        onMissing: (provider, declaration) =>
          script.note(
            `providers.${provider}.${declaration}: no result in the context; the provider is pending`,
          ),
      }),
    ),
  }),
  // Without a providers service (a runtime built without providers), the recorded outputs stay.
  run: async (services, _memory, _compiled, input): Promise<ProvidersResult | HookPending> =>
    services.providers == null
      ? { outputs: (input.context as Record<string, unknown>)['providers'] ?? {} }
      : services.providers.reconcile(input),
});

/** recordedProviders is the `providers` context of resource templates: the outputs recorded in `status.providers`, with `ready` and `message` (docs/reference/katalog.md §14.3). */
export function recordedProviders(cr: KubeObject): Record<string, Record<string, unknown>> {
  const recorded = (cr['status'] as { providers?: unknown } | undefined)?.providers;
  const out: Record<string, Record<string, unknown>> = {};
  if (recorded == null || typeof recorded !== 'object') return out;
  for (const [provider, declarations] of Object.entries(recorded as Record<string, unknown>)) {
    if (declarations == null || typeof declarations !== 'object') continue;
    const block: Record<string, unknown> = {};
    for (const [name, record] of Object.entries(declarations as Record<string, unknown>)) {
      if (record == null || typeof record !== 'object') continue;
      const r = record as { outputs?: unknown; ready?: unknown; message?: unknown };
      const outputs = r.outputs != null && typeof r.outputs === 'object' ? r.outputs : {};
      block[name] = {
        ...outputs,
        ready: r.ready === true,
        message: typeof r.message === 'string' ? r.message : '',
      };
    }
    out[provider] = block;
  }
  return out;
}

/**
 * The `mutation.external` hook (docs/reference/katalog.md §11, ADR 0114): before step 7 the
 * reconcile makes the entry's mutation calls that do not say `fires: {reconcile: false}`, so the
 * mutation rules read the answers (`{{ .external.registry.json.digest }}`), as upstream's
 * `mutation.external` does at every reconcile. The answers stay `external.<name>` for the
 * validation rules and everything after them. It fills `external`; its own context key stays empty.
 */
import { defineHook, noMemory } from '../hook-unit.js';
import { compileExternalCalls, runExternalCalls } from '../external/index.js';
import type { CompiledExternal } from '../external/index.js';

/** mutationExternalHook is the `mutation.external` unit. */
export const mutationExternalHook = defineHook({
  key: 'mutationExternal',
  schema: 'mutation.external[] — ExternalCall in @orkestra/types (schema/hooks.ts)',
  reference: 'docs/reference/katalog.md §11',
  phase: 'mutation',
  label: { place: 'mutation calls', reader: 'mutation calls' },
  enqueuedBy: [],
  compile: (entry, base, engine): readonly CompiledExternal[] =>
    compileExternalCalls(entry.mutation?.external ?? [], `${base}.mutation.external`, engine),
  declared: (compiled) => compiled.length > 0,
  initial: () => undefined,
  // Its results are `external.<name>`: it fills the `external` key (offline, the external unit's scripted calls answer it).
  fills: 'external',
  settle: (result: unknown) => ({ value: result }),
  results: 'none',
  memory: noMemory,
  run: (services, _memory, compiled, input): Promise<unknown> =>
    runExternalCalls(services, compiled, input, {}),
});

/**
 * The `validation.external` hook (docs/reference/katalog.md §12, ADR 0026): step 8 makes the
 * entry's validation calls before the rules, so a rule can test an answer
 * (`{{ .external.quota.json.allowed }}`), as upstream's `validation.external` does. The results are
 * `external.<name>` for the rules and for everything after them (the `external` unit of step 11
 * adds its own calls to them). It fills `external`; its own context key stays empty.
 */
import { isMap } from '../../is-map.js';
import { defineHook, noMemory } from '../hook-unit.js';
import { compileExternalCalls, runExternalCalls } from '../external/index.js';
import type { CompiledExternal } from '../external/index.js';

/** earlierCalls are the `external` answers already in the context (the mutation calls'); none when it holds no map. */
function earlierCalls(context: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> {
  const external = context['external'];
  return isMap(external) ? external : {};
}

/** validationExternalHook is the `validation.external` unit. */
export const validationExternalHook = defineHook({
  key: 'validationExternal',
  schema: 'validation.external[] — ExternalCall in @orkestra/types (schema/hooks.ts)',
  reference: 'docs/reference/katalog.md §12',
  phase: 'validation',
  label: { place: 'validation calls', reader: 'validation calls' },
  enqueuedBy: [],
  compile: (entry, base, engine): readonly CompiledExternal[] =>
    compileExternalCalls(entry.validation?.external ?? [], `${base}.validation.external`, engine),
  declared: (compiled) => compiled.length > 0,
  initial: () => undefined,
  // Its results are `external.<name>`: it fills the `external` key (offline, the external unit's scripted calls answer it).
  fills: 'external',
  settle: (result: unknown) => ({ value: result }),
  results: 'none',
  memory: noMemory,
  // The answers of `mutation.external` (made before step 7, ADR 0114) stay beside its own.
  run: (services, _memory, compiled, input): Promise<unknown> =>
    runExternalCalls(services, compiled, input, earlierCalls(input.context)),
});

/**
 * A unit for calls an entry makes before its rules (`mutation.external` before step 7,
 * `validation.external` before step 8; ADR 0026, ADR 0114): each compiles its list of calls, fills
 * `external.<name>` (its own context key stays empty; offline, the external unit's scripted calls
 * answer it) and keeps the answers of the calls made before it in the same run.
 */
import type { CrdEntry } from '@orkestra/types';
import { isMap } from '../../is-map.js';
import { defineHook, noMemory } from '../hook-unit.js';
import type { HookPhase, HookUnit } from '../hook-unit.js';
import { compileExternalCalls, runExternalCalls } from './index.js';
import type { CompiledExternal } from './index.js';

/** CallsBeforeRules names one such list: its unit key, phase, Katalog field and reference. */
export interface CallsBeforeRules<Key extends string> {
  readonly key: Key;
  readonly phase: HookPhase;
  /** The entry's field that holds the calls (`mutation` or `validation`, then `.external`). */
  readonly field: 'mutation' | 'validation';
  readonly reference: string;
}

/** earlierCalls are the `external` answers already in the context; none when it holds no map. */
function earlierCalls(context: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> {
  const external = context['external'];
  return isMap(external) ? external : {};
}

/** callsBeforeRules makes the unit of one list of calls made before rules. */
export function callsBeforeRules<Key extends string>(
  o: CallsBeforeRules<Key>,
): HookUnit<Key, readonly CompiledExternal[], undefined, unknown> {
  return defineHook({
    key: o.key,
    schema: `${o.field}.external[] — ExternalCall in @orkestra/types (schema/hooks.ts)`,
    reference: o.reference,
    phase: o.phase,
    label: { place: `${o.field} calls`, reader: `${o.field} calls` },
    enqueuedBy: [],
    compile: (entry: CrdEntry, base, engine): readonly CompiledExternal[] =>
      compileExternalCalls(entry[o.field]?.external ?? [], `${base}.${o.field}.external`, engine),
    declared: (compiled) => compiled.length > 0,
    initial: () => undefined,
    fills: 'external',
    settle: (result: unknown) => ({ value: result }),
    results: 'none',
    memory: noMemory,
    run: (services, _memory, compiled, input): Promise<unknown> =>
      runExternalCalls(services, compiled, input, earlierCalls(input.context)),
  });
}

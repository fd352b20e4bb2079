/**
 * The hook table (docs/adr/0012-stages-and-hook-units.md): every hook kind, one line each, in the
 * order the pipeline runs them within a phase (docs/reference/runtime.md §7 steps 7, 8, 9–12, 16).
 * `CompiledHooks`, the `PipelineHooks` slots, the initial template context and each entry's
 * enqueue table are derived from it.
 */
import type { CrdEntry } from '@orkestra/types';
import { crossHook } from './cross/index.js';
import { dockerHook } from './docker/index.js';
import { externalHook } from './external/index.js';
import { gitHook } from './git/index.js';
import type { AnyHookUnit, EnqueueSource, HookPhase, HookSlot } from './hook-unit.js';
import { moduleHooksUnit } from './modules/index.js';
import { mutationExternalHook } from './mutation-external/index.js';
import { providersHook } from './providers/index.js';
import { remoteHook } from './remote/index.js';
import { validationExternalHook } from './validation-external/index.js';

const HOOK_TABLE = [
  mutationExternalHook,
  validationExternalHook,
  crossHook,
  gitHook,
  externalHook,
  dockerHook,
  moduleHooksUnit,
  remoteHook,
  providersHook,
] as const;

type Units = (typeof HOOK_TABLE)[number];

/** CompiledHooks is every hook's compiled declarations for one entry, by key. */
export type CompiledHooks = { readonly [U in Units as U['key']]: ReturnType<U['compile']> };

type ResultOf<U> = U extends { settle(result: infer R): unknown } ? R : never;

/** HookSlots are the run steps of one entry's hooks, by key (a hook without a slot keeps its initial context value). */
export type HookSlots = { readonly [U in Units as U['key']]?: HookSlot<ResultOf<U>> };

/** hookUnits is the hook table as the loops see it: one line per hook kind, above. */
export const hookUnits: readonly AnyHookUnit[] = HOOK_TABLE;

/**
 * enqueueTable is the one table of what re-queues a CR of an entry: its own changes and its
 * children's always, and whatever each declared hook adds (docs/reference/runtime.md §4).
 */
export function enqueueTable(hooks: CompiledHooks): readonly EnqueueSource[] {
  const sources = new Set<EnqueueSource>(['primary', 'children']);
  for (const unit of hookUnits) {
    if (unit.declared((hooks as Record<string, unknown>)[unit.key]))
      for (const s of unit.enqueuedBy) sources.add(s);
  }
  return [...sources];
}

/** declaredHooks lists the hooks an entry declares, in table order. */
export function declaredHooks(hooks: CompiledHooks): readonly AnyHookUnit[] {
  return hookUnits.filter((unit) => unit.declared((hooks as Record<string, unknown>)[unit.key]));
}

/** hookNames are an entry's declared hooks as the Control Center lists them, in table order (`HookUnit.names`). */
export function hookNames(hooks: CompiledHooks): readonly string[] {
  return hookUnits.flatMap((unit) => unit.names?.((hooks as Record<string, unknown>)[unit.key]) ?? []);
}

/**
 * hookSummary lists an entry's hooks as the Control Center's Katalog view answers them
 * (`hooks.<key>`: declaration names, or whether it is declared), one key per unit with a
 * `summary`, in table order; read from the declaration, so an entry not yet compiled is listed too.
 */
export function hookSummary(entry: CrdEntry): Readonly<Record<string, readonly string[] | boolean>> {
  const summary: Record<string, readonly string[] | boolean> = {};
  for (const unit of hookUnits) if (unit.summary != null) summary[unit.key] = unit.summary(entry);
  return summary;
}

/**
 * resultUnits are the hooks with results of their own, in table order: the top-level keys of an
 * offline results map (`ork render --context`, a scenario step's `context`) and the template
 * context roots a hook fills.
 */
export const resultUnits: readonly AnyHookUnit[] = hookUnits.filter((unit) => unit.results !== 'none');

/** The phases before the desired set, in run order: a template of one sees what the hooks of it and the earlier ones fill. */
const EARLY_PHASES: readonly HookPhase[] = ['mutation', 'validation'];

/**
 * visibleRoots are the hook context roots a template may read (docs/reference/katalog.md §17.2):
 * at `phase` (`mutation` rules: what the mutation hooks fill; `validation` rules: that and what the
 * validation hooks fill; later phases: every root), or
 * inside the declaration of hook `key`: the roots of the step 9–12 hooks before it, and its own
 * when its declarations run in order and see the earlier ones (`ordered`).
 */
export function visibleRoots(
  at: { readonly phase: HookPhase } | { readonly hook: string },
): readonly string[] {
  if ('phase' in at) {
    const early = EARLY_PHASES.indexOf(at.phase);
    if (early >= 0) {
      const phases = EARLY_PHASES.slice(0, early + 1);
      return [...new Set(hookUnits.filter((u) => phases.includes(u.phase)).map((u) => u.fills ?? u.key))];
    }
    return resultUnits.map((u) => u.key);
  }
  const index = hookUnits.findIndex((u) => u.key === at.hook);
  const unit = hookUnits[index];
  if (unit == null) return [];
  const before = hookUnits
    .slice(0, index)
    .filter((u) => !EARLY_PHASES.includes(u.phase) && u.results !== 'none');
  return [...before, ...(unit.ordered === true ? [unit] : [])].map((u) => u.key);
}

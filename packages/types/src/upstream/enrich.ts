/**
 * Upstream's `enrichAll` and `enrich` (docs/reference/katalog.md §24, ADR 0063): both add pods and
 * events to the template context, which Orkestra does not do, so both are refused with that reason;
 * written together they are refused first for upstream's own reason (they are mutually exclusive).
 */
import { isScalar } from 'yaml';
import type { YAMLMap } from 'yaml';
import { pairOf, takeOut } from './nodes.js';
import type { Path } from './nodes.js';
import { ENTRY_REFUSED } from './refusals.js';
import type { Upgrader } from './upgrader.js';

/** checkEnrich refuses `enrichAll` (and `enrichAll` with `enrich`); `enrich` alone is an entry refusal. */
export function checkEnrich(up: Upgrader, entry: YAMLMap, base: Path): void {
  const all = pairOf(entry, 'enrichAll');
  if (all == null) return;
  const on = !(isScalar(all.value) && String(all.value.value) === 'false');
  if (!on) {
    up.drop(entry, 'enrichAll', [...base, 'enrichAll'], 'false is the default');
    return;
  }
  const enrich = pairOf(entry, 'enrich');
  up.problem(
    [...base, 'enrichAll'],
    all.key,
    enrich != null
      ? 'enrichAll and enrich are mutually exclusive: use enrichAll: true or enrich: [...] (upstream refuses both)'
      : `upstream key \`enrichAll\` has no counterpart in Orkestra: ${ENTRY_REFUSED['enrich'] ?? ''}`,
  );
  takeOut(entry, all);
  if (enrich != null) takeOut(entry, enrich);
}

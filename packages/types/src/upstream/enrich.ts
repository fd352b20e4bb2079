/**
 * Upstream's `enrich` and `enrichAll` (docs/reference/katalog.md §3.5, §24). `enrich` lists what
 * upstream adds to the children in the status-field context. The targets Orkestra adds from its
 * informer caches (ENRICH_TARGETS: `pods`, `endpoints`, `owner`, `backingpods`, `replicasets`,
 * `pvcs`, `cronjob`, `node`, `pvc`, `storageclass`, `events`) are kept; `hpa` is removed with a note (the HPA
 * notes read the HPA's own spec and status, which the child already carries); every other target
 * is refused at its position with the reason. A kept target's conditional form (`- events: {when,
 * or}`) is canonical and stays as written. `enrichAll: true`
 * means every target, some of which Orkestra does not add, so it is refused naming the list to
 * write; written with `enrich` it is refused for upstream's own reason (they are mutually exclusive).
 */
import { isMap, isScalar, isSeq } from 'yaml';
import type { Pair, YAMLMap, YAMLSeq } from 'yaml';
import { ENRICH_TARGETS } from '../schema/crd-parts.js';
import { keyOf, pairOf, takeOut } from './nodes.js';
import type { Path } from './nodes.js';
import type { Upgrader } from './upgrader.js';

/** ADDED are the targets Orkestra adds; `hpa` needs nothing added. */
const ADDED: ReadonlySet<string> = new Set(ENRICH_TARGETS);

/** NOT_ADDED names the upstream targets Orkestra does not add, with why and what to read instead. */
const NOT_ADDED: Readonly<Record<string, string>> = {
  ingress:
    "an Ingress's `_tlsSecrets` are whole Secrets: serving them would cache every Secret of the namespace and put Secret data into the template context, which Orkestra never does; read `ingressTLSHosts` and `ingressIP` over the Ingress itself",
};

/** checkEnrich maps `enrich` and `enrichAll` of an upstream entry (see the file comment). */
export function checkEnrich(up: Upgrader, entry: YAMLMap, base: Path): void {
  const all = pairOf(entry, 'enrichAll');
  const enrich = pairOf(entry, 'enrich');
  if (all != null) {
    const on = !(isScalar(all.value) && String(all.value.value) === 'false');
    if (!on) up.drop(entry, 'enrichAll', [...base, 'enrichAll'], 'false is the default');
    else {
      up.problem(
        [...base, 'enrichAll'],
        all.key,
        enrich != null
          ? 'enrichAll and enrich are mutually exclusive: use enrichAll: true or enrich: [...] (upstream refuses both)'
          : `upstream key \`enrichAll\` has no counterpart in Orkestra: it adds every target, and Orkestra adds only some (§3.5); write \`enrich: [${ENRICH_TARGETS.join(', ')}]\``,
      );
      takeOut(entry, all);
      if (enrich != null) takeOut(entry, enrich);
      return;
    }
  }
  if (enrich == null || !isSeq(enrich.value)) return;
  const list = enrich.value as YAMLSeq;
  const path = [...base, 'enrich'];
  for (const [i, item] of [...list.items].entries()) {
    const at = [...path, i];
    if (isScalar(item)) {
      const target = String(item.value);
      if (ADDED.has(target)) continue;
      remove(list, item);
      if (target === 'hpa') up.change(at, item, 'removed: the HPA notes read the HPA itself (children.hpa)');
      else up.problem(at, item, refusal(target));
      continue;
    }
    if (!isMap(item)) continue;
    const pair = (item as YAMLMap).items[0] as Pair | undefined;
    const target = pair == null ? undefined : keyOf(pair);
    // The conditional form of a target Orkestra adds is canonical (katalog.md §3.5): the schema reads it.
    if (target != null && ADDED.has(target)) continue;
    remove(list, item);
    if (target == null) continue;
    if (target !== 'hpa') {
      up.problem([...at, target], pair?.key, refusal(target));
      continue;
    }
    up.change(
      [...at, target],
      pair?.key,
      'removed: the HPA notes read the HPA itself (children.hpa), whatever its conditions',
    );
  }
}

function refusal(target: string): string {
  return `enrich target \`${target}\` has no counterpart in Orkestra: ${NOT_ADDED[target] ?? `Orkestra adds ${ENRICH_TARGETS.map((t) => `\`${t}\``).join(', ')}`}`;
}

function remove(list: YAMLSeq, item: unknown): void {
  const index = list.items.indexOf(item as never);
  if (index >= 0) list.items.splice(index, 1);
}

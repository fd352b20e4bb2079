/**
 * Upstream's `security.deletionProtection` (docs/reference/katalog.md §2.4 and §24, ADR 0050): upstream
 * registers a webhook that refuses deleting the Katalog's CRDs; here the same protection is
 * `spec.deletionProtection: {crds: true}`, which `ork generate` turns into a
 * ValidatingAdmissionPolicy the API server evaluates itself.
 */
import { isMap, Pair, YAMLMap } from 'yaml';
import { born, keyOf, mapAt, pairOf, place, scalar, takeOut } from './nodes.js';
import type { Upgrader } from './upgrader.js';

/** Keys of upstream's block that configure its webhook, and why they have no job here. */
const WEBHOOK_KEYS: Readonly<Record<string, string>> = {
  enabled: 'the block is the switch',
  cleanupOnShutdown:
    'the protection is a ValidatingAdmissionPolicy the API server runs, not a webhook of the running operator; it stays installed like the CRDs',
  failurePolicy:
    'a ValidatingAdmissionPolicy is evaluated inside the API server, so there is no endpoint to be unreachable',
};

/**
 * mapDeletionProtection moves an enabled `security.deletionProtection` to
 * `spec.deletionProtection: {crds: true}`, dropping its webhook settings with a note; an unknown
 * key of the block is refused at the key, and a canonical `spec.deletionProtection` beside it is
 * refused as written twice.
 */
export function mapDeletionProtection(up: Upgrader, root: YAMLMap, security: YAMLMap, item: Pair): void {
  const block = isMap(item.value) ? (item.value as YAMLMap) : undefined;
  for (const inner of [...(block?.items ?? [])]) {
    const key = keyOf(inner as Pair);
    if (key == null || block == null) continue;
    if (!Object.hasOwn(WEBHOOK_KEYS, key))
      up.problem(
        ['security', 'deletionProtection', key],
        (inner as Pair).key,
        `upstream key \`security.deletionProtection.${key}\` has no counterpart in Orkestra (known: ${Object.keys(WEBHOOK_KEYS).join(', ')})`,
      );
    else if (key !== 'enabled')
      up.change(
        ['security', 'deletionProtection', key],
        (inner as Pair).key,
        `removed: ${WEBHOOK_KEYS[key] ?? ''}`,
      );
  }
  takeOut(security, item);
  const spec = mapAt(root, 'spec');
  if (spec == null) return;
  if (pairOf(spec, 'deletionProtection') != null) {
    up.problem(
      ['security', 'deletionProtection'],
      item.key,
      'deletion protection is written twice (here and at spec.deletionProtection); keep one',
    );
    return;
  }
  const protection = born(new YAMLMap(), item.key);
  place(protection, new Pair(scalar('crds', item.key), scalar(true, item.key)));
  place(spec, new Pair(scalar('deletionProtection', item.key), protection));
  up.change(
    ['security', 'deletionProtection'],
    item.key,
    'moved to spec.deletionProtection: {crds: true} (a ValidatingAdmissionPolicy refuses deleting the CRDs unless the CRD is annotated orkestra.konductor.io/allow-delete: "true")',
  );
}

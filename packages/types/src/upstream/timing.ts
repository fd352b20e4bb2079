import { isScalar, Pair, YAMLMap } from 'yaml';
import type { Scalar } from 'yaml';
import { born, mapAt, pairOf, scalar } from './nodes.js';
import type { Path } from './nodes.js';
import type { Upgrader } from './upgrader.js';

/**
 * Upstream's timing keys (docs/reference/katalog.md §20): `requeue` and `retryBackoff`.
 *
 * - `requeue` is an entry key (§20.2). Upstream writes it under the reconciler block (one rule
 *   `{after, when, or}`, moved with the other tuning keys by entry.ts) or, in the release that
 *   introduced it, under `operatorBox` (a list of rules); the second is moved here.
 * - `retryBackoff: 5s` (on the queue or on an external call) is upstream's shorthand for
 *   `{initial: 5s}`; the canonical form is the map (katalog.md §20.1, §15.1).
 */
export function upgradeTiming(up: Upgrader, entry: YAMLMap, base: Path): void {
  const box = mapAt(entry, 'operatorBox');
  if (box != null) up.move(box, 'requeue', entry, 'requeue', [...base, 'operatorBox', 'requeue'], 'requeue');
  const queue = mapAt(entry, 'queue');
  if (queue != null) retryBackoffShorthand(up, queue, [...base, 'queue']);
}

/** retryBackoffShorthand rewrites `retryBackoff: <duration>` to `retryBackoff: {initial: <duration>}`. */
export function retryBackoffShorthand(up: Upgrader, holder: YAMLMap, path: Path): void {
  const pair = pairOf(holder, 'retryBackoff');
  if (pair == null || !isScalar(pair.value)) return;
  const value = pair.value as Scalar;
  if (typeof value.value !== 'string' && typeof value.value !== 'number') return;
  const map = born(new YAMLMap(), value);
  map.items.push(new Pair(scalar('initial', value), value));
  pair.value = map;
  up.change(
    [...path, 'retryBackoff'],
    pair.key,
    `the shorthand retryBackoff: ${String(value.value)} is written retryBackoff: {initial: ${String(value.value)}}`,
  );
}

/**
 * Upstream's older generation of the lifecycle block (docs/reference/katalog.md §2.5 and §24, ADR
 * 0063): `metadata.deprecation` becomes `lifecycle.deprecation`. Its `accept` (the older
 * acknowledgement a deprecated Katalog needed to start) is removed with a note: Orkestra warns about
 * a deprecated Katalog and starts it, as upstream's newer generation does. Inrun's
 * `compatibility.inrun` becomes `compatibility.orkestra`.
 */
import { isMap, Pair, YAMLMap } from 'yaml';
import { born, keyOf, mapAt, pairOf, place, scalar, takeOut } from './nodes.js';
import type { Upgrader } from './upgrader.js';

/** upgradeMetadataDeprecation moves `metadata.deprecation` to `lifecycle.deprecation`. */
export function upgradeMetadataDeprecation(up: Upgrader, root: YAMLMap): void {
  const written = mapAt(root, 'lifecycle');
  const accept = written == null ? undefined : pairOf(written, 'accept');
  if (written != null && accept != null) {
    // Upstream refuses it in a Katalog too: acknowledgements of imported patterns belong to a Komposer.
    up.problem(
      ['lifecycle', 'accept'],
      accept.key,
      'lifecycle.accept is only valid in a Komposer (Inrun: a Stack; it acknowledges the lifecycle of imported patterns); remove it from the Katalog',
    );
    takeOut(written, accept);
  }
  upgradeCompatibility(up, written);
  const metadata = mapAt(root, 'metadata');
  const pair = metadata == null ? undefined : pairOf(metadata, 'deprecation');
  if (metadata == null || pair == null) return;
  if (isMap(pair.value))
    up.drop(
      pair.value as YAMLMap,
      'accept',
      ['metadata', 'deprecation', 'accept'],
      'a deprecated Katalog starts without an acknowledgement; Orkestra warns at validate and at load',
    );
  let lifecycle = mapAt(root, 'lifecycle');
  if (lifecycle == null) {
    // A new block goes right below `metadata`, where upstream's newer generation writes it.
    lifecycle = born(new YAMLMap(), pair.key);
    const after = root.items.findIndex((item) => keyOf(item as Pair) === 'metadata');
    place(root, new Pair(scalar('lifecycle', pair.key), lifecycle), after + 1);
  }
  up.move(
    metadata,
    'deprecation',
    lifecycle,
    'deprecation',
    ['metadata', 'deprecation'],
    'lifecycle.deprecation',
  );
}

/**
 * upgradeCompatibility maps Inrun's `lifecycle.compatibility.inrun` (its runtime's version range,
 * ADR 0081) onto `compatibility.orkestra`, the key upstream Orkestra's generations write for the
 * same range and the one this runtime checks against its own version (docs/reference/katalog.md §2.5).
 */
function upgradeCompatibility(up: Upgrader, lifecycle: YAMLMap | undefined): void {
  const compatibility = mapAt(lifecycle, 'compatibility');
  if (compatibility == null || pairOf(compatibility, 'inrun') == null) return;
  up.move(
    compatibility,
    'inrun',
    compatibility,
    'orkestra',
    ['lifecycle', 'compatibility', 'inrun'],
    'lifecycle.compatibility.orkestra',
  );
}

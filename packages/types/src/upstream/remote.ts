/**
 * Upstream's remote reconciler (docs/reference/katalog.md §15.3, §24; ADR 0046): `reconcile.remote`
 * (and the older `reconciler.remote` / `operatorBox.reconciler.remote`) moves to
 * `operatorBox.remote` with its fields unchanged, and the `default: false` it requires is dropped:
 * Orkestra runs the remote reconciler as a hook of its own pipeline.
 */
import { isMap, isScalar } from 'yaml';
import type { YAMLMap } from 'yaml';
import { pairOf, takeOut } from './nodes.js';
import type { Path } from './nodes.js';
import type { Upgrader } from './upgrader.js';

/** upgradeRemote moves `block.remote` to `box.remote`; call it before the block's `default` is read. */
export function upgradeRemote(up: Upgrader, block: YAMLMap, box: YAMLMap, path: Path): void {
  const remote = pairOf(block, 'remote');
  if (remote == null || !isMap(remote.value)) return;
  up.move(block, 'remote', box, 'remote', [...path, 'remote'], 'operatorBox.remote');
  const fallback = pairOf(block, 'default');
  const value = fallback != null && isScalar(fallback.value) ? fallback.value.value : undefined;
  if (fallback != null && (value === false || value === 'false')) {
    takeOut(block, fallback);
    up.change(
      [...path, 'default'],
      fallback.key,
      'removed: `default: false` selects the remote reconciler, which runs as operatorBox.remote',
    );
  }
}

/**
 * Upstream's declarative rollback (docs/reference/katalog.md §20.4, ADR 0047): `rollback.trigger`
 * and the shorthand `rollBackOnError: true` (re-apply the entry's own templates with the previous
 * spec) under `operatorBox` (or G3's `operatorBox.runtime`), moved to the entry's `rollback`.
 * `rollback.onRollback` (upstream's HookTemplates over `.previous`) stays in the block; its kind
 * lists are upgraded as an onReconcile group's are.
 */
import { Pair } from 'yaml';
import type { YAMLMap } from 'yaml';
import { upgradeGroup } from './box.js';
import { mapAt, pairOf, scalar, scalarText, takeOut } from './nodes.js';
import type { Path } from './nodes.js';
import type { Upgrader } from './upgrader.js';

export function upgradeRollback(up: Upgrader, entry: YAMLMap, base: Path): void {
  const box = mapAt(entry, 'operatorBox');
  if (box == null) return;
  const boxPath = [...base, 'operatorBox'];
  const shorthand = pairOf(box, 'rollBackOnError');
  const onRollback = mapAt(mapAt(box, 'rollback'), 'onRollback');
  if (onRollback != null) upgradeGroup(up, onRollback, [...boxPath, 'rollback', 'onRollback']);
  if (pairOf(box, 'rollback') != null)
    up.move(box, 'rollback', entry, 'rollback', [...boxPath, 'rollback'], 'rollback');
  if (shorthand == null) return;
  takeOut(box, shorthand);
  const on = scalarText(shorthand.value) === 'true';
  if (!on) {
    up.change([...boxPath, 'rollBackOnError'], shorthand.key, 'removed: rollBackOnError is false');
    return;
  }
  const rollback = up.ensureMap(entry, 'rollback', shorthand.key);
  rollback.items.push(new Pair(scalar('reapplyPreviousSpec', shorthand.key), scalar(true, shorthand.value)));
  up.change(
    [...boxPath, 'rollBackOnError'],
    shorthand.key,
    'written rollback.reapplyPreviousSpec: true (the entry’s templates re-applied with the previous spec)',
  );
}

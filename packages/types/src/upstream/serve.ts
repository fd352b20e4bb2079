/**
 * Upstream's `serve` block (docs/reference/katalog.md §24, ADR 0063): the gateway's self-service
 * form is not part of Orkestra, so the block is removed — but a block upstream refuses is refused
 * here too, at its position and for upstream's reason, so a Katalog upstream rejects never loads:
 * both modes off, a `target` while `modes.target` is false, a field with both `path` and
 * `values` (or both `value` and `values`), and a field name with a hyphen. Cluster references are
 * gateway.ts. The older generation's name of the block, `idp` (with `gateway.applyAPI`), is read
 * as `serve` (servedAs).
 */
import { isMap, isScalar } from 'yaml';
import type { Pair, YAMLMap } from 'yaml';
import { keyOf, mapAt, pairOf, scalar, takeOut } from './nodes.js';
import type { Path } from './nodes.js';
import type { Upgrader } from './upgrader.js';

const off = (map: YAMLMap | undefined, key: string): boolean => {
  const value = map == null ? undefined : pairOf(map, key)?.value;
  return isScalar(value) && String(value.value) === 'false';
};

/**
 * servedAs reads the older generation's `idp` block (upstream's IDPConfig, beside
 * `gateway.applyAPI`) as `serve`, the name upstream gave it later with the same keys (`enabled`,
 * `include`, `fields`, `target`, …), renaming the key in place. Returns the key the entry wrote
 * (`serve` or `idp`), for paths; an entry with both is refused at `idp` (keep `serve`), and the
 * duplicate is removed so the rest reads `serve`.
 */
export function servedAs(up: Upgrader, entry: YAMLMap, base: Path): 'serve' | 'idp' {
  const idp = pairOf(entry, 'idp');
  if (idp == null) return 'serve';
  if (pairOf(entry, 'serve') != null) {
    up.problem(
      [...base, 'idp'],
      idp.key,
      '`idp` is the older name of `serve` and this entry declares both; keep the `serve` block and delete `idp`',
    );
    takeOut(entry, idp);
    return 'serve';
  }
  idp.key = scalar('serve', idp.key);
  up.change([...base, 'idp'], idp.key, 'renamed to serve (upstream’s later name of the block)');
  return 'idp';
}

/** checkServe reports what upstream's validator refuses in an entry's `serve` block. */
export function checkServe(
  up: Upgrader,
  entry: YAMLMap,
  base: Path,
  written: 'serve' | 'idp' = 'serve',
): void {
  const serve = mapAt(entry, 'serve');
  if (serve == null || off(serve, 'enabled')) return;
  const path = [...base, written];
  const modes = mapAt(serve, 'modes');
  if (off(modes, 'target') && off(modes, 'cr'))
    up.problem(
      [...path, 'modes'],
      pairOf(serve, 'modes')?.key,
      'at least one of serve.modes.target and serve.modes.cr must be enabled (upstream refuses both off)',
    );
  const target = pairOf(serve, 'target');
  const targetSet =
    target != null &&
    !(isScalar(target.value) && (target.value.value == null || String(target.value.value) === '')) &&
    !(isMap(target.value) && (target.value as YAMLMap).items.length === 0);
  if (off(modes, 'target') && targetSet)
    up.problem(
      [...path, 'target'],
      target.key,
      'serve.modes.target is false but serve.target is set: a target is meaningful only in target mode (upstream refuses it)',
    );
  for (const item of mapAt(serve, 'fields')?.items ?? []) {
    const name = keyOf(item as Pair);
    const field = (item as Pair).value;
    // Upstream's field names are Go template identifiers (`{{ .request.<name> }}`): no hyphen.
    if (name?.includes('-') === true)
      up.problem(
        [...path, 'fields', name],
        (item as Pair).key,
        `serve.fields.${name}: a field name must not contain a hyphen; it is a Go template identifier ({{ .request.${name} }} does not parse); write ${name.replaceAll('-', '_')} (upstream refuses it)`,
      );
    if (name == null || !isMap(field)) continue;
    const values = pairOf(field as YAMLMap, 'values');
    if (values == null) continue;
    for (const other of ['path', 'value'] as const)
      if (pairOf(field as YAMLMap, other) != null)
        up.problem(
          [...path, 'fields', name, 'values'],
          values.key,
          `serve.fields.${name}: ${other} and values are mutually exclusive (upstream refuses both)`,
        );
  }
}

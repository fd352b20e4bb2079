import { isMap } from '../is-map.js';
/**
 * JSON helpers for status writing (docs/reference/runtime.md §11): equality that ignores key order, and the JSON
 * merge patch (RFC 7386) that turns one status into another.
 */

/**
 * jsonEqual compares two JSON values: maps by their keys and values whatever the key order, lists
 * element by element in order, scalars with `===`. A key holding `undefined` counts as absent.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((item, index) => jsonEqual(item, b[index]));
  }
  if (isMap(a) && isMap(b)) {
    const keysA = Object.keys(a).filter((key) => a[key] !== undefined);
    const keysB = Object.keys(b).filter((key) => b[key] !== undefined);
    return (
      keysA.length === keysB.length &&
      keysA.every((key) => Object.hasOwn(b, key) && jsonEqual(a[key], b[key]))
    );
  }
  return false;
}

/**
 * dropNulls returns a deep copy of a JSON value without map entries that are `null` or `undefined`
 * (a merge patch cannot set `null`: it deletes). List elements are kept as they are.
 */
export function dropNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => (isMap(item) ? dropNulls(item) : item));
  if (!isMap(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (item != null) out[key] = dropNulls(item);
  }
  return out;
}

/**
 * createMergePatch returns the JSON merge patch (RFC 7386) that turns `from` into `to`: only keys
 * that differ, removed keys as `null`, maps diffed recursively, lists and scalars replaced whole.
 * Both arguments are maps; an empty result means they are equal.
 *
 * @example
 * createMergePatch({ a: 1, b: { c: 1, d: 2 } }, { a: 1, b: { c: 1 }, e: [1] }); // { b: { d: null }, e: [1] }
 */
export function createMergePatch(
  from: Readonly<Record<string, unknown>>,
  to: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  for (const key of Object.keys(from)) {
    if (from[key] !== undefined && to[key] === undefined) patch[key] = null;
  }
  for (const [key, value] of Object.entries(to)) {
    if (value === undefined) continue;
    const before = from[key];
    if (jsonEqual(before, value)) continue;
    patch[key] = isMap(before) && isMap(value) ? createMergePatch(before, value) : value;
  }
  return patch;
}

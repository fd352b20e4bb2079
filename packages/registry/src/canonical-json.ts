import { createHash } from 'node:crypto';

/**
 * canonicalJson serializes a JSON value with object keys sorted at every level. Its output is
 * stored on every child (the applied-hash annotation hashes it), so it must not change: keys in
 * UTF-16 code unit order, undefined object values left out, undefined array items written as
 * `null`. Built by appending to one string rather than mapping, filtering and joining arrays (it
 * runs once per child per reconcile).
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      // A hole stays empty (as Array#map and #join leave it); a function or symbol item too.
      if (i in value) out += canonicalJson(value[i] === undefined ? null : value[i]) ?? '';
    }
    return `${out}]`;
  }
  if (value != null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    // The default sort compares strings by UTF-16 code units, as `a < b` does.
    const keys = Object.keys(record).sort();
    let out = '{';
    let first = true;
    for (const key of keys) {
      const item = record[key];
      if (item === undefined) continue;
      if (!first) out += ',';
      first = false;
      out += `${JSON.stringify(key)}:${canonicalJson(item)}`;
    }
    return `${out}}`;
  }
  return JSON.stringify(value);
}

/** sha256Hex returns the hex SHA-256 of a UTF-8 string. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.js';

/** The first form of canonicalJson: its output is stored on every child, so the current one must match it byte for byte. */
function reference(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => reference(v === undefined ? null : v)).join(',')}]`;
  if (value != null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${reference(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

describe('canonicalJson', () => {
  it('sorts keys at every level and leaves undefined values out', () => {
    expect(canonicalJson({ b: 1, a: [{ d: undefined, c: 'x' }, undefined], e: null })).toBe(
      '{"a":[{"c":"x"},null],"b":1,"e":null}',
    );
  });

  it('writes what its first form wrote, byte for byte (seeded values: unicode and odd keys, holes, dates)', () => {
    let a = 38;
    const rand = (): number => {
      a = (a + 0x6d2b79f5) | 0;
      let t = Math.imul(a ^ (a >>> 15), 1 | a);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const KEYS = [
      'a',
      'B',
      'b',
      'aa',
      '',
      'é',
      'Z',
      '\u{1F600}',
      'ﬀ',
      '"q"',
      'line\nbreak',
      '10',
      '9',
      '__proto__',
    ];
    const LEAVES: unknown[] = [0, -1.5, 1e21, 'x', '', 'ü\u2028', true, false, null, undefined, new Date(0)];
    const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)] as T;
    const value = (depth: number): unknown => {
      const r = rand();
      if (depth <= 0 || r < 0.3) return pick(LEAVES);
      if (r < 0.55) {
        const items = Array.from({ length: Math.floor(rand() * 4) }, () => value(depth - 1));
        if (rand() < 0.1) items.length += 2; // holes
        return items;
      }
      const out: Record<string, unknown> = {};
      for (let i = Math.floor(rand() * 5); i > 0; i--)
        Object.defineProperty(out, pick(KEYS), {
          value: value(depth - 1),
          enumerable: true,
          configurable: true,
          writable: true,
        });
      return out;
    };
    for (let i = 0; i < 2000; i++) {
      const v = value(5);
      expect(canonicalJson(v)).toBe(reference(v));
    }
  });
});

import { describe, expect, it } from 'vitest';
import { createMergePatch, dropNulls, jsonEqual } from './merge-patch.js';

describe('jsonEqual', () => {
  it('ignores key order but not list order', () => {
    expect(jsonEqual({ a: 1, b: { c: [1, { d: 2, e: 3 }] } }, { b: { c: [1, { e: 3, d: 2 }] }, a: 1 })).toBe(
      true,
    );
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    expect(jsonEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(jsonEqual({ a: '1' }, { a: 1 })).toBe(false);
    expect(jsonEqual({}, [])).toBe(false);
    expect(jsonEqual(null, {})).toBe(false);
  });

  it('treats undefined-valued keys as absent', () => {
    expect(jsonEqual({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(jsonEqual({ a: 1 }, { a: 1, b: undefined })).toBe(true);
  });
});

describe('dropNulls', () => {
  it('removes null map entries at any depth, inside lists too', () => {
    expect(dropNulls({ a: null, b: { c: null, d: 1 }, e: [null, { f: null, g: 2 }] })).toEqual({
      b: { d: 1 },
      e: [null, { g: 2 }],
    });
  });
});

describe('createMergePatch', () => {
  it('contains only changed keys, removed ones as null, maps diffed recursively', () => {
    expect(
      createMergePatch(
        { keep: 1, gone: 'x', nested: { c: 1, d: 2 }, list: [1, 2], swap: { a: 1 } },
        { keep: 1, nested: { c: 1, e: 3 }, list: [1], swap: 'now a string', added: true },
      ),
    ).toEqual({ gone: null, nested: { d: null, e: 3 }, list: [1], swap: 'now a string', added: true });
  });

  it('is empty for equal inputs', () => {
    expect(createMergePatch({ a: { b: 1, c: 2 } }, { a: { c: 2, b: 1 } })).toEqual({});
  });

  it('turns from into to when applied (RFC 7386)', () => {
    const from = { a: { b: { c: 1, d: [1] } }, e: 1 };
    const to = { a: { b: { d: [2] }, x: { y: 1 } }, f: 2 };
    const patch = createMergePatch(from, to);
    expect(applyMergePatch(from, patch)).toEqual(to);
  });
});

function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> =
    target !== null && typeof target === 'object' && !Array.isArray(target)
      ? { ...(target as Record<string, unknown>) }
      : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = applyMergePatch(out[key], value);
  }
  return out;
}

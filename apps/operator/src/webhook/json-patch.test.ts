import { mergePatch } from '@orkestra/reconciler/offline';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonPatchOf, pointerSegment } from './json-patch.js';
import { applyJsonPatch } from './json-patch.test-support.js';

describe('jsonPatchOf', () => {
  it('escapes ~ and / in keys (~ first, so a/~1 stays itself)', () => {
    expect(pointerSegment('a/b')).toBe('a~1b');
    expect(pointerSegment('a~b')).toBe('a~0b');
    expect(pointerSegment('~1/')).toBe('~01~1');
    const ops = jsonPatchOf(
      { spec: { labels: { 'app.kubernetes.io/name': 'x' } } },
      { spec: { labels: { 'app.kubernetes.io/name': 'y', 'a~b': 'z' } } },
    );
    expect(ops).toEqual([
      { op: 'replace', path: '/spec/labels/app.kubernetes.io~1name', value: 'y' },
      { op: 'add', path: '/spec/labels/a~0b', value: 'z' },
    ]);
  });

  it('adds an absent field at its first absent level, replaces a present one, and skips an equal one', () => {
    expect(jsonPatchOf({ metadata: {} }, { spec: { db: { size: 3 } } })).toEqual([
      { op: 'add', path: '/spec', value: { db: { size: 3 } } },
    ]);
    expect(jsonPatchOf({ spec: { a: 1 } }, { spec: { db: { size: 3 } } })).toEqual([
      { op: 'add', path: '/spec/db', value: { size: 3 } },
    ]);
    expect(jsonPatchOf({ spec: { tier: '' } }, { spec: { tier: 'std' } })).toEqual([
      { op: 'replace', path: '/spec/tier', value: 'std' },
    ]);
    expect(jsonPatchOf({ spec: { tier: 'std' } }, { spec: { tier: 'std' } })).toEqual([]);
    // A scalar in the way of a nested field is replaced by the object, as the merge patch does.
    expect(jsonPatchOf({ spec: { db: 'x' } }, { spec: { db: { size: 3 } } })).toEqual([
      { op: 'replace', path: '/spec/db', value: { size: 3 } },
    ]);
    // null removes a present member and nothing else.
    expect(jsonPatchOf({ spec: { a: 1 } }, { spec: { a: null, b: null } })).toEqual([
      { op: 'remove', path: '/spec/a' },
    ]);
  });

  it('replaces arrays whole, and writes an array into an absent field', () => {
    expect(jsonPatchOf({ spec: { ports: [80, 443] } }, { spec: { ports: [8080] } })).toEqual([
      { op: 'replace', path: '/spec/ports', value: [8080] },
    ]);
    expect(jsonPatchOf({ spec: {} }, { spec: { hosts: [{ name: 'a', x: null }] } })).toEqual([
      { op: 'add', path: '/spec/hosts', value: [{ name: 'a', x: null }] },
    ]);
    expect(jsonPatchOf({ spec: { ports: [80] } }, { spec: { ports: [80] } })).toEqual([]);
  });

  it('makes what the merge patch makes, on generated objects', () => {
    const key = fc.constantFrom('a', 'b', 'x/y', 'm~n', '~1', '/', '-', '');
    const leaf = fc.oneof(
      fc.integer(),
      fc.string({ maxLength: 3 }),
      fc.boolean(),
      fc.array(fc.integer(), { maxLength: 2 }),
    );
    const { tree } = fc.letrec((tie) => ({
      tree: fc.dictionary(key, fc.oneof({ depthSize: 'small' }, leaf, tie('tree')), { maxKeys: 4 }),
    }));
    const { patch } = fc.letrec((tie) => ({
      patch: fc.dictionary(key, fc.oneof({ depthSize: 'small' }, leaf, fc.constant(null), tie('patch')), {
        maxKeys: 4,
      }),
    }));
    fc.assert(
      fc.property(tree, patch, (target, p) => {
        const doc = { spec: target } as Record<string, unknown>;
        const ops = jsonPatchOf(doc, { spec: p });
        expect(applyJsonPatch(doc, ops)).toEqual(mergePatch(doc, { spec: p }));
      }),
      { numRuns: 2000, seed: 92 },
    );
  });
});

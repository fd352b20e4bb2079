import { describe, expect, it } from 'vitest';
import { hookUnits } from '../hooks/table.js';
import { hookRoots, patchResults, resultsProblem, visibleRoots } from './results.js';

describe('offline results derived from the hook table', () => {
  it('name one root per hook with results of its own, in table order', () => {
    expect(hookRoots.map((root) => root.key)).toEqual(
      hookUnits.filter((unit) => unit.results !== 'none').map((unit) => unit.key),
    );
  });

  it('let a hook declaration see the step 9–12 hooks before it, and its own earlier declarations when ordered (docs/reference/katalog.md §17.2)', () => {
    // Every hook, a new one too: the hooks with results before it in the table, itself when ordered.
    for (const [index, unit] of hookUnits.entries()) {
      if (unit.phase === 'validation') continue;
      const before = hookUnits
        .slice(0, index)
        .filter((u) => u.phase !== 'validation' && u.results !== 'none');
      expect(visibleRoots({ hook: unit.key })).toEqual(
        [...before, ...(unit.ordered === true ? [unit] : [])].map((u) => u.key),
      );
    }
    // The built-in hooks among themselves (a hook added between them adds its own root).
    const builtIn = ['cross', 'git', 'external', 'docker', 'hooks', 'remote', 'providers'];
    const seen = (key: string): string[] =>
      visibleRoots({ hook: key }).filter((root) => builtIn.includes(root));
    expect(seen('cross')).toEqual([]);
    expect(seen('git')).toEqual(['cross']);
    expect(seen('external')).toEqual(['cross', 'git', 'external']);
    expect(seen('docker')).toEqual(['cross', 'git', 'external']);
    expect(seen('hooks')).toEqual(['cross', 'git', 'external', 'docker', 'hooks']);
    expect(seen('remote')).toEqual(['cross', 'git', 'external', 'docker', 'hooks']);
    expect(seen('providers')).toEqual(['cross', 'git', 'external', 'docker', 'hooks', 'remote', 'providers']);
    expect(visibleRoots({ phase: 'validation' })).toEqual(['external']);
  });

  it('merge a patch by the shape of each root: one result replaced, named results by name, null removes', () => {
    const first = patchResults(
      {},
      { git: { commit: 'a' }, external: { x: { ok: true } }, providers: { aws: { b: { ready: true } } } },
    );
    const second = patchResults(first, {
      git: null,
      external: { y: { ok: false } },
      providers: { aws: { b: null } },
    });
    expect(second).toEqual({
      cross: {},
      external: { x: { ok: true }, y: { ok: false } },
      hooks: {},
      providers: { aws: {} },
    });
    expect(first['git']).toEqual({ commit: 'a' });
  });

  it('refuse an unknown key and a result of the wrong shape', () => {
    expect(resultsProblem({ gti: {} })?.message).toMatch(/^unknown key gti; expected cross, git/);
    expect(resultsProblem({ providers: { aws: 1 } })?.path).toEqual(['providers', 'aws']);
    expect(resultsProblem({ git: { commit: 'a' }, cross: { db: null } })).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { hookUnits } from '../hooks/table.js';
import {
  deletionFailuresProblem,
  hookRoots,
  patchResults,
  resultsProblem,
  scriptedFailure,
  visibleRoots,
} from './results.js';

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

describe('scripted deletion-step failures (ADR 0116)', () => {
  it('are keyed by the hooks the table gives a deletion step, and by nothing else', () => {
    const withStep = hookUnits.filter((unit) => unit.deletionStep != null);
    expect(withStep.map((unit) => unit.key)).toEqual(['hooks', 'remote', 'providers']);
    expect(hookRoots.filter((root) => root.deletionStep != null).map((root) => root.key)).toEqual(
      withStep.map((unit) => unit.key),
    );
    for (const unit of hookUnits) {
      const problem = deletionFailuresProblem({ [unit.key]: null });
      if (unit.deletionStep == null) expect(problem?.at).toBe('key');
      else expect(problem).toBeUndefined();
    }
  });

  it('are read as each hook names its results: one, by name, by provider and declaration', () => {
    expect(scriptedFailure('one', 'purge refused', 'ignored')).toBe('purge refused');
    expect(scriptedFailure('by-name', { audit: 'locked' }, 'audit')).toBe('locked');
    expect(scriptedFailure('by-name', { audit: 'locked' }, 'record')).toBeUndefined();
    expect(scriptedFailure('by-provider', { aws: { bucket: 'denied' } }, 'aws', 'bucket')).toBe('denied');
    expect(scriptedFailure('by-provider', { aws: { bucket: 'denied' } }, 'aws', 'queue')).toBeUndefined();
    // Only own keys: a name never reads the prototype.
    expect(scriptedFailure('by-name', {}, 'toString')).toBeUndefined();
  });
});

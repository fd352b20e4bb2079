import { createTemplateEngine } from '@orkestra/template';
import { ConditionReason, loadKatalogOrThrow } from '@orkestra/types';
import { describe, expect, it } from 'vitest';
import { compileKatalog } from '../runtime/compile-katalog.js';
import { buildDirectory } from './docker/index.js';
import { isPending, pending } from './hook-unit.js';
import { enqueueTable, hookNames, hookSummary, hookUnits } from './table.js';

const clock = { now: () => 0, setTimeout: () => ({}), clearTimeout: () => undefined };

function site(box: string): NonNullable<ReturnType<ReturnType<typeof compileKatalog>['crds']['get']>> {
  const katalog = loadKatalogOrThrow({
    text: `
apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: t}
spec:
  crds:
    site:
      apiTypes: {group: a.example.com, version: v1, kind: Site, plural: sites}
      operatorBox:
${box}
    other:
      apiTypes: {group: a.example.com, version: v1, kind: Other, plural: others}
`,
  });
  const crd = compileKatalog(katalog, { engine: createTemplateEngine({ clock }) }).crds.get('site');
  if (crd == null) throw new Error('no site entry');
  return crd;
}

describe('the hook table', () => {
  it('compiles one key per unit, in table order', () => {
    expect(Object.keys(site('        finalizers: []').hooks)).toEqual(hookUnits.map((unit) => unit.key));
    // The built-in hooks keep their order (each sees the ones before it); a new hook adds a key.
    const keys = hookUnits.map((unit) => unit.key);
    const order = ['cross', 'git', 'external', 'docker', 'providers'].map((key) => keys.indexOf(key));
    expect(order.every((at, i) => at >= 0 && (i === 0 || at > (order[i - 1] ?? -1)))).toBe(true);
    expect(hookUnits.filter((unit) => unit.phase === 'after-writes').map((unit) => unit.key)).toEqual([
      'providers',
    ]);
  });

  it('derives the enqueue table from the declared hooks', () => {
    expect(enqueueTable(site('        finalizers: []').hooks)).toEqual(['primary', 'children']);
    const hooked = site(`        cross: [{crd: other, selector: {name: x}}]
        git: {repo: 'https://example.com/r.git'}
        docker: {image: 'registry.example.com/app:1'}`);
    expect(enqueueTable(hooked.hooks)).toEqual(['primary', 'children', 'cross-readers', 'git', 'docker']);
  });

  it('names the declared hooks for the Control Center, in table order', () => {
    expect(hookNames(site('        finalizers: []').hooks)).toEqual([]);
    const hooked = site(`        cross: [{crd: other, selector: {name: x}, as: peer}]
        git: {repo: 'https://example.com/r.git'}
        external: [{name: probe, url: 'https://example.com/p'}]
        docker: {image: 'registry.example.com/app:1'}`);
    expect(hookNames(hooked.hooks)).toEqual(['cross peer', 'git', 'external probe', 'docker']);
  });

  it('summarizes the hooks for the Katalog view, one key per unit with a summary', () => {
    const listed = hookUnits.filter((unit) => unit.summary != null).map((unit) => unit.key);
    const none = hookSummary(site('        finalizers: []').entry);
    // Every listed unit answers, so a hook added to the table with a summary appears in the view.
    expect(Object.keys(none)).toEqual(listed);
    expect(none).toMatchObject({ cross: [], git: false, external: [], docker: false });
    const hooked = site(`        cross: [{crd: other, selector: {name: x}, as: peer}]
        git: {repo: 'https://example.com/r.git'}
        external: [{name: probe, url: 'https://example.com/p'}]
        docker: {image: 'registry.example.com/app:1'}`);
    expect(hookSummary(hooked.entry)).toMatchObject({
      cross: ['peer'],
      git: true,
      external: ['probe'],
      docker: true,
    });
  });
});

describe('pending', () => {
  it('is told apart from any context value', () => {
    expect(isPending(pending(ConditionReason.DockerBuildPending, 'building', 5))).toBe(true);
    expect(isPending({ pending: true, reason: 'DockerBuildPending', requeueAfterMs: 5 })).toBe(false);
    expect(isPending(undefined)).toBe(false);
    expect(isPending({})).toBe(false);
  });
});

describe('buildDirectory', () => {
  it('joins a relative working directory to the checkout, keeps an absolute one, else uses git.path', () => {
    expect(buildDirectory('app', '/git/r', 'ignored')).toBe('/git/r/app');
    expect(buildDirectory('/abs', '/git/r', '')).toBe('/abs');
    expect(buildDirectory('rel', '', '')).toBe('rel');
    expect(buildDirectory('', '/git/r', 'sub')).toBe('/git/r/sub');
    expect(buildDirectory('', '/git/r', '')).toBe('/git/r');
    expect(buildDirectory('', '', 'sub')).toBeUndefined();
  });
});

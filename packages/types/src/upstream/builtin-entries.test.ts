import { describe, expect, it } from 'vitest';
import { migrateKatalog } from './migrate.js';
import type { LoadKatalogResult } from '../load-katalog.js';
import { head, ok, load } from './dialect-fixtures.test-support.js';

/**
 * Upstream dialects, one test per mapping. Every fixture is written here from upstream's
 * documentation and type definitions (pkg/types of orkspace/orkestra and inrundev/inrun), not
 * copied from upstream files.
 */

describe('upstream entries of built-in kinds and selectors', () => {
  const lineOf = (text: string, needle: string): number =>
    text.split('\n').findIndex((l) => l.includes(needle)) + 1;
  const columnOf = (text: string, needle: string): number =>
    (text.split('\n').find((l) => l.includes(needle)) ?? '').indexOf(needle) + 1;
  const errors = (result: LoadKatalogResult) => (result.ok ? [] : result.errors);

  it('refuses an entry that names a built-in kind, at its apiTypes, with what to do instead', () => {
    const text = head()
      .replace('group: demo.example.io', 'group: ""')
      .replace('kind: Website', 'kind: ConfigMap')
      .concat('      labelSelector: {watch: "true"}\n');
    const found = errors(load(text));
    expect(found[0]).toMatchObject({
      path: 'spec.crds.website.apiTypes.group',
      line: lineOf(text, 'group: ""'),
      column: columnOf(text, '""'),
      message: expect.stringContaining("one of Kubernetes' own kinds"),
    });
    expect(found.some((e) => e.path.endsWith('labelSelector'))).toBe(false);
    const apps = head()
      .replace('group: demo.example.io', 'group: apps')
      .replace('kind: Website', 'kind: Deployment');
    expect(errors(load(apps))[0]?.message).toContain('group apps');
  });

  it('gives an entry that names only a built-in kind (`apiTypes: {kind: ConfigMap}`) that one reason, not the CRD keys it lacks', () => {
    const text = head().replace(
      '      apiTypes:\n        group: demo.example.io\n        version: v1alpha1\n        kind: Website\n        plural: websites\n',
      '      apiTypes:\n        kind: ConfigMap\n',
    );
    const found = errors(load(text));
    expect(found).toEqual([
      expect.objectContaining({
        path: 'spec.crds.website.apiTypes.kind',
        line: lineOf(text, 'kind: ConfigMap'),
        message: expect.stringContaining("one of Kubernetes' own kinds"),
      }),
    ]);
    // Without the refusal (an own kind), the missing keys are still reported.
    const own = text.replace('kind: ConfigMap', 'kind: Gadget');
    expect(errors(load(own)).map((e) => e.path)).toEqual(
      expect.arrayContaining(['spec.crds.website.apiTypes.group', 'spec.crds.website.apiTypes.plural']),
    );
  });

  it('drops a disabled entry of a built-in kind with a note, and still refuses an enabled one', () => {
    const disabled = `${head()}    pods:
      enabled: false
      apiTypes: {kind: Pod}
      restrictedNamespaces: [kube-system]
`;
    const result = ok(load(disabled));
    expect(Object.keys(result.katalog.spec.crds)).toEqual(['website']);
    expect(migrateKatalog(disabled).changes).toContainEqual(
      expect.objectContaining({
        path: 'spec.crds.pods',
        line: lineOf(disabled, '    pods:'),
        message: expect.stringContaining('disabled entry'),
      }),
    );
    const enabled = disabled.replace('      enabled: false\n', '');
    expect(errors(load(enabled)).some((e) => e.message.includes("one of Kubernetes' own kinds"))).toBe(true);
  });

  it('refuses labelSelector on an entry with its own CRD, with the reason', () => {
    const text = head() + '      labelSelector: {team: a}\n';
    expect(errors(load(text))[0]).toMatchObject({
      path: 'spec.crds.website.labelSelector',
      line: lineOf(text, 'labelSelector'),
      message: expect.stringContaining('every CR of the entry'),
    });
  });
});

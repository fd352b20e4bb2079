import { describe, expect, it } from 'vitest';
import { migrateKatalog } from './migrate.js';
import { load, ok } from './dialect-fixtures.test-support.js';

/**
 * Upstream dialects, one test per mapping. Every fixture is written here from upstream's
 * documentation and type definitions (pkg/types of orkspace/orkestra and inrundev/inrun), not
 * copied from upstream files.
 */

describe('migrateKatalog', () => {
  const text = `apiVersion: orkestra.orkspace.io/v1
kind: Katalog
metadata:
  name: demo
spec:
  crds:
    website:
      apiTypes: {group: demo.example.io, version: v1alpha1, kind: Website, plural: websites}
      # the lifecycle
      reconciler:
        # children created once
        onCreate:
          configMaps:
            - name: cfg # the config
              data: {a: "1"}
`;

  it('keeps comments and reports each change', () => {
    const result = migrateKatalog(text);
    expect(result.problems).toEqual([]);
    expect(result.text).toContain('# children created once');
    expect(result.text).toContain('# the config');
    expect(result.text).toContain('apiVersion: orkestra.konductor.io/v1alpha1');
    expect(result.changes.map((c) => c.message)).toContain('moved to operatorBox.onCreate');
    const reloaded = ok(load(result.text));
    expect(reloaded.warnings).toEqual([]);
    expect(reloaded.katalog).toEqual(ok(load(text)).katalog);
  });

  it('leaves a canonical Katalog byte for byte', () => {
    const canonical = migrateKatalog(text).text;
    expect(migrateKatalog(canonical)).toMatchObject({ text: canonical, changes: [] });
  });
});

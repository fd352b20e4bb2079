import { describe, expect, it } from 'vitest';
import { migrateKatalog } from './migrate.js';
import type { LoadKatalogResult } from '../load-katalog.js';
import { ok, load } from './dialect-fixtures.test-support.js';

/**
 * Upstream's per-version entries (katalog.md §24, ADR 0106). The fixture is written here from
 * upstream's conversion documentation (a CRD served at two versions, one entry per version, the
 * conversion on the storage version's entry), not copied from upstream files.
 */
describe('upstream per-version entries of one kind', () => {
  const errors = (result: LoadKatalogResult) => (result.ok ? [] : result.errors);
  const lineOf = (text: string, needle: string, nth = 0): number => {
    const lines = text.split('\n');
    let seen = -1;
    for (let i = 0; i < lines.length; i++)
      if ((lines[i] ?? '').includes(needle) && ++seen === nth) return i + 1;
    return 0;
  };
  const entry = (version: string, extra = ''): string => `    - name: gadget-${version}
      apiTypes:
        group: demo.example.io
        version: ${version}
        kind: Gadget
        plural: gadgets
      operatorBox:
        onCreate:
          configMaps:
            - name: "{{ .metadata.name }}-settings"
              data:
                size: "{{ .spec.size }}"
${extra}`;
  const conversion = `      conversion:
        storageVersion: v2
        paths:
          - from: v1
            to: v2
            spec:
              size: "{{ .spec.size }}"
          - from: v2
            to: v1
            spec:
              size: "{{ .spec.size }}"
`;
  const katalog = (first: string, second: string, apiVersion = 'orkestra.konductor.io/v1Alpha'): string =>
    `apiVersion: ${apiVersion}
kind: Katalog
metadata:
  name: gadgets
spec:
  crds:
${first}${second}`;

  const same = katalog(entry('v1'), entry('v2', conversion));

  it('merges a per-version entry that reconciles the same way into the conversion entry (one CRD, both versions served)', () => {
    const result = ok(load(same));
    const crds = result.katalog.spec.crds;
    expect(Object.keys(crds)).toEqual(['gadget-v2']);
    const kept = crds['gadget-v2'];
    expect(kept?.apiTypes.version).toBe('v2');
    expect(kept?.conversion?.paths.map((p) => `${p.from}>${p.to}`)).toEqual(['v1>v2', 'v2>v1']);
    expect(kept?.operatorBox.onCreate.configMaps).toHaveLength(1);
    // The merge is a positioned change at the dropped entry's version, and migrate writes one entry.
    const migrated = migrateKatalog(same);
    expect(migrated.problems).toEqual([]);
    expect(migrated.changes).toContainEqual(
      expect.objectContaining({
        line: lineOf(same, 'version: v1'),
        message: expect.stringContaining('merged into entry gadget-v2'),
      }),
    );
    expect(migrated.text).not.toContain('gadget-v1');
    expect(ok(load(migrated.text)).katalog.spec.crds).toEqual(crds);
  });

  it('refuses, at its version, a per-version entry whose reconcile differs (reconciling once would drop it)', () => {
    const differs = katalog(
      entry('v1').replace('"{{ .spec.size }}"', '"{{ .spec.legacySize }}"'),
      entry('v2', conversion),
    );
    const found = errors(load(differs));
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      path: 'spec.crds[0].apiTypes.version',
      line: lineOf(differs, 'version: v1'),
      message: expect.stringContaining("This entry's `operatorBox` differs"),
    });
  });

  it('refuses a same-kind entry at a version the conversion does not serve', () => {
    const stray = katalog(entry('v3'), entry('v2', conversion));
    expect(errors(load(stray))).toEqual([
      expect.objectContaining({
        path: 'spec.crds[0].apiTypes.version',
        message: expect.stringContaining(
          'version v3, which the conversion of entry gadget-v2 does not serve',
        ),
      }),
    ]);
  });

  it('leaves a canonical Katalog alone: two entries of one kind stay an error there', () => {
    const canonical = katalog(entry('v1'), entry('v2', conversion), 'orkestra.konductor.io/v1alpha1');
    expect(errors(load(canonical)).map((e) => e.message)).toContainEqual(
      expect.stringContaining('both declare Gadget in group demo.example.io'),
    );
  });
});

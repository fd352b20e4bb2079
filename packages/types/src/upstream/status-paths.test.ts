import { describe, expect, it } from 'vitest';
import { migrateKatalog } from './migrate.js';
import { head, load, ok } from './dialect-fixtures.test-support.js';

/** Upstream status fields at runtime-owned paths (docs/reference/katalog.md §13.2, §24); fixtures written here. */

const withFields = (apiVersion: string) => `${head(apiVersion)}      operatorBox:
        status:
          fields:
            - path: phase
              value: Ready
            - path: observedGeneration
              value: "{{ observedGeneration .children.deployment }}"
            - path: conditions.extra
              value: x
`;

describe('upstream status fields at runtime-owned paths', () => {
  it('are removed with a note at the path; the other fields load', () => {
    const text = withFields('orkestra.orkspace.io/v1');
    const fields = ok(load(text)).katalog.spec.crds['website']?.operatorBox?.status?.fields ?? [];
    expect(fields.map((f) => f.path)).toEqual(['phase']);
    const notes = migrateKatalog(text).changes.filter((c) => c.path.includes('status.fields'));
    expect(notes.map((c) => [c.path, c.line])).toEqual([
      ['spec.crds.website.operatorBox.status.fields[1].path', 18],
      ['spec.crds.website.operatorBox.status.fields[2].path', 20],
    ]);
    expect(notes[0]?.message).toMatch(/observedGeneration is written by the runtime.*another name/);
  });

  it('stay refused in Orkestra’s own dialect', () => {
    const result = load(withFields('orkestra.konductor.io/v1alpha1'));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors[0]?.message).toMatch(/reserved key/);
  });
});

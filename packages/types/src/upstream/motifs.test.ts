import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { migrateKatalog } from './migrate.js';
import { load, ok } from './dialect-fixtures.test-support.js';

/**
 * Upstream dialects, one test per mapping. Every fixture is written here from upstream's
 * documentation and type definitions (pkg/types of orkspace/orkestra and inrundev/inrun), not
 * copied from upstream files.
 */

describe('motif inputs that are templates, and motif lifecycle groups', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ork-motif-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(
    join(dir, 'pool.yaml'),
    `kind: Motif
metadata: {name: pool}
inputs:
  - name: size
    default: "1"
  - name: tag
    required: true
resources:
  onCreate:
    secrets:
      - name: "{{ .metadata.name }}-token"
        once: true
        data:
          token: "{{ randomAlphanumeric 24 }}"
  statefulSets:
    - name: "{{ .metadata.name }}-pool"
      image: '{{ index .inputs "tag" }}'
      replicas: '{{ index .inputs "size" }}'
      labels:
        size: '{{ printf "%v" (index .inputs "size") }}'
`,
  );
  writeFileSync(
    join(dir, 'copy.yaml'),
    `kind: Motif
inputs:
  - name: from
resources:
  secrets:
    - name: copied
      namespace: '{{ index .inputs "from" }}'
`,
  );
  writeFileSync(
    join(dir, 'odd.yaml'),
    `kind: Motif
resources:
  onDelete:
    jobs:
      - name: cleanup
  configMap:
    name: x
`,
  );
  const text = (withBlock: string, motif = './pool.yaml'): string => `apiVersion: orkestra.orkspace.io/v1
kind: Katalog
metadata: {name: demo}
spec:
  crds:
    pool:
      apiTypes: {group: demo.example.io, version: v1alpha1, kind: Pool, plural: pools}
      imports:
        - motif: ${motif}
          with:
${withBlock}
`;

  it('evaluates an input that is a template against the CR instead of inserting its text', () => {
    const result = ok(
      load(text('            size: "{{ .spec.members }}"\n            tag: "app:{{ .spec.version }}"'), dir),
    );
    const set = result.katalog.spec.crds['pool']?.operatorBox.onReconcile.statefulSets[0];
    expect(set?.replicas).toBe('{{ .spec.members }}');
    expect(set?.image).toBe('app:{{ .spec.version }}');
    expect(set?.labels).toEqual({ size: '{{ printf "%v" ((.spec.members)) }}' });
  });

  it('writes a literal input as the value itself where a field is only the input, and as a constant inside an expression', () => {
    const result = ok(load(text('            tag: "app:1.0"\n            size: 3'), dir));
    const set = result.katalog.spec.crds['pool']?.operatorBox.onReconcile.statefulSets[0];
    expect(set).toMatchObject({ image: 'app:1.0', replicas: 3, labels: { size: '{{ printf "%v" (3) }}' } });
  });

  it('points an error in a spliced template at the with: line the user wrote', () => {
    const result = load(text('            from: "{{ .spec.team }}"', './copy.yaml'), dir);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors[0]).toMatchObject({ line: 11, column: 19 });
    expect(result.errors[0]?.file).toBe('katalog.yaml');
    expect(result.errors[0]?.message).toContain('needs `allowedNamespaces`');
  });

  it('refuses a template with text around it where the motif uses it inside an expression', () => {
    const result = load(text('            size: "n{{ .spec.members }}"\n            tag: x'), dir);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors[0]).toMatchObject({ line: 11, column: 19 });
    expect(result.errors[0]?.message).toContain('motif input `size` is a template with text around it');
  });

  it('refuses a list or map given as a motif input at its position', () => {
    const result = load(text('            size: [1, 2]\n            tag: x'), dir);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors[0]).toMatchObject({ line: 11, column: 19 });
    expect(result.errors[0]?.message).toContain('motif input `size` must be a string, number or boolean');
  });

  it('imports a motif’s onCreate group into onCreate and counts its children', () => {
    const result = ok(load(text('            tag: x'), dir));
    const box = result.katalog.spec.crds['pool']?.operatorBox;
    expect(box?.onCreate.secrets.map((s) => s.name)).toEqual(['{{ .metadata.name }}-token']);
    expect(box?.onCreate.secrets[0]?.once).toBe(true);
    expect(box?.onReconcile.secrets).toEqual([]);
    const migrated = migrateKatalog(text('            tag: x'), { baseDir: dir });
    expect(migrated.changes.map((c) => c.message)).toContain(
      'imported 2 children from motif ./pool.yaml into operatorBox.onCreate and operatorBox.onReconcile',
    );
  });

  it('refuses a motif’s onDelete and a non-list kind at their keys instead of dropping them', () => {
    const result = load(text('            tag: x', './odd.yaml'), dir);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((e) => [e.file, e.line, e.column])).toEqual([
      [join(dir, 'odd.yaml'), 3, 3],
      [join(dir, 'odd.yaml'), 6, 3],
    ]);
    expect(result.errors[0]?.message).toContain('`resources.onDelete` is not imported');
    expect(result.errors[1]?.message).toContain('must be a kind list');
  });
});

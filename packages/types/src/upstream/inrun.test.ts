import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadKatalog } from '../load-katalog.js';
import { migrateKatalog } from './migrate.js';
import { load, ok } from './dialect-fixtures.test-support.js';

/**
 * Inrun, upstream's newest generation (docs/reference/katalog.md §24, ADR 0081): `apiVersion:
 * inrun.dev/v1`, `kind: Catalog`, motifs named modules. Every fixture is written here from Inrun's
 * documentation and CHANGELOG, not copied from its files.
 */

/** A Catalog in Inrun's OPPRE layout (runtime / reconcile / emit). */
const catalog = (body = '', kind = 'Catalog', apiVersion = 'inrun.dev/v1') => `apiVersion: ${apiVersion}
kind: ${kind}
metadata:
  name: shop
spec:
  crds:
    shop:
      apiTypes:
        group: shop.example.dev
        version: v1alpha1
        kind: Shop
        plural: shops
      operatorBox:
        runtime:
          allowedNamespaces: [shops]
        reconcile:
${body}          onCreate:
            configMaps:
              - name: "{{ .metadata.name }}-settings"
                data:
                  TIER: "{{ .spec.tier }}"
        emit:
          status:
            fields:
              - path: phase
                value: Ready
`;

describe('an Inrun Catalog (apiVersion inrun.dev/v1, kind Catalog)', () => {
  it('loads as an upstream generation, with a warning naming the header it mapped', () => {
    const loaded = ok(load(catalog()));
    expect(loaded.katalog.apiVersion).toBe('orkestra.konductor.io/v1alpha1');
    expect(loaded.katalog.kind).toBe('Katalog');
    const shop = loaded.katalog.spec.crds['shop'];
    expect(shop?.allowedNamespaces).toEqual(['shops']);
    expect(shop?.operatorBox.onCreate?.configMaps?.[0]?.name).toBe('{{ .metadata.name }}-settings');
    expect(loaded.warnings.map((w) => [w.line, w.column, w.message])).toContainEqual([
      1,
      13,
      expect.stringContaining(
        'upstream Katalog (inrun.dev/v1 Catalog → orkestra.konductor.io/v1alpha1 Katalog, G3 layout)',
      ),
    ]);
  });

  it('is rewritten by ork migrate to the canonical header, each change at its position', () => {
    const migrated = migrateKatalog(catalog());
    expect(migrated.problems).toEqual([]);
    expect(migrated.generation).toBe('G3');
    expect(migrated.text.startsWith('apiVersion: orkestra.konductor.io/v1alpha1\nkind: Katalog\n')).toBe(
      true,
    );
    expect(migrated.changes.slice(0, 2)).toEqual([
      { path: 'apiVersion', line: 1, column: 13, message: 'inrun.dev/v1 → orkestra.konductor.io/v1alpha1' },
      { path: 'kind', line: 2, column: 7, message: 'Catalog → Katalog' },
    ]);
    // The rewrite is a canonical Katalog: it loads with no dialect warning.
    const again = ok(load(migrated.text));
    expect(again.warnings.filter((w) => w.message.startsWith('upstream Katalog'))).toEqual([]);
  });

  it('keeps the other header spellings refused, each naming what it is', () => {
    const canonicalCatalog = load(catalog('', 'Catalog', 'orkestra.konductor.io/v1alpha1'));
    expect(
      canonicalCatalog.ok ? [] : canonicalCatalog.errors.map((e) => [e.line, e.path, e.message]),
    ).toEqual([[2, 'kind', expect.stringContaining('Catalog is Inrun’s spelling of a Katalog')]]);
    for (const [kind, what] of [
      ['Stack', 'a Stack is Inrun’s Komposer'],
      ['Module', 'a Module is Inrun’s motif'],
    ] as const) {
      const refused = load(catalog('', kind));
      expect(refused.ok ? [] : refused.errors.map((e) => [e.line, e.column, e.path, e.message])).toEqual([
        [2, 7, 'kind', expect.stringContaining(what)],
      ]);
    }
  });

  it('a Stack (Inrun’s Komposer) gets the one refusal at kind, not one per key it holds', () => {
    const stack = load(
      'apiVersion: inrun.dev/v1\nkind: Stack\nmetadata: {name: platform}\npolicy:\n  lifecycle: {minMaturity: beta}\n',
    );
    expect(stack.ok ? [] : stack.errors.map((e) => [e.line, e.column, e.path, e.message])).toEqual([
      [2, 7, 'kind', expect.stringContaining('a Stack is Inrun’s Komposer')],
    ]);
    expect(stack.warnings).toEqual([]);
  });

  it('loads from a ConfigMap that holds it (Inrun deploys a Catalog as one)', () => {
    const indented = catalog()
      .split('\n')
      .map((line) => (line === '' ? '' : `    ${line}`))
      .join('\n');
    const text = `apiVersion: v1
kind: ConfigMap
metadata:
  name: inrun-catalog
  namespace: inrun-system
data:
  catalog.yaml: |
${indented}`;
    const loaded = ok(loadKatalog({ text, file: 'cm.yaml' }));
    expect(Object.keys(loaded.katalog.spec.crds)).toEqual(['shop']);
    expect(loaded.warnings[0]?.message).toContain('data key catalog.yaml of ConfigMap inrun-catalog');
    const migrated = migrateKatalog(text);
    expect(migrated.problems).toEqual([]);
    expect(migrated.text).toContain('kind: Katalog');
  });
});

describe('Inrun modules (motifs) imported with `module:`', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ork-inrun-module-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(
    join(dir, 'pool.yaml'),
    `apiVersion: inrun.dev/v1
kind: Module
metadata: {name: pool}
inputs:
  - name: image
    required: true
  - name: size
    default: "2"
resources:
  replicaSets:
    - name: "{{ .metadata.name }}-pool"
      image: '{{ index .inputs "image" }}'
      replicas: '{{ index .inputs "size" }}'
status:
  fields:
    - path: workers
      value: '{{ index .inputs "size" }}'
`,
  );
  writeFileSync(
    join(dir, 'naming.yaml'),
    `apiVersion: inrun.dev/v1
kind: Module
metadata: {name: naming}
notes:
  - name: poolName
    expression: '{{ .metadata.name }}-pool'
`,
  );

  it('an entry’s `imports: [{module}]` brings the module’s resources and status fields', () => {
    const loaded = ok(
      load(
        catalog(
          '          imports:\n            - module: ./pool.yaml\n              with: {image: busybox}\n',
        ),
        dir,
      ),
    );
    const box = loaded.katalog.spec.crds['shop']?.operatorBox;
    expect(box?.onReconcile?.replicaSets?.[0]).toMatchObject({ image: 'busybox', replicas: '2' });
    expect(box?.status?.fields?.map((f) => f.path)).toEqual(['phase', 'workers']);
  });

  it('a missing required input is refused at the import, naming the module file', () => {
    const refused = load(catalog('          imports:\n            - module: ./pool.yaml\n'), dir);
    expect(refused.ok ? [] : refused.errors.map((e) => e.message)).toEqual([
      expect.stringContaining('motif ./pool.yaml needs input `image`'),
    ]);
  });

  it('spec.imports `[{module}]` lends the module’s notes to the whole Catalog', () => {
    const text = catalog()
      .replace('spec:\n  crds:', 'spec:\n  imports:\n    - module: ./naming.yaml\n  crds:')
      .replace('"{{ .metadata.name }}-settings"', '"{{ poolName }}"');
    const loaded = ok(load(text, dir));
    expect(loaded.katalog.spec.crds['shop']?.operatorBox.onCreate?.configMaps?.[0]?.name).toBe(
      '{{ .metadata.name }}-pool',
    );
  });
});

describe('keys Inrun renamed', () => {
  const lifecycle = (compatibility: string) =>
    catalog().replace('spec:\n', `lifecycle:\n  maturity: stable\n  compatibility:\n${compatibility}spec:\n`);

  it('lifecycle.compatibility.inrun is the runtime range, compatibility.orkestra here', () => {
    const loaded = ok(load(lifecycle('    kubernetes: ">=1.28"\n    inrun: ">=0.7.0"\n')));
    expect(loaded.katalog.lifecycle?.compatibility).toEqual({ kubernetes: '>=1.28', orkestra: '>=0.7.0' });
    const migrated = migrateKatalog(lifecycle('    inrun: ">=0.7.0"\n'));
    expect(migrated.changes).toContainEqual({
      path: 'lifecycle.compatibility.inrun',
      line: 8,
      column: 5,
      message: 'moved to lifecycle.compatibility.orkestra',
    });
    expect(migrated.text).toContain('  compatibility:\n    orkestra: ">=0.7.0"\n');
  });

  it('a bad range is refused at the key the user wrote; both names at once are refused', () => {
    const bad = load(lifecycle('    inrun: not-a-range\n'));
    expect(bad.ok ? [] : bad.errors.map((e) => [e.line, e.column, e.message])).toEqual([
      [8, 12, expect.stringContaining('"not-a-range" is not a valid version range')],
    ]);
    const both = load(lifecycle('    inrun: ">=0.7.0"\n    orkestra: ">=0.7.0"\n'));
    expect(both.ok ? [] : both.errors.map((e) => [e.line, e.column, e.message])).toEqual([
      [8, 5, expect.stringContaining('lifecycle.compatibility.orkestra is written twice')],
    ]);
  });
});

describe('the OPPRE observe block', () => {
  /** Two entries; `shop` reads `ledger` through `observe.cross`, as Inrun's CHANGELOG v0.7.18 lays it out. */
  const text = (apiVersion: string, kind: string) => `apiVersion: ${apiVersion}
kind: ${kind}
metadata:
  name: shop
spec:
  crds:
    ledger:
      apiTypes: {group: shop.example.dev, version: v1alpha1, kind: Ledger, plural: ledgers}
    shop:
      apiTypes: {group: shop.example.dev, version: v1alpha1, kind: Shop, plural: shops}
      operatorBox:
        observe:
          cross:
            - crd: ledger
              selector:
                name: "{{ .metadata.name }}"
              as: ledger
        emit:
          status:
            fields:
              - path: balance
                value: '{{ default "0" .cross.ledger.status.balance }}'
`;

  it.each([
    ['inrun.dev/v1', 'Catalog'],
    ['orkestra.orkspace.io/v1', 'Katalog'],
  ])('observe.cross (%s) is the box’s cross list', (apiVersion, kind) => {
    const loaded = ok(load(text(apiVersion, kind)));
    expect(loaded.katalog.spec.crds['shop']?.operatorBox.cross).toEqual([
      expect.objectContaining({ crd: 'ledger', as: 'ledger', selector: { name: '{{ .metadata.name }}' } }),
    ]);
    const migrated = migrateKatalog(text(apiVersion, kind));
    expect(migrated.changes).toContainEqual({
      path: 'spec.crds.shop.operatorBox.observe.cross',
      line: 13,
      column: 11,
      message: 'moved to operatorBox.cross',
    });
  });
});

describe('the admission block (Inrun v0.7.18 moved conversion under it)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ork-inrun-conversion-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(
    join(dir, 'paths.yaml'),
    `paths:
  - from: v1alpha1
    to: v1
    spec:
      size: "{{ .spec.size }}"
`,
  );
  const text = `apiVersion: inrun.dev/v1
kind: Catalog
metadata:
  name: shop
spec:
  crds:
    shop:
      apiTypes: {group: shop.example.dev, version: v1, kind: Shop, plural: shops}
      admission:
        conversion:
          storageVersion: v1
          include: ./paths.yaml
          paths:
            - from: v1
              to: v1alpha1
              spec:
                size: "{{ .spec.size }}"
`;

  it('admission.conversion is the entry’s conversion, its include inlined before its own paths', () => {
    const loaded = ok(load(text, dir));
    const conversion = loaded.katalog.spec.crds['shop']?.conversion;
    expect(conversion?.storageVersion).toBe('v1');
    expect(conversion?.paths.map((p) => `${p.from}→${p.to}`)).toEqual(['v1alpha1→v1', 'v1→v1alpha1']);
    const migrated = migrateKatalog(text, { baseDir: dir });
    expect(migrated.changes).toContainEqual(
      expect.objectContaining({
        path: 'spec.crds.shop.admission.conversion',
        message: 'moved to conversion',
      }),
    );
  });
});

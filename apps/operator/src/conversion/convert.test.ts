import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createConverter, STASH_PREFIX } from './convert.js';
import {
  RULE_WORDS,
  SPEC_FIELDS,
  SPEC_LISTS,
  VERSIONED_KATALOG,
  versionedEntry,
} from './fixture.test-support.js';

const converter = createConverter('database', versionedEntry());
const G = 'demo.example.io';
const VERSIONS = ['v1alpha1', 'v1', 'v2'] as const;

/** RUNS is the number of generated objects per ordered version pair (ORK_CONVERSION_RUNS overrides). */
const RUNS = Number(process.env['ORK_CONVERSION_RUNS'] ?? 10_000);
/** SEED fixes the generated objects (ORK_CONVERSION_SEED overrides, to try others). */
const SEED = Number(process.env['ORK_CONVERSION_SEED'] ?? 42);

function setPath(root: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let node = root;
  for (const key of keys.slice(0, -1)) node = (node[key] ??= {}) as Record<string, unknown>;
  node[keys[keys.length - 1] as string] = value;
}

/** anyValue is any JSON value, often one a rule acts on (an enum word, a wrapped object). */
const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: fc.jsonValue({ maxDepth: 2 }), weight: 2 },
  { arbitrary: fc.constantFrom(...RULE_WORDS), weight: 3 },
);

/** fieldsOf sets any subset of `fields` (dot paths) to any values. */
function fieldsOf(fields: readonly string[]): fc.Arbitrary<Record<string, unknown>> {
  return fc.tuple(...fields.map(() => fc.option(anyValue, { nil: undefined }))).map((values) => {
    const out: Record<string, unknown> = {};
    fields.forEach((field, i) => {
      if (values[i] !== undefined) setPath(out, field, values[i]);
    });
    return out;
  });
}

/** nativeObject is an object written at `version`: any subset of its spec fields and list items, any JSON values. */
function nativeObject(version: string): fc.Arbitrary<Record<string, unknown>> {
  const fields = SPEC_FIELDS[version] ?? [];
  const list = SPEC_LISTS[version];
  return fc
    .record({
      values: fieldsOf(fields),
      items: fc.option(
        fc.array(fc.oneof({ arbitrary: fieldsOf(list?.fields ?? []), weight: 4 }, anyValue), {
          maxLength: 3,
        }),
        { nil: undefined },
      ),
      annotations: fc.option(fc.dictionary(fc.constantFrom('team', 'owner', 'note'), fc.string()), {
        nil: undefined,
      }),
      status: fc.option(
        fc.dictionary(fc.string({ minLength: 1, maxLength: 5 }), fc.jsonValue({ maxDepth: 1 })),
        {
          nil: undefined,
        },
      ),
    })
    .map(({ values, items, annotations, status }) => {
      const spec: Record<string, unknown> = values;
      if (items != null && list != null) spec[list.list] = items;
      const metadata: Record<string, unknown> = { name: 'db', namespace: 'default' };
      if (annotations != null && Object.keys(annotations).length > 0) metadata['annotations'] = annotations;
      // Objects reach the webhook as JSON (no -0, no undefined).
      return JSON.parse(
        JSON.stringify({
          apiVersion: `${G}/${version}`,
          kind: 'Database',
          metadata,
          spec,
          ...(status == null ? {} : { status }),
        }),
      ) as Record<string, unknown>;
    });
}

/** objectAt is an object at `version` as the API server holds it: written there, or written at another version and converted. */
function objectAt(version: string): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .tuple(fc.constantFrom(...VERSIONS), fc.constantFrom(...VERSIONS))
    .chain(([written]) => nativeObject(written))
    .map((object) => converter.convert(object, `${G}/${version}`));
}

describe('declarative conversion rules (docs/reference/katalog.md §3.4)', () => {
  it('converts v1alpha1 to v1 as the rules say: rename, move, default, constant, drop kept aside', () => {
    const out = converter.convert(
      {
        apiVersion: `${G}/v1alpha1`,
        kind: 'Database',
        metadata: { name: 'db' },
        spec: {
          size: 3,
          databaseEngine: 'postgres',
          legacyFlag: true,
          image: 'pg:16',
          nested: { port: 5432 },
        },
      },
      `${G}/v1`,
    );
    expect(out).toEqual({
      apiVersion: `${G}/v1`,
      kind: 'Database',
      metadata: {
        name: 'db',
        annotations: { [`${STASH_PREFIX}v1alpha1`]: '{"set":{"spec.legacyFlag":true}}' },
      },
      spec: {
        replicas: 3,
        engine: 'pg',
        image: 'pg:16',
        network: { port: 5432 },
        tier: 'standard',
        apiLevel: 1,
      },
    });
  });

  it('converts v1alpha1 to v2 through the storage version v1', () => {
    const out = converter.convert(
      {
        apiVersion: `${G}/v1alpha1`,
        kind: 'Database',
        metadata: { name: 'db' },
        spec: { size: 2, image: 'x' },
      },
      `${G}/v2`,
    );
    expect(out['spec']).toEqual({ count: 2, container: { image: 'x' }, tier: 'standard', paused: false });
  });

  it('converts by scalar↔object, enum and forEach rules, keeping what the way back cannot rebuild', () => {
    const v1 = converter.convert(
      {
        apiVersion: `${G}/v1alpha1`,
        kind: 'Database',
        metadata: { name: 'db' },
        spec: {
          databaseEngine: 'postgresql',
          backup: 'daily',
          ports: [{ name: 'web', port: 80, legacy: true, scheme: 'https', tls: { cert: 'c' } }, 'odd'],
        },
      },
      `${G}/v1`,
    );
    expect(v1['spec']).toEqual({
      engine: 'pg',
      backup: { schedule: 'daily' },
      ports: [{ name: 'web', containerPort: 80, protocol: 'TCP', scheme: 'HTTPS', cert: 'c' }, 'odd'],
      tier: 'standard',
      apiLevel: 1,
    });
    expect(v1['metadata']).toEqual({
      name: 'db',
      annotations: {
        [`${STASH_PREFIX}v1alpha1`]:
          '{"items":[{"key":{"name":"web"},"list":"spec.ports","set":{"legacy":true}}],"set":{"spec.databaseEngine":"postgresql"}}',
      },
    });
    const v2 = converter.convert(v1, `${G}/v2`);
    expect(v2['spec']).toMatchObject({
      backup: 'daily',
      endpoints: [
        { name: 'web', containerPort: { number: 80 }, protocol: 'TCP', scheme: 'HTTPS', cert: 'c' },
        'odd',
      ],
    });
    // A v2 object whose backup is no scalar: v1 has no home for it, so it is kept and restored.
    const native = {
      apiVersion: `${G}/v2`,
      kind: 'Database',
      metadata: { name: 'db' },
      spec: { backup: { schedule: 'daily' }, endpoints: [{ containerPort: { number: 1, extra: true } }] },
    };
    const down = converter.convert(native, `${G}/v1`);
    expect(down['spec']).toEqual({
      backup: { schedule: { schedule: 'daily' } },
      ports: [{ containerPort: 1 }],
    });
    expect(converter.convert(down, `${G}/v2`)).toEqual(native);
  });

  it('uses every rule kind in the fixture (so the round trips below cover each)', () => {
    for (const kind of ['rename', 'move', 'default', 'constant', 'drop', 'wrap', 'unwrap', 'enum', 'forEach'])
      expect(VERSIONED_KATALOG).toMatch(new RegExp(`- ${kind}:`));
  });

  for (const from of VERSIONS)
    for (const to of VERSIONS) {
      if (from === to) continue;
      it(
        `round-trips ${from} → ${to} → ${from} with no difference (${RUNS} generated objects)`,
        () => {
          fc.assert(
            fc.property(objectAt(from), (object) => {
              const there = converter.convert(object, `${G}/${to}`);
              expect(there['apiVersion']).toBe(`${G}/${to}`);
              expect(converter.convert(there, `${G}/${from}`)).toEqual(object);
            }),
            { numRuns: RUNS, seed: SEED },
          );
        },
        Math.max(30_000, RUNS * 25),
      );
    }
});

/** Item names: the written items take some of ORIGINAL, items added at the other version some of ADDED. */
const ORIGINAL = ['a', 'b', 'c', 'd'] as const;
const ADDED = ['x', 'y'] as const;

/** itemsAt is a list of items written at `version`, named by distinct names, or no map at all. */
function itemsAt(version: string, names: readonly string[]): fc.Arbitrary<unknown[]> {
  const fields = (SPEC_LISTS[version]?.fields ?? []).filter((f) => f !== 'name');
  const named = fc
    .uniqueArray(fc.constantFrom(...names), { maxLength: names.length })
    .chain((picked) =>
      fc
        .tuple(...picked.map(() => fieldsOf(fields)))
        .map((items) => items.map((item, i) => ({ ...item, name: picked[i] }))),
    );
  return fc
    .tuple(named, fc.array(fc.constantFrom('odd', 7, null), { maxLength: 1 }))
    .map(([items, others]) => JSON.parse(JSON.stringify([...items, ...others])) as unknown[]);
}

/** An edit of a list at the other version: items kept by their index before the edit, or added. */
type Edit = { kept: number } | { added: unknown };

/** editOf keeps some items in any order and adds some new ones anywhere (a reorder, a removal, an insert). */
function editOf(length: number, version: string): fc.Arbitrary<Edit[]> {
  return itemsAt(version, ADDED).chain((added) =>
    fc.shuffledSubarray<Edit>(
      [...Array.from({ length }, (_, kept) => ({ kept })), ...added.map((item) => ({ added: item }))],
      { minLength: 0 },
    ),
  );
}

const listOf = (object: Record<string, unknown>, version: string): unknown =>
  (object['spec'] as Record<string, unknown> | undefined)?.[SPEC_LISTS[version]?.list ?? ''];

describe('list items found by their key (docs/reference/katalog.md §3.4)', () => {
  const REORDER_RUNS = Math.max(200, Math.ceil(RUNS / 10));

  for (const from of VERSIONS)
    for (const to of VERSIONS) {
      if (from === to) continue;
      it(
        `items reordered, removed or added at ${to} come back to ${from} with their own kept fields (${REORDER_RUNS} generated objects)`,
        () => {
          const written = fc.constantFrom(...VERSIONS).chain((version) =>
            fc.tuple(nativeObject(version), itemsAt(version, ORIGINAL)).map(([object, items]) => {
              const spec = (object['spec'] ??= {}) as Record<string, unknown>;
              spec[SPEC_LISTS[version]?.list ?? ''] = items;
              return converter.convert(object, `${G}/${from}`);
            }),
          );
          fc.assert(
            fc.property(
              written.chain((object) =>
                fc.tuple(fc.constant(object), editOf((listOf(object, from) as unknown[]).length, to)),
              ),
              ([object, edit]) => {
                const there = converter.convert(object, `${G}/${to}`);
                const before = listOf(there, to) as unknown[];
                const edited = structuredClone(there);
                (edited['spec'] as Record<string, unknown>)[SPEC_LISTS[to]?.list ?? ''] = edit.map((e) =>
                  'kept' in e ? before[e.kept] : e.added,
                );
                const back = converter.convert(edited, `${G}/${from}`);
                const original = listOf(object, from) as unknown[];
                // A kept item is the item it was; an added one is converted with nothing restored.
                const expected = edit.map((e) =>
                  'kept' in e
                    ? original[e.kept]
                    : (
                        listOf(
                          converter.convert(
                            {
                              apiVersion: `${G}/${to}`,
                              kind: 'Database',
                              spec: { [SPEC_LISTS[to]?.list ?? '']: [e.added] },
                            },
                            `${G}/${from}`,
                          ),
                          from,
                        ) as unknown[]
                      )[0],
                );
                expect(listOf(back, from)).toEqual(expected);
                // The rest is the object, but for what the steps keep of the edited list (the stashes).
                const rest = (o: Record<string, unknown>): unknown => {
                  const copy = structuredClone(o);
                  delete (copy['spec'] as Record<string, unknown> | undefined)?.[
                    SPEC_LISTS[from]?.list ?? ''
                  ];
                  const annotations = (copy['metadata'] as Record<string, unknown>)['annotations'] as
                    Record<string, unknown> | undefined;
                  for (const key of Object.keys(annotations ?? {}))
                    if (key.startsWith(STASH_PREFIX)) delete annotations?.[key];
                  if (annotations != null && Object.keys(annotations).length === 0)
                    delete (copy['metadata'] as Record<string, unknown>)['annotations'];
                  return copy;
                };
                expect(rest(back)).toEqual(rest(object));
              },
            ),
            { numRuns: REORDER_RUNS, seed: SEED },
          );
        },
        Math.max(30_000, REORDER_RUNS * 50),
      );
    }

  it('restores by index when the list gives no key, so a reorder at the other version swaps what was kept', async () => {
    const { loadKatalogOrThrow } = await import('@orkestra/types');
    const katalog = loadKatalogOrThrow({
      file: 'k.yaml',
      text: `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: { name: t }
spec:
  crds:
    db:
      apiTypes: { group: ${G}, version: v2, kind: Database, plural: databases }
      versions: [{ name: v1 }, { name: v2, storage: true }]
      conversion:
        paths:
          - from: v1
            to: v2
            rules:
              - forEach: { field: spec.ports, rules: [{ drop: { field: legacy } }] }
`,
    });
    const c = createConverter('db', katalog.spec.crds['db']!);
    const v2 = c.convert(
      {
        apiVersion: `${G}/v1`,
        kind: 'Database',
        spec: { ports: [{ name: 'a', legacy: 1 }, { name: 'b' }] },
      },
      `${G}/v2`,
    );
    const ports = (v2['spec'] as { ports: unknown[] }).ports;
    (v2['spec'] as { ports: unknown[] }).ports = [ports[1], ports[0]];
    expect(c.convert(v2, `${G}/v1`)['spec']).toEqual({ ports: [{ name: 'b', legacy: 1 }, { name: 'a' }] });
  });
});

describe('template paths (upstream’s form)', () => {
  it('renders the target spec over the source object, keeping metadata and status', async () => {
    const { loadKatalogOrThrow } = await import('@orkestra/types');
    const katalog = loadKatalogOrThrow({
      file: 'k.yaml',
      text: `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: { name: t }
spec:
  crds:
    db:
      apiTypes: { group: ${G}, version: v1, kind: Database, plural: databases }
      conversion:
        storageVersion: v1
        paths:
          - { from: v1alpha1, to: v1, spec: { engine: "{{ .spec.databaseEngine }}", replicas: "{{ .spec.size }}" } }
          - { from: v1, to: v1alpha1, spec: { databaseEngine: "{{ .spec.engine }}", size: "{{ .spec.replicas }}" } }
`,
    });
    const c = createConverter('db', katalog.spec.crds['db']!);
    const out = c.convert(
      {
        apiVersion: `${G}/v1alpha1`,
        kind: 'Database',
        metadata: { name: 'a' },
        spec: { databaseEngine: 'pg', size: 3 },
        status: { x: 1 },
      },
      `${G}/v1`,
    );
    expect(out).toMatchObject({
      apiVersion: `${G}/v1`,
      metadata: { name: 'a' },
      spec: { engine: 'pg', replicas: 3 },
      status: { x: 1 },
    });
  });

  /** UPSTREAM_PATHS is upstream's conversion page's form (Go-struct paths), with a field of each version the other lacks. */
  const upstreamPaths = async () => {
    const { loadKatalogOrThrow } = await import('@orkestra/types');
    const katalog = loadKatalogOrThrow({
      file: 'k.yaml',
      text: `apiVersion: orkestra.orkspace.io/v1
kind: Katalog
metadata: { name: t }
spec:
  crds:
    db:
      apiTypes: { group: ${G}, version: v1, kind: Database, plural: databases }
      versions:
        - name: v1alpha1
          schema:
            openAPIV3Schema:
              type: object
              properties:
                spec:
                  type: object
                  properties:
                    databaseEngine: { type: string }
                    size: { type: integer }
                    tlsCert: { type: string }
                    theme: { type: string }
        - name: v1
          schema:
            openAPIV3Schema:
              type: object
              properties:
                spec:
                  type: object
                  properties:
                    engine: { type: string }
                    replicas: { type: integer }
                    cert: { type: string }
                    owner: { type: string }
                    seo: { type: object, properties: { enabled: { type: boolean } } }
      conversion:
        storageVersion: v1
        paths:
          - from: v1alpha1
            to: v1
            spec:
              engine: "{{ .Spec.DatabaseEngine }}"
              replicas: "{{ .Spec.Size }}"
              cert: "{{ .Spec.TLSCert }}"
              owner: "{{ .Name }}.{{ .ObjectMeta.Namespace }}"
              seo: { enabled: false }
          - from: v1
            to: v1alpha1
            spec:
              databaseEngine: "{{ .Spec.Engine }}"
              size: "{{ .Spec.Replicas }}"
              tlsCert: "{{ .Spec.Cert }}"
              theme: default
`,
    });
    return createConverter('db', katalog.spec.crds['db']!);
  };

  it('reads upstream’s Go-struct paths as the JSON fields they name (.Spec.DatabaseEngine is spec.databaseEngine)', async () => {
    const c = await upstreamPaths();
    const out = c.convert(
      {
        apiVersion: `${G}/v1alpha1`,
        kind: 'Database',
        metadata: { name: 'a', namespace: 'ns' },
        spec: { databaseEngine: 'mysql', size: 2, tlsCert: 'pem' },
      },
      `${G}/v1`,
    );
    expect(out['spec']).toEqual({
      engine: 'mysql',
      replicas: 2,
      cert: 'pem',
      owner: 'a.ns',
      seo: { enabled: false },
    });
  });

  it('follows Go-struct paths into range scopes, status, TypeMeta and acronyms', async () => {
    const { loadKatalogOrThrow } = await import('@orkestra/types');
    const katalog = loadKatalogOrThrow({
      file: 'k.yaml',
      text: `apiVersion: orkestra.orkspace.io/v1
kind: Katalog
metadata: { name: t }
spec:
  crds:
    db:
      apiTypes: { group: ${G}, version: v1, kind: Database, plural: databases }
      conversion:
        storageVersion: v1
        paths:
          - from: v1alpha1
            to: v1
            spec:
              names: "{{ range .Spec.Ports }}{{ .PortName }}/{{ .TLSMode }},{{ end }}"
              phase: "{{ .Status.Phase }}"
              kind: "{{ .TypeMeta.Kind }}"
              uid: "{{ .UID }}"
          - { from: v1, to: v1alpha1, spec: { ports: "{{ .spec.names }}" } }
`,
    });
    const c = createConverter('db', katalog.spec.crds['db']!);
    const out = c.convert(
      {
        apiVersion: `${G}/v1alpha1`,
        kind: 'Database',
        metadata: { name: 'a', uid: 'u-1' },
        spec: {
          ports: [
            { portName: 'web', tlsMode: 'on' },
            { portName: 'db', tlsMode: 'off' },
          ],
        },
        status: { phase: 'Ready' },
      },
      `${G}/v1`,
    );
    expect(out['spec']).toEqual({ names: 'web/on,db/off,', phase: 'Ready', kind: 'Database', uid: 'u-1' });
  });

  it('keeps what the way back would not rebuild, so a round trip through templates is the identity', async () => {
    const c = await upstreamPaths();
    const a = {
      apiVersion: `${G}/v1alpha1`,
      kind: 'Database',
      metadata: { name: 'a', namespace: 'ns' },
      spec: { databaseEngine: '', size: 2, theme: 'dark' },
    };
    const v1 = c.convert(a, `${G}/v1`);
    expect(v1['spec']).toEqual({ replicas: 2, owner: 'a.ns', seo: { enabled: false } });
    expect(c.convert(v1, `${G}/v1alpha1`)).toEqual(a);
    // A change made at the other version wins over what was kept for the field it writes.
    (v1['spec'] as Record<string, unknown>)['engine'] = 'postgres';
    (v1['spec'] as Record<string, unknown>)['replicas'] = 4;
    expect(c.convert(v1, `${G}/v1alpha1`)['spec']).toEqual({
      databaseEngine: 'postgres',
      size: 4,
      theme: 'dark',
    });
    // And from the storage version: v1's owner and seo have no home at v1alpha1, and come back.
    const b = {
      apiVersion: `${G}/v1`,
      kind: 'Database',
      metadata: { name: 'b', namespace: 'ns' },
      spec: { engine: 'pg', replicas: 3, owner: 'someone', seo: { enabled: true } },
    };
    const old = c.convert(b, `${G}/v1alpha1`);
    expect(old['spec']).toEqual({ databaseEngine: 'pg', size: 3, theme: 'default' });
    expect(c.convert(old, `${G}/v1`)).toEqual(b);
  });

  it(`round-trips ${RUNS} generated objects per direction through upstream’s template paths with 0 differences`, async () => {
    const c = await upstreamPaths();
    const objectAt = (version: string, fields: readonly string[]) =>
      fc.record({ name: fc.constantFrom('a', 'b-1'), values: fieldsOf(fields) }).map(({ name, values }) => ({
        apiVersion: `${G}/${version}`,
        kind: 'Database',
        metadata: { name, namespace: 'default' },
        // Objects reach the webhook as JSON (no -0, no undefined).
        spec: JSON.parse(JSON.stringify(values['spec'] ?? {})) as unknown,
      }));
    for (const [from, to, fields] of [
      ['v1alpha1', 'v1', ['spec.databaseEngine', 'spec.size', 'spec.tlsCert', 'spec.theme']],
      ['v1', 'v1alpha1', ['spec.engine', 'spec.replicas', 'spec.cert', 'spec.owner', 'spec.seo.enabled']],
    ] as const) {
      fc.assert(
        fc.property(objectAt(from, fields), (object) => {
          const there = c.convert(structuredClone(object), `${G}/${to}`);
          expect(c.convert(there, `${G}/${from}`)).toEqual(object);
        }),
        { numRuns: RUNS, seed: SEED },
      );
    }
  }, 300_000);
});

describe('a direction declared refuse: true', () => {
  it('fails the request to convert that way, directly and through the storage version', async () => {
    const { loadKatalogOrThrow } = await import('@orkestra/types');
    const katalog = loadKatalogOrThrow({
      file: 'k.yaml',
      text: `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: { name: t }
spec:
  crds:
    db:
      apiTypes: { group: ${G}, version: v1, kind: Database, plural: databases }
      conversion:
        storageVersion: v1
        paths:
          - { from: v1alpha1, to: v1, rules: [] }
          - { from: v1beta1, to: v1, rules: [] }
          - { from: v1, to: v1beta1, refuse: true }
`,
    });
    const c = createConverter('db', katalog.spec.crds['db']!);
    const stored = { apiVersion: `${G}/v1`, kind: 'Database', spec: { a: 1 } };
    expect(() => c.convert(stored, `${G}/v1beta1`)).toThrow(
      'no conversion path v1 → v1beta1: db.conversion.paths[2] declares it refused',
    );
    const alpha = { apiVersion: `${G}/v1alpha1`, kind: 'Database', spec: { a: 1 } };
    expect(() => c.convert(alpha, `${G}/v1beta1`)).toThrow(/v1 → v1beta1/);
    // The other directions convert; the refused one does not take the rules path's opposite.
    expect(c.convert({ ...stored, apiVersion: `${G}/v1beta1` }, `${G}/v1`)['spec']).toEqual({ a: 1 });
    expect(c.convert(stored, `${G}/v1alpha1`)['apiVersion']).toBe(`${G}/v1alpha1`);
  });
});

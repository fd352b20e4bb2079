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
          '{"set":{"spec.databaseEngine":"postgresql","spec.ports.0.legacy":true}}',
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
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createConverter, STASH_PREFIX } from './convert.js';
import { SPEC_FIELDS, versionedEntry } from './fixture.test-support.js';

const converter = createConverter('database', versionedEntry());
const G = 'demo.example.io';
const VERSIONS = ['v1alpha1', 'v1', 'v2'] as const;

/** RUNS is the number of generated objects per ordered version pair (ORK_CONVERSION_RUNS overrides). */
const RUNS = Number(process.env['ORK_CONVERSION_RUNS'] ?? 1000);

function setPath(root: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let node = root;
  for (const key of keys.slice(0, -1)) node = (node[key] ??= {}) as Record<string, unknown>;
  node[keys[keys.length - 1] as string] = value;
}

/** nativeObject is an object written at `version`: any subset of its spec fields, any JSON values. */
function nativeObject(version: string): fc.Arbitrary<Record<string, unknown>> {
  const fields = SPEC_FIELDS[version] ?? [];
  return fc
    .record({
      values: fc.tuple(...fields.map(() => fc.option(fc.jsonValue({ maxDepth: 2 }), { nil: undefined }))),
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
    .map(({ values, annotations, status }) => {
      const spec: Record<string, unknown> = {};
      fields.forEach((field, i) => {
        if (values[i] !== undefined) setPath(spec, field, values[i]);
      });
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
        spec: { size: 3, databaseEngine: 'pg', legacyFlag: true, image: 'pg:16', nested: { port: 5432 } },
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
            { numRuns: RUNS, seed: 42 },
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

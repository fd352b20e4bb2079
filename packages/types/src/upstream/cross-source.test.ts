import { describe, expect, it } from 'vitest';
import { loadKatalog } from '../load-katalog.js';
import { migrateKatalog } from './migrate.js';
import { ok } from './dialect-fixtures.test-support.js';

/**
 * Upstream's `cross[].source` (ADR 0043), one test per form. Fixtures written here from upstream's
 * documentation (concepts/oncop, reference/schema/02-katalog/29-cross) and its CrossSource type,
 * not copied from upstream files.
 */

const katalog = (cross: string): string => `apiVersion: orkestra.orkspace.io/v1
kind: Katalog
metadata:
  name: reader
spec:
  crds:
    reader:
      apiTypes: { group: demo.example.io, version: v1, kind: Reader, plural: readers }
      operatorBox:
        cross:
${cross}`;

const reads = (cross: string) =>
  ok(loadKatalog({ text: katalog(cross), file: 'katalog.yaml' })).katalog.spec.crds['reader']?.operatorBox
    .cross ?? [];

const errors = (cross: string): string[] => {
  const result = loadKatalog({ text: katalog(cross), file: 'katalog.yaml' });
  return result.ok ? [] : result.errors.map((e) => `${e.line}:${e.column} ${e.path}: ${e.message}`);
};

describe('upstream cross[].source', () => {
  it('maps host + protocol cr onto endpoint + protocol, with the selector', () => {
    const [read] = reads(`          - crd: loader
            selector: { name: "{{ .metadata.name }}-loader", namespace: loader-system }
            source: { host: "http://loader-runtime.loader-system:8080", protocol: cr, cacheFor: 10s }
            as: loader
`);
    expect(read).toMatchObject({
      crd: 'loader',
      as: 'loader',
      endpoint: 'http://loader-runtime.loader-system:8080',
      protocol: 'cr',
      cacheFor: '10s',
      timeout: '5s',
      selector: { name: '{{ .metadata.name }}-loader', namespace: 'loader-system' },
    });
  });

  it.each(['health', 'metrics', 'info', 'events'] as const)('maps protocol %s', (protocol) => {
    const selector = protocol === 'events' ? '            selector: { name: web }\n' : '';
    const [read] = reads(`          - crd: loader
${selector}            source: { host: "http://loader:8080", protocol: ${protocol} }
            as: loaderState
`);
    expect(read).toMatchObject({ endpoint: 'http://loader:8080', protocol, cacheFor: '30s' });
  });

  it('reads the older spelling `type` as protocol', () => {
    const [read] = reads(`          - crd: loader
            source:
              host: "http://loader:8080"
              type: health
              cacheFor: 5s
            as: loaderHealth
`);
    expect(read).toMatchObject({ protocol: 'health', cacheFor: '5s' });
  });

  it('gives a host without protocol upstream’s default, info (/katalog/<crd>)', () => {
    const [read] = reads(`          - crd: loader
            source: { host: "http://loader:8080" }
`);
    expect(read).toMatchObject({ protocol: 'info', as: 'loader' });
  });

  it('maps a whole-URL endpoint onto url, ignoring host and protocol as upstream does', () => {
    const [read] = reads(`          - crd: payments
            source:
              endpoint: "http://metrics.example.io/katalog/payments/cr/{{ .metadata.namespace }}/{{ .metadata.name }}"
              host: "http://ignored:8080"
              cacheFor: 20s
            as: payments
`);
    expect(read).toMatchObject({
      url: 'http://metrics.example.io/katalog/payments/cr/{{ .metadata.namespace }}/{{ .metadata.name }}',
      cacheFor: '20s',
    });
    expect(read?.endpoint).toBeUndefined();
    expect(read?.protocol).toBeUndefined();
  });

  it('moves source.namespace onto the selector', () => {
    const [read] = reads(`          - crd: loader
            selector: { name: one }
            source: { host: "http://loader:8080", protocol: cr, namespace: loader-system }
`);
    expect(read?.selector).toEqual({ name: 'one', namespace: 'loader-system' });
  });

  it('maps auth.token $VAR, the older source.token, and auth.secretRef', () => {
    const [a, b, c] = reads(`          - crd: loader
            source: { host: "http://loader:8080", protocol: health, auth: { token: $LOADER_TOKEN } }
            as: a
          - crd: loader
            source: { host: "http://loader:8080", protocol: health, token: "\${LOADER_TOKEN}" }
            as: b
          - crd: loader
            source:
              host: "http://loader:8080"
              protocol: health
              auth: { secretRef: { name: loader-cross, namespace: loader-system, key: token } }
            as: c
`);
    expect(a?.auth).toEqual({ env: '$LOADER_TOKEN' });
    expect(b?.auth).toEqual({ env: '${LOADER_TOKEN}' });
    expect(c?.auth).toEqual({
      secretRef: { name: 'loader-cross', namespace: 'loader-system', key: 'token' },
    });
  });

  it('refuses a literal token at its position', () => {
    const cross = `          - crd: loader
            source: { host: "http://loader:8080", protocol: health, auth: { token: s3cr3t } }
`;
    const found = errors(cross);
    expect(found).toHaveLength(1);
    const line =
      katalog(cross)
        .split('\n')
        .findIndex((l) => l.includes('s3cr3t')) + 1;
    expect(found[0]).toMatch(
      new RegExp(`^${line}:\\d+ .*cross\\[0\\]\\.source\\.auth\\.token: a literal token`),
    );
    expect(found[0]).not.toContain('s3cr3t:');
  });

  it('refuses a protocol upstream does not have, and a source with neither host nor endpoint', () => {
    expect(
      errors(`          - crd: loader
            source: { host: "http://loader:8080", protocol: grpc }
`)[0],
    ).toMatch(/source\.protocol: upstream protocol `grpc` is not one of/);
    expect(
      errors(`          - crd: loader
            source: { cacheFor: 5s }
`)[0],
    ).toMatch(/source: upstream `source` needs `host`/);
  });

  it('needs selector.name for protocol cr, but not for health', () => {
    expect(
      errors(`          - crd: loader
            source: { host: "http://loader:8080", protocol: cr }
`)[0],
    ).toMatch(/selector: a selector needs exactly one of `name` and `matchLabels`/);
  });

  it('ork migrate writes the canonical form', () => {
    const migrated = migrateKatalog(
      katalog(`          - crd: loader
            selector: { name: one }
            source: { host: "http://loader:8080", type: cr, cacheFor: 10s }
`),
    );
    expect(migrated.problems).toEqual([]);
    expect(migrated.text).toContain('endpoint: "http://loader:8080"');
    expect(migrated.text).toContain('protocol: cr');
    expect(migrated.text).not.toContain('source:');
  });
});

describe('upstream cross[].strategy', () => {
  const withTarget = (read: string): string => `apiVersion: orkestra.orkspace.io/v1
kind: Katalog
metadata:
  name: reader
spec:
  crds:
    database:
      apiTypes: { group: demo.example.io, version: v1, kind: Database, plural: databases }
    reader:
      apiTypes: { group: demo.example.io, version: v1, kind: Reader, plural: readers }
      operatorBox:
        cross:
${read}`;
  const load = (read: string) => loadKatalog({ text: withTarget(read), file: 'katalog.yaml' });

  it('loads `all` (every match, a list) and `first` as written, and leaves it absent by default', () => {
    const result = ok(
      load(`          - crd: database
            selector: { matchLabels: { tenant: "{{ .spec.tenant }}" } }
            strategy: all
            as: databases
          - crd: database
            selector: { matchLabels: { tenant: "{{ .spec.tenant }}" } }
            strategy: first
            as: oldest
          - crd: database
            selector: { name: main }
            as: main
`),
    );
    const cross = result.katalog.spec.crds['reader']?.operatorBox.cross ?? [];
    expect(cross.map((c) => [c.as, c.strategy])).toEqual([
      ['databases', 'all'],
      ['oldest', 'first'],
      ['main', undefined],
    ]);
  });

  it('loads `all` with a name from a peer (one CR, as a list; ADR 0108), as upstream accepts it', () => {
    const [read] =
      ok(
        load(`          - crd: loader
            selector: { name: one }
            strategy: all
            source: { host: "http://loader:8080", protocol: cr }
`),
      ).katalog.spec.crds['reader']?.operatorBox.cross ?? [];
    expect(read).toMatchObject({
      endpoint: 'http://loader:8080',
      protocol: 'cr',
      strategy: 'all',
      selector: { name: 'one' },
    });
  });

  it('refuses `all` at the key on a read that answers one object, and a strategy upstream does not have', () => {
    const overHttp = load(`          - crd: loader
            selector: { name: one }
            strategy: all
            source: { host: "http://loader:8080", protocol: events }
`);
    expect(overHttp.ok).toBe(false);
    const [first] = overHttp.ok ? [] : overHttp.errors;
    expect(first).toMatchObject({
      line: 15,
      column: 23,
      path: 'spec.crds.reader.operatorBox.cross[0].strategy',
    });
    expect(first?.message).toMatch(
      /`strategy: all` lists the matching CRs .* over HTTP .*; `protocol: events` answers one object/,
    );
    const unknown = load(`          - crd: database
            selector: { name: one }
            strategy: some
`);
    expect(unknown.ok ? [] : unknown.errors.map((e) => e.path)).toEqual([
      'spec.crds.reader.operatorBox.cross[0].strategy',
    ]);
  });
});

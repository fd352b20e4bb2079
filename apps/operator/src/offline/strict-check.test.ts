import { loadKatalog } from '@orkestra/types';
import { describe, expect, it } from 'vitest';
import { strictCheck } from './strict-check.js';

/** The order strict validation knows external calls in (docs/reference/katalog.md §12, §15.1, §17.2). */
const text = (rule: string, firstCall: string, boxCall: string) => `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: quota}
spec:
  crds:
    quota:
      apiTypes: {group: demo.example.com, version: v1, kind: Quota, plural: quotas}
      validation:
        external:
          - {name: first, url: "${firstCall}"}
          - {name: second, url: "http://q/{{ external.first.json.id }}"}
        rules:
          - {field: "${rule}", equals: "true", message: over quota}
      operatorBox:
        external:
          - {name: later, url: "${boxCall}"}
`;

function messages(katalogText: string): string[] {
  const loaded = loadKatalog({ text: katalogText, file: 'k.yaml' });
  if (!loaded.ok) throw new Error(loaded.errors.map((e) => e.message).join('\n'));
  return strictCheck('k.yaml', katalogText, loaded.katalog).errors.map((e) => `${e.path}: ${e.message}`);
}

describe('strict check: validation.external', () => {
  it('lets the rules read every validation call, and a later operatorBox call read them too', () => {
    expect(
      messages(
        text('{{ external.second.json.allowed }}', 'http://q', 'http://q/{{ external.second.status }}'),
      ),
    ).toEqual([]);
  });

  it('names a validation call that reads a call made after it', () => {
    const found = messages(
      text('{{ external.first.ok }}', 'http://q/{{ external.later.status }}', 'http://q'),
    );
    expect(found).toEqual([
      expect.stringMatching(/validation\.external\[0\]\.url: .*external call `later` runs after this one/),
    ]);
    const rule = messages(text('{{ external.later.ok }}', 'http://q', 'http://q'));
    expect(rule).toEqual([
      expect.stringMatching(/validation\.rules\[0\]\.field: .*external call `later` runs after this one/),
    ]);
  });
});

describe('strict check: module hooks', () => {
  it('accepts hooks.<name>.<any field> of a declared hook and names an unknown one', () => {
    const katalog = `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: hooks}
spec:
  crds:
    site:
      apiTypes: {group: demo.example.com, version: v1, kind: Site, plural: sites}
      operatorBox:
        hooks:
          - {module: "@acme/dns-hooks", function: ensureDns}
        status:
          fields:
            - {path: a, value: "{{ hooks.ensureDns.record }}"}
            - {path: b, value: "{{ hooks.ensureDnz.record }}"}
`;
    expect(messages(katalog)).toEqual([
      expect.stringMatching(
        /fields\[1\]\.value: .*no module hook is named `ensureDnz`; did you mean `ensureDns`\?/,
      ),
    ]);
  });
});

/** A Katalog with one call of each kind the protocol checks look at, and `value` as a status field. */
const protocols = (value: string): string => `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: protocols}
spec:
  crds:
    queue:
      apiTypes: {group: demo.example.com, version: v1, kind: Queue, plural: queues}
      operatorBox:
        external:
          - {name: depth, protocol: prometheus, url: "http://prom:9090", query: "sum(up)"}
          - {name: jobs, protocol: postgres, url: "postgres://reader@db:5432/jobs", query: "SELECT 1 AS n"}
          - {name: cache, protocol: redis, url: "redis://cache:6379", query: "GET k"}
          - {name: lagging, protocol: kafka, url: "kafka://k:9092", query: "workers/events"}
        status:
          fields:
            - {path: a, value: '${value}'}
`;

/** errorsAt is each strict error as `line:col: path: message`. */
function errorsAt(katalogText: string): string[] {
  const loaded = loadKatalog({ text: katalogText, file: 'k.yaml' });
  if (!loaded.ok) throw new Error(loaded.errors.map((e) => e.message).join('\n'));
  return strictCheck('k.yaml', katalogText, loaded.katalog).errors.map(
    (e) => `${e.line}:${e.column}: ${e.path}: ${e.message}`,
  );
}

describe('strict check: protocol results and helpers (docs/reference/katalog.md §15.1.1)', () => {
  it('accepts the result paths each protocol declares and its helpers with good arguments', () => {
    for (const value of [
      '{{ external.jobs.rows.0.n }}',
      '{{ (index .external.jobs.rows 0).n }}',
      '{{ external.jobs.raw.n }}{{ external.jobs.result }}',
      '{{ external.depth.raw.data.result }}{{ external.depth.status }}',
      '{{ external.cache.result }}{{ external.cache.raw.value }}',
      '{{ external.lagging.lag }}/{{ external.lagging.partitions }}{{ external.lagging.raw.lag }}',
      '{{ promValue external.depth }}',
      '{{ promAboveThreshold .external.depth 100 }}{{ promBelowThreshold external.depth "0.5" }}',
      '{{ promSeriesCount external.depth }}{{ promLabelValues external.depth "job" }}',
      '{{ if promAboveThreshold .external.depth .spec.limit }}hot{{ end }}',
    ])
      expect(errorsAt(protocols(value)), value).toEqual([]);
  });

  it('refuses a result path the protocol does not have, at the template, naming its fields', () => {
    expect(errorsAt(protocols('{{ external.jobs.row.0.n }}'))).toEqual([
      '16:32: spec.crds.queue.operatorBox.status.fields[0].value: template path `external.jobs.row.0.n`: protocol postgres has no result field `row`; its fields are called, ok, error, durationMs, rows, json, result, raw; did you mean `rows`?',
    ]);
    expect(errorsAt(protocols('{{ external.jobs.body }}'))).toEqual([
      expect.stringMatching(/^16:32: .*protocol postgres has no result field `body`; its fields are .*rows/),
    ]);
    expect(errorsAt(protocols('{{ external.jobs.rows.first }}'))).toEqual([
      expect.stringContaining(
        '`external.jobs.rows` is a list: read an element by its index (`external.jobs.rows.0`)',
      ),
    ]);
    expect(errorsAt(protocols('{{ external.depth.raw.data.results }}'))).toEqual([
      expect.stringContaining(
        '`external.depth.raw.data` has no field `results`; its fields are resultType, result',
      ),
    ]);
    expect(errorsAt(protocols('{{ external.lagging.offset }}'))).toEqual([
      expect.stringContaining(
        'protocol kafka has no result field `offset`; its fields are called, ok, error, durationMs, result, partitionCount, lag, partitions, raw',
      ),
    ]);
    expect(errorsAt(protocols('{{ external.cache.value }}'))).toEqual([
      expect.stringContaining('protocol redis has no result field `value`'),
    ]);
  });

  it('checks into a row by the columns a SQL select list names, and stops where the shape is open', () => {
    expect(errorsAt(protocols('{{ external.jobs.rows.0.count }}'))).toEqual([
      '16:32: spec.crds.queue.operatorBox.status.fields[0].value: template path `external.jobs.rows.0.count`: `external.jobs.rows.0` has no field `count`; its fields are n',
    ]);
    expect(errorsAt(protocols('{{ external.jobs.raw.N }}'))).toEqual([
      expect.stringContaining('`external.jobs.raw` has no field `N`; its fields are n; did you mean `n`?'),
    ]);
    expect(errorsAt(protocols('{{ external.depth.raw.data.result.first }}'))).toEqual([
      expect.stringContaining('`external.depth.raw.data.result` is a list: read an element by its index'),
    ]);
    // `SELECT *` names no columns: a row's fields stay the server's, as an HTTP JSON body's do.
    const open = protocols('{{ external.jobs.rows.0.anything }}{{ external.api.json.items.0.deep.er }}')
      .replace('SELECT 1 AS n', 'SELECT * FROM jobs')
      .replace('external:\n', 'external:\n          - {name: api, url: "http://api:8080"}\n');
    expect(errorsAt(open)).toEqual([]);
    // The prefix before an open part is still checked.
    expect(errorsAt(open.replace('json.items', 'jsn.items'))).toEqual([
      expect.stringContaining('protocol http has no result field `jsn`'),
    ]);
  });

  it('refuses a prom helper argument that is not a prometheus result or a number, at the template', () => {
    expect(errorsAt(protocols('{{ promValue external.jobs }}'))).toEqual([
      '16:32: spec.crds.queue.operatorBox.status.fields[0].value: argument 1 of `promValue`: `external.jobs` is a postgres call; `promValue` reads the result of a prometheus call (prometheus calls here: depth)',
    ]);
    expect(errorsAt(protocols('{{ promValue external.depth.result }}'))).toEqual([
      expect.stringContaining(
        'argument 1 of `promValue` is `external.depth.result`; pass the whole result `external.depth`',
      ),
    ]);
    expect(errorsAt(protocols('{{ promSeriesCount "depth" }}'))).toEqual([
      expect.stringContaining(
        'argument 1 of `promSeriesCount` is "depth"; it reads the result of a prometheus call: pass `external.<name>` (prometheus calls here: depth)',
      ),
    ]);
    expect(errorsAt(protocols('{{ promAboveThreshold external.depth "ten" }}'))).toEqual([
      expect.stringContaining('argument 2 of `promAboveThreshold` must be a number, not "ten"'),
    ]);
  });
});

/** mutation.external (ADR 0112): the mutation rules read its calls, and only its calls. */
const mutationText = (
  value: string,
  secondUrl = 'http://r/{{ external.registry.json.id }}',
) => `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: ship}
spec:
  crds:
    release:
      apiTypes: {group: demo.example.com, version: v1, kind: Release, plural: releases}
      mutation:
        external:
          - {name: registry, url: "http://r/{{ spec.image }}", fires: {reconcile: false}}
          - {name: mirror, url: "${secondUrl}", fires: {reconcile: false}}
        rules:
          - {field: spec.digest, override: "${value}"}
      validation:
        external:
          - {name: quota, url: "http://q"}
        rules:
          - {field: external.quota.json.ok, equals: "true", message: over quota}
`;

describe('strict check: mutation.external', () => {
  it('lets the mutation rules read every mutation call, and a call read the ones before it', () => {
    expect(messages(mutationText('{{ external.mirror.json.digest }}'))).toEqual([]);
  });

  it('names a validation call read by a mutation rule, and a mutation call read before it is made', () => {
    expect(
      messages(mutationText('{{ external.quota.json.digest }}', 'http://r/{{ external.mirror.status }}')),
    ).toEqual([
      expect.stringMatching(
        /^spec\.crds\.release\.mutation\.external\[1\]\.url: .*external call `mirror` runs after this one/,
      ),
      expect.stringMatching(
        /^spec\.crds\.release\.mutation\.rules\[0\]\.override: .*no external call is named `quota`/,
      ),
    ]);
  });

  it('lets the validation rules and children read a mutation call made at reconcile, not an admission-only one (ADR 0114)', () => {
    const text = mutationText('{{ external.mirror.json.digest }}')
      .replace(
        '{name: mirror, url: "http://r/{{ external.registry.json.id }}", fires: {reconcile: false}}',
        '{name: mirror, url: "http://r/{{ external.registry.json.id }}"}',
      )
      .replace(
        '{field: external.quota.json.ok, equals: "true", message: over quota}',
        '{field: external.mirror.json.ok, equals: "true", message: "{{ external.quota.status }}"}',
      );
    const withChild = `${text}      operatorBox:
        onReconcile:
          configMaps:
            - name: "{{ metadata.name }}"
              data: {digest: "{{ external.mirror.json.digest }}"}
`;
    expect(messages(withChild)).toEqual([]);
    expect(messages(withChild.replaceAll('external.mirror.json', 'external.registry.json'))).toEqual([
      expect.stringMatching(
        /^spec\.crds\.release\.validation\.rules\[0\]\.field: .*no external call is named `registry`/,
      ),
      expect.stringMatching(
        /^spec\.crds\.release\.operatorBox\.onReconcile\.configMaps\[0\]\.data\.digest: .*no external call is named `registry`/,
      ),
    ]);
  });
});

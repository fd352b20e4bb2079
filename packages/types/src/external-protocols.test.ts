import { describe, expect, it } from 'vitest';
import { loadKatalog } from './load-katalog.js';

/** External call protocols (docs/reference/katalog.md §15.1.1): each one's fields, checked at load. */

const katalog = (
  calls: string,
  apiVersion = 'orkestra.konductor.io/v1alpha1',
): string => `apiVersion: ${apiVersion}
kind: Katalog
metadata:
  name: demo
spec:
  crds:
    website:
      apiTypes:
        group: demo.example.io
        version: v1alpha1
        kind: Website
        plural: websites
      operatorBox:
        external:
${calls}`;

const load = (text: string) => loadKatalog({ text, file: 'katalog.yaml' });

function errors(text: string): string[] {
  const result = load(text);
  return result.ok ? [] : result.errors.map((e) => `${e.line}:${e.column} ${e.path}: ${e.message}`);
}

describe('external protocols', () => {
  it('loads a prometheus instant query, a range query and a postgres query with bound parameters', () => {
    const text = katalog(`          - name: depth
            protocol: prometheus
            url: http://prometheus.monitoring:9090
            query: 'sum(queue_depth{queue="{{ .spec.queue }}"})'
          - name: trend
            protocol: prometheus
            url: http://prometheus.monitoring:9090
            query: rate(jobs_total[5m])
            range: {duration: 1h, step: 5m}
          - name: jobs
            protocol: postgres
            url: postgres://reader@db.data:5432/jobs
            query: SELECT count(*) FROM jobs WHERE owner = $1 AND state = $2
            params: ["{{ .metadata.name }}", pending]
            auth: {secretRef: {name: db-reader, key: password}}
`);
    expect(errors(text)).toEqual([]);
  });

  it('refuses a templated SQL statement at its line and column', () => {
    const text = katalog(`          - name: jobs
            protocol: postgres
            url: postgres://reader@db.data:5432/jobs
            query: "SELECT * FROM jobs WHERE owner = '{{ .metadata.name }}'"
`);
    const line = text.split('\n').findIndex((l) => l.includes('query:')) + 1;
    const [first, ...rest] = errors(text);
    expect(rest).toEqual([]);
    expect(first).toMatch(
      new RegExp(
        `^${line}:20 spec\\.crds\\.website\\.operatorBox\\.external\\[0\\]\\.query: the SQL statement must be literal: pass CR values as bind parameters`,
      ),
    );
  });

  it('refuses an unknown protocol, a wrong scheme, a missing query, a password in the URL and HTTP-only fields', () => {
    const text = katalog(`          - name: a
            protocol: gopher
            url: http://x.example.io/
          - name: b
            protocol: postgres
            url: http://db.data:5432/jobs
            query: SELECT 1
          - name: c
            protocol: prometheus
            url: http://prometheus:9090
          - name: d
            protocol: postgres
            url: postgres://reader:hunter2@db.data/jobs
            query: SELECT 1
          - name: e
            url: http://x.example.io/
            query: up
`);
    const found = errors(text).join('\n');
    expect(found).toMatch(
      /external\[0\]\.protocol: upstream `protocol: gopher` has no counterpart in Orkestra yet: external calls speak http, prometheus, postgres, redis/,
    );
    expect(found).toMatch(/external\[1\]\.url: url must start with postgres:\/\/ or postgresql:\/\//);
    expect(found).toMatch(/external\[2\]\.query: protocol prometheus needs a `query`/);
    expect(found).toMatch(/external\[3\]\.url: a password in the URL is refused/);
    expect(found).not.toContain('hunter2');
    expect(found).toMatch(/external\[4\]\.query: `query` belongs to another protocol/);
  });

  it('keeps upstream protocol: prometheus and postgres with their query', () => {
    const text = katalog(
      `          - name: up
            protocol: prometheus
            url: "{{ .spec.prometheusURL }}"
            query: go_goroutines
            continueOnError: true
          - name: db
            protocol: postgres
            url: "{{ .spec.postgresURL }}"
            query: SELECT current_database()
`,
      'orkestra.orkspace.io/v1',
    ).replace(
      '      operatorBox:\n        external:',
      '      operatorBox:\n        onReconcile:\n          external:',
    );
    const result = load(text);
    expect(result.ok ? [] : result.errors.map((e) => e.message)).toEqual([]);
    if (!result.ok) return;
    const calls = result.katalog.spec.crds['website']?.operatorBox.external ?? [];
    expect(calls.map((c) => [c.protocol, c.query])).toEqual([
      ['prometheus', 'go_goroutines'],
      ['postgres', 'SELECT current_database()'],
    ]);
  });
});

describe('protocol mongo and kafka', () => {
  it('loads a mongo count with a bound filter value and kafka topic and lag reads', () => {
    const text = katalog(`          - name: open
            protocol: mongo
            url: mongodb://reader@mongo.data:27017/admin
            query: 'shop.orders {"status": "open", "owner": "$1", "n": {"$gte": 2}}'
            params: ["{{ .metadata.name }}"]
            auth: {secretRef: {name: mongo-reader, key: password}}
          - name: topic
            protocol: kafka
            url: kafka://kafka-1.data:9092,kafka-2.data:9092
            query: "@events"
          - name: lag
            protocol: kafka
            url: kafka://kafka-1.data:9092
            query: "workers/{{ .spec.topic }}"
`);
    expect(errors(text)).toEqual([]);
  });

  it('refuses a templated mongo query, a missing parameter and server-side JavaScript', () => {
    const call = (query: string, params = ''): string =>
      katalog(`          - name: open
            protocol: mongo
            url: mongodb://mongo.data:27017
            query: '${query}'
${params}`);
    expect(errors(call('shop.orders {"owner": "{{ .metadata.name }}"}'))[0]).toMatch(
      /query: the mongo query must be literal/,
    );
    expect(errors(call('shop.orders {"owner": "$2"}', '            params: [a]\n'))[0]).toMatch(
      /params: the filter reads \$2/,
    );
    expect(errors(call('shop.orders {"$where": "sleep(1000)"}'))[0]).toMatch(/\$where runs JavaScript/);
    expect(errors(call('shop.orders {"name": {"$regex": "$1"}}', '            params: [a]\n'))[0]).toMatch(
      /cannot be the operand of \$regex/,
    );
    expect(errors(call('shoporders'))[0]).toMatch(/expected "<database>.<collection>"/);
  });

  it('refuses params on kafka and a password in a mongo URL', () => {
    expect(
      errors(
        katalog(`          - name: lag
            protocol: kafka
            url: kafka://kafka:9092
            query: "@events"
            params: [a]
`),
      )[0],
    ).toMatch(/bind parameters are for protocols postgres and mongo/);
    expect(
      errors(
        katalog(`          - name: open
            protocol: mongo
            url: mongodb://reader:hunter2@mongo:27017
            query: shop.orders
`),
      )[0],
    ).toMatch(/a password in the URL is refused/);
  });

  it('refuses a kafka ?sasl= mechanism the protocol does not speak, and an unknown URL option, at the url key', () => {
    const call = (url: string): string =>
      katalog(`          - name: lag
            protocol: kafka
            url: "${url}"
            query: workers/events
            auth: {secretRef: {name: kafka-reader, key: sasl}}
`);
    for (const good of [
      'kafka://k:9092?sasl=scram-sha-256',
      'kafka://k:9092?tls=true&sasl=SCRAM-SHA-512',
      'kafka://k:9092?sasl=plain',
      'kafka://k:9092?sasl={{ .spec.mechanism }}',
    ])
      expect(errors(call(good)), good).toEqual([]);
    const text = call('kafka://k:9092?tls=true&sasl=oauthbearer');
    const line = text.split('\n').findIndex((l) => l.includes('url:')) + 1;
    expect(errors(text)).toEqual([
      `${line}:18 spec.crds.website.operatorBox.external[0].url: sasl="oauthbearer" is not a SASL mechanism protocol kafka speaks (plain, scram-sha-256, scram-sha-512)`,
    ]);
    expect(errors(call('kafka://k:9092?sasl=gssapi'))[0]).toMatch(/sasl="gssapi" is not a SASL mechanism/);
    expect(errors(call('kafka://k:9092?mechanism=plain'))[0]).toMatch(
      /URL option mechanism is not supported \(tls, sasl\)/,
    );
  });
});

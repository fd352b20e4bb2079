import { describe, expect, it } from 'vitest';
import { head, ok, load } from './dialect-fixtures.test-support.js';

/**
 * Upstream dialects, one test per mapping. Every fixture is written here from upstream's
 * documentation and type definitions (pkg/types of orkspace/orkestra and inrundev/inrun), not
 * copied from upstream files.
 */

describe('upstream external protocols and cross sources', () => {
  const text = `${head()}      operatorBox:
        onReconcile:
          external:
            - name: ping
              protocol: amqp
              url: "{{ .spec.amqpURL }}"
              query: jobs
            - name: hello
              protocol: http
              url: http://hello.example.io/
        cross:
          - crd: loader
            source: {host: "http://loader:8080", protocol: health}
            as: loaderHealth
`;

  it('refuses an unknown protocol once, with the reason; maps a map-form cross source; drops protocol: http', () => {
    const result = load(text);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const lines = text.split('\n');
    const messages = result.errors.map((e) => `${e.line} ${e.path}: ${e.message}`);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(
      new RegExp(
        `^${lines.findIndex((l) => l.includes('protocol: amqp')) + 1} spec\\.crds\\.website\\.operatorBox\\.onReconcile\\.external\\[0\\]\\.protocol: upstream \`protocol: amqp\` has no counterpart in Orkestra yet: external calls speak http, prometheus, postgres, redis, mongo, kafka`,
      ),
    );
  });
});

describe('upstream mongo and kafka calls', () => {
  const text = `${head()}      operatorBox:
        onReconcile:
          external:
            - name: docs
              protocol: mongo
              url: "{{ .spec.mongoURL }}"
              query: 'orkestra.test {"status": "active"}'
              timeout: 5s
            - name: topicMeta
              protocol: kafka
              url: broker1:9092,broker2:9092
              query: "@events"
            - name: consumerLag
              protocol: kafka
              url: "{{ .spec.kafkaBrokers }}"
              query: workers/events
        status:
          fields:
            - path: docCount
              value: "{{ .external.docs.count }}"
            - path: partitionCount
              value: "{{ .external.topicMeta.partitionCount }}"
            - path: lag
              value: "{{ .external.consumerLag.lag }}"
`;

  it('loads them under the same names, the broker list as a kafka:// URL, their result keys unchanged', () => {
    const box = ok(load(text)).katalog.spec.crds['website']?.operatorBox;
    expect(box?.external.map((c) => [c.protocol, c.url, c.query])).toEqual([
      ['mongo', '{{ .spec.mongoURL }}', 'orkestra.test {"status": "active"}'],
      ['kafka', 'kafka://broker1:9092,broker2:9092', '@events'],
      ['kafka', '{{ .spec.kafkaBrokers }}', 'workers/events'],
    ]);
    expect(box?.status.fields.map((f) => f.value)).toEqual([
      '{{ .external.docs.count }}',
      '{{ .external.topicMeta.partitionCount }}',
      '{{ .external.consumerLag.lag }}',
    ]);
  });
});

describe('upstream external result paths', () => {
  const text = `${head()}      operatorBox:
        external:
          - name: config
            url: http://config.example.io/
        status:
          fields:
            - path: tokenValid
              value: "{{ .external.config.tokenValid }}"
            - path: code
              value: "{{ .external.config.statusCode }}"
            - path: raw
              value: "{{ .external.config.json.tokenValid }}"
            - path: phase
              value: Ready
              when:
                - field: external.config.ok
                  equals: "true"
`;

  it('writes a JSON field as external.<name>.json.<field> and statusCode as status', () => {
    const fields = ok(load(text)).katalog.spec.crds['website']?.operatorBox.status.fields ?? [];
    expect(fields.map((f) => f.value)).toEqual([
      '{{ .external.config.json.tokenValid }}',
      '{{ .external.config.status }}',
      '{{ .external.config.json.tokenValid }}',
      'Ready',
    ]);
    expect(fields[3]?.when?.[0]).toMatchObject({ field: 'external.config.ok' });
  });

  it('leaves a canonical Katalog’s paths alone', () => {
    const canonical = text.replace(
      'apiVersion: orkestra.orkspace.io/v1',
      'apiVersion: orkestra.konductor.io/v1alpha1',
    );
    const fields = ok(load(canonical)).katalog.spec.crds['website']?.operatorBox.status.fields ?? [];
    expect(fields[0]?.value).toBe('{{ .external.config.tokenValid }}');
  });
});

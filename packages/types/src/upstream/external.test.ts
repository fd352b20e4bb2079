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
              protocol: kafka
              url: "{{ .spec.redisURL }}"
              query: PING
            - name: hello
              protocol: http
              url: http://hello.example.io/
        cross:
          - crd: loader
            source: {host: "http://loader:8080", protocol: health}
            as: loaderHealth
`;

  it('refuses kafka once, with the reason; maps a map-form cross source; drops protocol: http', () => {
    const result = load(text);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const lines = text.split('\n');
    const messages = result.errors.map((e) => `${e.line} ${e.path}: ${e.message}`);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(
      new RegExp(
        `^${lines.findIndex((l) => l.includes('protocol: kafka')) + 1} spec\\.crds\\.website\\.operatorBox\\.onReconcile\\.external\\[0\\]\\.protocol: upstream \`protocol: kafka\` has no counterpart in Orkestra yet: external calls speak http, prometheus, postgres, redis`,
      ),
    );
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

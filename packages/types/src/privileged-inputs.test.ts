import { describe, expect, it } from 'vitest';
import { loadKatalog } from './load-katalog.js';

// Privileged Katalog inputs need a literal or an explicit opt-in (docs/reference/katalog.md §6,
// §7.2, §15, ADR 0033): a CR must not choose a credential and its recipient, nor the namespace the
// operator writes children into or reads from.

const katalog = (entry: string): string => `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: k}
spec:
  crds:
    app:
      apiTypes: {group: a.example.com, version: v1, kind: App, plural: apps}
${entry}`;

function issues(text: string): { line: number; column: number; path: string; message: string }[] {
  const result = loadKatalog({ text, file: 'k.yaml' });
  return result.ok
    ? []
    : result.errors.map(({ line, column, path, message }) => ({ line, column, path, message }));
}

const lineOf = (text: string, needle: string): number =>
  text.slice(0, text.indexOf(needle)).split('\n').length;

describe('external calls with auth', () => {
  const call = (url: string, secretRef: string): string =>
    katalog(`      operatorBox:
        external:
          - name: notify
            url: '${url}'
            method: POST
            auth:
              secretRef: ${secretRef}
`);

  it('refuse a templated Secret name or key beside a literal namespace, each positioned', () => {
    const text = call(
      'https://hooks.example.com/x',
      "{ name: '{{ spec.credential }}', key: '{{ spec.key }}', namespace: platform }",
    );
    expect(issues(text)).toEqual([
      expect.objectContaining({
        line: lineOf(text, 'secretRef:'),
        path: 'spec.crds.app.operatorBox.external[0].auth.secretRef.name',
        message: expect.stringContaining(
          'must be a literal, not a template, when auth.secretRef.namespace is set',
        ),
      }),
      expect.objectContaining({ path: 'spec.crds.app.operatorBox.external[0].auth.secretRef.key' }),
    ]);
  });

  it('refuse a templated scheme, host or port, and accept a templated path and query', () => {
    for (const url of [
      '{{ spec.webhook }}',
      'https://{{ spec.host }}/collect',
      'https://hooks.example.com:{{ spec.port }}/collect',
      'https://hooks.example.com{{ spec.rest }}',
      '{{ spec.scheme }}://hooks.example.com/x',
    ]) {
      const text = call(url, '{ name: api, key: token }');
      expect(issues(text), url).toEqual([
        expect.objectContaining({
          line: lineOf(text, 'url:'),
          column: 18,
          path: 'spec.crds.app.operatorBox.external[0].url',
          message: expect.stringContaining("the URL's scheme, host and port must be literal"),
        }),
      ]);
    }
    expect(
      issues(
        call(
          'https://hooks.example.com/{{ spec.path }}?x={{ spec.q }}',
          "{ name: '{{ metadata.name }}-api', key: token }",
        ),
      ),
    ).toEqual([]);
    expect(
      issues(call('https://hooks.example.com/x', '{ name: api, key: token, namespace: platform }')),
    ).toEqual([]);
  });

  it('apply to validation.external and to env credentials too', () => {
    const text = katalog(`      validation:
        external:
          - name: quota
            url: '{{ spec.quotaUrl }}'
            auth: { env: $QUOTA_TOKEN }
`);
    expect(issues(text)).toEqual([
      expect.objectContaining({ path: 'spec.crds.app.validation.external[0].url' }),
    ]);
    // Without auth a templated URL stays allowed (the address guard still applies at run time).
    expect(issues(text.replace('            auth: { env: $QUOTA_TOKEN }\n', ''))).toEqual([]);
  });
});

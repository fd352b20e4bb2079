import { describe, expect, it } from 'vitest';
import { head, load, ok } from './dialect-fixtures.test-support.js';

/**
 * Upstream's remote reconciler (ADR 0046), one test per form. Fixtures written here from upstream's
 * documentation (concepts/reconciler-model/09-remote-reconciler, reference/schema/02-katalog/
 * 31-reconcile-remote), not copied from upstream files.
 */

const remoteOf = (text: string) => ok(load(text)).katalog.spec.crds['website']?.operatorBox.remote;

const errors = (text: string): string[] => {
  const result = load(text);
  return result.ok ? [] : result.errors.map((e) => `${e.line}:${e.column} ${e.path}: ${e.message}`);
};

describe('upstream reconcile.remote', () => {
  it('moves operatorBox.reconcile.remote (G3) with every documented field, and drops default: false', () => {
    const remote = remoteOf(`${head()}      operatorBox:
        reconcile:
          default: false
          remote:
            endpoint: "https://my-reconciler.internal/reconcile"
            type: http
            timeout: 15s
            args:
              logLevel: "{{ .spec.logLevel }}"
            payload:
              object:
                exclude: [metadata.managedFields, metadata.annotations]
              children:
                enabled: true
                exclude: [metadata.managedFields]
            managedResources:
              - group: apps
                plural: deployments
              - group: ""
                plural: services
            auth:
              secretRef: { name: my-reconciler-token, key: token }
              header: Authorization
`);
    expect(remote).toMatchObject({
      endpoint: 'https://my-reconciler.internal/reconcile',
      type: 'http',
      timeout: '15s',
      attempts: 3,
      args: { logLevel: '{{ .spec.logLevel }}' },
      payload: {
        object: { exclude: ['metadata.managedFields', 'metadata.annotations'] },
        children: { enabled: true, exclude: ['metadata.managedFields'] },
      },
      managedResources: [
        { group: 'apps', plural: 'deployments' },
        { group: '', plural: 'services' },
      ],
      auth: { secretRef: { name: 'my-reconciler-token', key: 'token' }, header: 'Authorization' },
    });
  });

  it('takes the minimal form with defaults (timeout 30s, http, no payload)', () => {
    const remote = remoteOf(`${head()}      operatorBox:
        reconcile:
          default: false
          remote:
            endpoint: "http://my-service/reconcile"
`);
    expect(remote).toMatchObject({
      endpoint: 'http://my-service/reconcile',
      type: 'http',
      timeout: '30s',
      managedResources: [],
      payload: { children: { enabled: false, exclude: [] }, object: { exclude: [] } },
    });
  });

  it('takes auth from the environment with a custom header', () => {
    const remote = remoteOf(`${head()}      operatorBox:
        reconcile:
          default: false
          remote:
            endpoint: "http://my-service/reconcile"
            auth: { env: RECONCILER_API_KEY, header: X-Api-Key }
`);
    expect(remote?.auth).toEqual({ env: 'RECONCILER_API_KEY', header: 'X-Api-Key' });
  });

  it('moves the G2 operatorBox.reconciler.remote and the G1 reconciler.remote', () => {
    const g2 = remoteOf(`${head()}      operatorBox:
        reconciler:
          default: false
          remote: { endpoint: "http://svc/reconcile" }
`);
    expect(g2?.endpoint).toBe('http://svc/reconcile');
    const g1 = remoteOf(`${head()}      reconciler:
        default: false
        remote: { endpoint: "http://svc/reconcile", timeout: 5s }
`);
    expect(g1).toMatchObject({ endpoint: 'http://svc/reconcile', timeout: '5s' });
  });

  it('takes a templated endpoint', () => {
    const remote = remoteOf(`${head()}      operatorBox:
        reconcile:
          default: false
          remote:
            endpoint: "http://{{ .metadata.namespace }}-svc/reconcile"
`);
    expect(remote?.endpoint).toBe('http://{{ .metadata.namespace }}-svc/reconcile');
  });

  it('refuses type grpc and a custom kind without version and kind, at their positions', () => {
    const found = errors(`${head()}      operatorBox:
        reconcile:
          default: false
          remote:
            endpoint: "http://svc/reconcile"
            type: grpc
`);
    expect(found.join('\n')).toMatch(/^18:19 .*remote\.type: type must be http/m);
    const custom = errors(`${head()}      operatorBox:
        reconcile:
          default: false
          remote:
            endpoint: "http://svc/reconcile"
            managedResources:
              - group: db.example.com
                plural: databases
`);
    expect(custom.join('\n')).toMatch(
      /^19:17 .*managedResources\[0\]: db\.example\.com\/databases is not a built-in kind/m,
    );
  });

  it('still refuses default: false without a remote reconciler', () => {
    const found = errors(`${head()}      operatorBox:
        reconcile:
          default: false
`);
    expect(found.join('\n')).toContain('`default: false` selects a custom Go reconciler');
  });
});

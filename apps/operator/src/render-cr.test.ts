import { describe, expect, it } from 'vitest';
import { createTemplateEngine } from '@orkestra/template';
import { katalogFrom } from '../test/katalog-text.js';
import { fakeUid, renderCr } from './render-cr.js';
import { createSeededRandom } from './seeded-random.js';

const now = new Date('2026-01-01T00:00:00Z');
const engine = createTemplateEngine({ random: createSeededRandom('t'), clock: { now: () => now.getTime() } });
const cr = (spec: Record<string, unknown>, namespace = 'web') => ({
  apiVersion: 't.example.com/v1',
  kind: 'App',
  metadata: { name: 'shop', namespace },
  spec,
});
const ready = (status: Record<string, unknown>) => (status['conditions'] as Record<string, unknown>[])[0];

describe('renderCr', () => {
  it('derives a stable UID and stamps it on children', () => {
    const katalog = katalogFrom(
      'operatorBox: { onReconcile: { configMaps: [{ data: { a: "{{ spec.a }}" } }] } }',
    );
    const result = renderCr(katalog, cr({ a: 'x' }), { engine, now });
    expect(fakeUid('app', 'web', 'shop')).toBe(fakeUid('app', 'web', 'shop'));
    expect(result.children[0]?.manifest.metadata.labels?.['orkestra.konductor.io/owner-uid']).toBe(
      fakeUid('app', 'web', 'shop'),
    );
    expect(result.children[0]?.manifest['data']).toEqual({ a: 'x' });
    expect(ready(result.status)).toMatchObject({ status: 'True', reason: 'ReconcileSucceeded' });
  });

  it('stops at deny validation rules with no children', () => {
    const katalog =
      katalogFrom(`validation: { rules: [{ field: spec.a, equals: ok, message: "a is {{ spec.a }}" }] }
operatorBox: { onReconcile: { configMaps: [{}] } }`);
    const result = renderCr(katalog, cr({ a: 'bad' }), { engine, now });
    expect(result.children).toEqual([]);
    expect(result.failure).toEqual({ reason: 'ValidationFailed', message: 'a is bad' });
  });

  it('blocks a CR in a restricted namespace', () => {
    const katalog = katalogFrom(`restrictedNamespaces: [kube-*]
operatorBox: { onReconcile: { configMaps: [{}] } }`);
    const result = renderCr(katalog, cr({}, 'kube-system'), { engine, now });
    expect(result.failure?.reason).toBe('NamespaceRestricted');
    expect(result.children).toEqual([]);
  });

  it('fails with DuplicateChild when two passing entries render the same object', () => {
    const katalog = katalogFrom(
      `operatorBox: { onReconcile: { configMaps: [{ name: "{{ spec.a }}" }, { name: "{{ spec.b }}" }] } }`,
    );
    const result = renderCr(katalog, cr({ a: 'same', b: 'same' }), { engine, now });
    expect(result.failure?.reason).toBe('DuplicateChild');
  });

  it('leaves replicas to an hpa that targets the workload, and gates entries per forEach item', () => {
    const katalog = katalogFrom(`operatorBox:
  onReconcile:
    deployments: [{ image: nginx, replicas: 3 }]
    hpa: [{ maxReplicas: 5 }]
    configMaps:
      - { name: "c-{{ item }}", forEach: { field: spec.items }, when: [{ field: item, notEquals: skip }] }`);
    const result = renderCr(katalog, cr({ items: ['a', 'skip', 'b'] }), { engine, now });
    const deployment = result.children.find((c) => c.manifest.kind === 'Deployment');
    expect((deployment?.manifest['spec'] as Record<string, unknown>)['replicas']).toBeUndefined();
    expect(
      result.children.filter((c) => c.manifest.kind === 'ConfigMap').map((c) => c.manifest.metadata.name),
    ).toEqual(['c-a', 'c-b']);
  });

  it('uses external results from the context and fails on a failed call without continueOnError', () => {
    const katalog = katalogFrom(`operatorBox:
  external: [{ name: api, url: "http://x" }]
  onReconcile: { configMaps: [{ data: { v: "{{ external.api.json.v }}" } }] }`);
    const ok = renderCr(katalog, cr({}), { engine, now, context: { external: { api: { json: { v: 7 } } } } });
    expect(ok.children[0]?.manifest['data']).toEqual({ v: '7' });
    const failed = renderCr(katalog, cr({}), {
      engine,
      now,
      context: { external: { api: { ok: false, error: 'boom' } } },
    });
    expect(failed.failure).toEqual({
      reason: 'ExternalCallFailed',
      message: 'external call api failed: boom',
    });
  });
});

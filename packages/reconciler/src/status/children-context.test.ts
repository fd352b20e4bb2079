import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kube-object.js';
import { BUILT_IN_CHILDREN_KEYS, buildChildrenContext, childForTemplates } from './children-context.js';

function obj(
  apiVersion: string,
  kind: string,
  name: string,
  extra: Record<string, unknown> = {},
): KubeObject {
  return {
    apiVersion,
    kind,
    metadata: { name, namespace: 'shop', managedFields: [{ manager: 'x' }] },
    ...extra,
  };
}

describe('buildChildrenContext', () => {
  it('gives singular (first in declaration order) and plural (by name) keys', () => {
    const web = obj('apps/v1', 'Deployment', 'shop-web', { status: { readyReplicas: 2 } });
    const api = obj('apps/v1', 'Deployment', 'shop-api');
    const ctx = buildChildrenContext([
      { listKey: 'deployments', object: web },
      { listKey: 'deployments', object: api },
      { listKey: 'services', object: obj('v1', 'Service', 'shop-svc') },
    ]);
    expect(Object.keys(ctx).sort()).toEqual(['deployment', 'deployments', 'service', 'services']);
    expect((ctx['deployment'] as KubeObject).metadata.name).toBe('shop-web');
    expect(Object.keys(ctx['deployments'] as object)).toEqual(['shop-web', 'shop-api']);
    expect((ctx['deployments'] as Record<string, KubeObject>)['shop-web']?.['status']).toEqual({
      readyReplicas: 2,
    });
  });

  it('uses the spec key names, e.g. pvc/persistentvolumeclaims and hpa/hpas', () => {
    const ctx = buildChildrenContext([
      { listKey: 'persistentVolumeClaims', object: obj('v1', 'PersistentVolumeClaim', 'data') },
      { listKey: 'hpa', object: obj('autoscaling/v2', 'HorizontalPodAutoscaler', 'web') },
      { listKey: 'networkPolicies', object: obj('networking.k8s.io/v1', 'NetworkPolicy', 'deny') },
    ]);
    expect(Object.keys(ctx).sort()).toEqual([
      'hpa',
      'hpas',
      'networkpolicies',
      'networkpolicy',
      'persistentvolumeclaims',
      'pvc',
    ]);
  });

  it('leaves children that do not exist yet absent, and the first existing one singular', () => {
    const ctx = buildChildrenContext([
      { listKey: 'jobs', object: undefined },
      { listKey: 'jobs', object: obj('batch/v1', 'Job', 'second') },
      { listKey: 'cronJobs', object: undefined },
    ]);
    expect((ctx['job'] as KubeObject).metadata.name).toBe('second');
    expect(ctx).not.toHaveProperty('cronjob');
    expect(ctx).not.toHaveProperty('cronjobs');
  });

  it('strips managedFields and Secret data', () => {
    const secret = obj('v1', 'Secret', 'db', {
      data: { password: 'c2VjcmV0' },
      stringData: { a: 'b' },
      type: 'Opaque',
    });
    const ctx = buildChildrenContext([{ listKey: 'secrets', object: secret }]);
    const seen = ctx['secret'] as KubeObject;
    expect(seen).toEqual({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'db', namespace: 'shop' },
      type: 'Opaque',
    });
    expect(secret['data']).toEqual({ password: 'c2VjcmV0' }); // input untouched
    expect(secret.metadata['managedFields']).toBeDefined();
    expect(childForTemplates(obj('v1', 'ConfigMap', 'c', { data: { a: '1' } }))['data']).toEqual({ a: '1' });
  });

  it('lists custom children under custom/customs and their lowercase kind and plural', () => {
    const cert = obj('cert-manager.io/v1', 'Certificate', 'shop-cert');
    const ctx = buildChildrenContext([{ listKey: 'custom', object: cert, resourcePlural: 'certificates' }]);
    expect(Object.keys(ctx).sort()).toEqual(['certificate', 'certificates', 'custom', 'customs']);
    expect(ctx['certificate']).toEqual(ctx['custom']);
    expect(Object.keys(ctx['certificates'] as object)).toEqual(['shop-cert']);
  });

  it('adds only the lowercase kind when the resource plural is unknown', () => {
    const ctx = buildChildrenContext([{ listKey: 'custom', object: obj('x.io/v1', 'Widget', 'w') }]);
    expect(Object.keys(ctx).sort()).toEqual(['custom', 'customs', 'widget']);
  });

  it('does not let a custom kind clash with a built-in key', () => {
    const builtIn = obj('apps/v1', 'Deployment', 'real');
    const custom = obj('apps/v1', 'Deployment', 'custom-one');
    const ctx = buildChildrenContext([
      { listKey: 'deployments', object: builtIn },
      { listKey: 'custom', object: custom, resourcePlural: 'deployments' },
    ]);
    expect((ctx['deployment'] as KubeObject).metadata.name).toBe('real');
    expect(Object.keys(ctx['deployments'] as object)).toEqual(['real']);
    expect((ctx['custom'] as KubeObject).metadata.name).toBe('custom-one');
    expect(BUILT_IN_CHILDREN_KEYS.has('customs')).toBe(true);
  });

  it('returns an empty context without children', () => {
    expect(buildChildrenContext([])).toEqual({});
  });
});

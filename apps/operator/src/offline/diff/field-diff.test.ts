import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@orkestra/registry';
import { diffManagedFields, diffValues, hiddenSecretValues } from './field-diff.js';

const deployment = (spec: Record<string, unknown>, metadata: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'shop', ...metadata },
  spec,
});

const container = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  name: 'web',
  image: 'nginx:1.27',
  ports: [{ containerPort: 80, protocol: 'TCP' }],
  resources: { requests: { cpu: '50m', memory: '64Mi' } },
  ...extra,
});

/** live is the desired Deployment as the API server returns it: defaults added, managedFields set. */
function live(spec: Record<string, unknown>, fieldsV1?: Record<string, unknown>): KubeObject {
  return deployment(
    {
      progressDeadlineSeconds: 600,
      revisionHistoryLimit: 10,
      ...spec,
    },
    fieldsV1 == null
      ? { uid: 'u', resourceVersion: '12' }
      : {
          uid: 'u',
          resourceVersion: '12',
          managedFields: [
            { manager: 'kube-controller-manager', operation: 'Update', fieldsV1: { 'f:status': {} } },
            { manager: 'orkestra', operation: 'Apply', fieldsV1 },
          ],
        },
  );
}

describe('diffManagedFields', () => {
  it('reports nothing when every field we set has the live value (server defaults are not ours)', () => {
    const spec = { replicas: 2, template: { spec: { containers: [container()] } } };
    const liveSpec = {
      replicas: 2,
      template: {
        spec: {
          containers: [{ ...container(), terminationMessagePath: '/dev/termination-log' }],
          dnsPolicy: 'ClusterFirst',
        },
      },
    };
    expect(diffManagedFields(live(liveSpec), deployment(spec))).toEqual([]);
  });

  it('compares quantities and int-or-string fields by value', () => {
    const desired = deployment({
      template: {
        spec: { containers: [container({ resources: { requests: { cpu: '0.05', memory: '64Mi' } } })] },
      },
    });
    const liveSpec = { template: { spec: { containers: [container()] } } };
    expect(diffManagedFields(live(liveSpec), desired)).toEqual([]);
  });

  it('reports changed and added fields, keyed list items by key', () => {
    const desired = deployment(
      {
        replicas: 3,
        template: {
          spec: {
            containers: [
              container({ image: 'nginx:1.29', env: [{ name: 'MODE', value: 'fast' }] }),
              { name: 'sidecar', image: 'busybox' },
            ],
          },
        },
      },
      { labels: { 'app.kubernetes.io/name': 'web' } },
    );
    const liveSpec = { replicas: 2, template: { spec: { containers: [container()] } } };
    expect(diffManagedFields(live(liveSpec), desired)).toEqual([
      { path: 'metadata.labels', op: 'add', after: { 'app.kubernetes.io/name': 'web' } },
      { path: 'spec.replicas', op: 'change', before: 2, after: 3 },
      {
        path: 'spec.template.spec.containers[sidecar]',
        op: 'add',
        after: { name: 'sidecar', image: 'busybox' },
      },
      { path: 'spec.template.spec.containers[web].env', op: 'add', after: [{ name: 'MODE', value: 'fast' }] },
      {
        path: 'spec.template.spec.containers[web].image',
        op: 'change',
        before: 'nginx:1.27',
        after: 'nginx:1.29',
      },
    ]);
  });

  it('replaces atomic lists whole', () => {
    const desired = deployment({ template: { spec: { containers: [container({ args: ['-a', '-b'] })] } } });
    const liveSpec = { template: { spec: { containers: [container({ args: ['-a'] })] } } };
    expect(diffManagedFields(live(liveSpec), desired)).toEqual([
      { path: 'spec.template.spec.containers[web].args', op: 'change', before: ['-a'], after: ['-a', '-b'] },
    ]);
  });

  it('reports fields our field manager owns and the new manifest drops as removed, and only those', () => {
    const owned = {
      'f:metadata': { 'f:labels': { 'f:tier': {} } },
      'f:spec': {
        'f:replicas': {},
        'f:template': {
          'f:spec': {
            'f:containers': {
              'k:{"name":"web"}': {
                '.': {},
                'f:image': {},
                'f:env': { 'k:{"name":"DEBUG"}': { '.': {}, 'f:name': {}, 'f:value': {} } },
                'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } },
              },
              'k:{"name":"old"}': { '.': {}, 'f:name': {} },
            },
          },
        },
      },
    };
    const liveObject = deployment(
      {
        replicas: 2,
        template: {
          spec: {
            containers: [
              container({ env: [{ name: 'DEBUG', value: '1' }] }),
              { name: 'old', image: 'busybox' },
            ],
          },
        },
      },
      {
        labels: { tier: 'gold', team: 'x' },
        managedFields: [{ manager: 'orkestra', operation: 'Apply', fieldsV1: owned }],
      },
    );
    // The new manifest drops the tier label, the old container, DEBUG and replicas (a HPA owns it now).
    const desired = deployment({ template: { spec: { containers: [container()] } } });
    expect(diffManagedFields(liveObject, desired)).toEqual([
      { path: 'metadata.labels.tier', op: 'remove', before: 'gold' },
      { path: 'spec.replicas', op: 'remove', before: 2 },
      { path: 'spec.template.spec.containers[old]', op: 'remove', before: { name: 'old', image: 'busybox' } },
      {
        path: 'spec.template.spec.containers[web].env[DEBUG]',
        op: 'remove',
        before: { name: 'DEBUG', value: '1' },
      },
    ]);
    // Without managedFields nothing is known to be ours beyond the manifest: no removals.
    const { managedFields: _m, ...metadata } = liveObject.metadata;
    expect(diffManagedFields({ ...liveObject, metadata } as KubeObject, desired)).toEqual([]);
  });

  it('does not report a dropped field another field manager also owns (apply leaves it)', () => {
    const liveObject = deployment(
      { replicas: 4, paused: false },
      {
        managedFields: [
          {
            manager: 'orkestra',
            operation: 'Apply',
            fieldsV1: { 'f:spec': { 'f:replicas': {}, 'f:paused': {} } },
          },
          { manager: 'autoscaler', operation: 'Update', fieldsV1: { 'f:spec': { 'f:replicas': {} } } },
        ],
      },
    );
    expect(diffManagedFields(liveObject, deployment({}))).toEqual([
      { path: 'spec.paused', op: 'remove', before: false },
    ]);
  });

  it('never reports the applied-hash annotation', () => {
    const hash = 'orkestra.konductor.io/applied-hash';
    const desired = deployment({ replicas: 1 }, { annotations: { [hash]: 'new' } });
    const liveObject = deployment({ replicas: 1 }, { annotations: { [hash]: 'old' } });
    expect(diffManagedFields(liveObject, desired)).toEqual([]);
  });

  it("hides a Secret's data values: the change only", () => {
    const secret = (data: Record<string, string>): KubeObject => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's' },
      data,
    });
    const changes = diffManagedFields(
      secret({ password: 'b2xk' }),
      secret({ password: 'bmV3', user: 'dQ==' }),
    );
    expect(changes).toEqual([
      { path: 'data.password', op: 'change', hidden: true },
      { path: 'data.user', op: 'add', hidden: true },
    ]);
    expect(JSON.stringify(changes)).not.toMatch(/b2xk|bmV3|dQ==/);
    expect(hiddenSecretValues(secret({ password: 'b2xk' }))['data']).toEqual({ password: '(hidden)' });
  });
});

describe('diffValues', () => {
  it('compares whole statuses, conditions by type, ignoring the named fields', () => {
    const before = {
      phase: 'Running',
      url: 'http://a',
      conditions: [
        { type: 'Ready', status: 'True', reason: 'Ready', lastTransitionTime: '2026-01-01T00:00:00Z' },
        { type: 'Synced', status: 'True', reason: 'Synced', lastTransitionTime: '2026-01-01T00:00:00Z' },
      ],
    };
    const after = {
      phase: 'Running',
      conditions: [
        { type: 'Synced', status: 'True', reason: 'Synced', lastTransitionTime: '2026-02-02T00:00:00Z' },
        {
          type: 'Ready',
          status: 'False',
          reason: 'ChildNotReady',
          lastTransitionTime: '2026-02-02T00:00:00Z',
        },
      ],
      extra: 1,
    };
    expect(diffValues(before, after, 'status', new Set(['lastTransitionTime']))).toEqual([
      { path: 'status.conditions[Ready].reason', op: 'change', before: 'Ready', after: 'ChildNotReady' },
      { path: 'status.conditions[Ready].status', op: 'change', before: 'True', after: 'False' },
      { path: 'status.extra', op: 'add', after: 1 },
      { path: 'status.url', op: 'remove', before: 'http://a' },
    ]);
  });
});

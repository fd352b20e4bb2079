import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@orkestra/registry';
import { WriteWave, finalizerMayJoinFirstWave, groupByWave, writeWaveOf } from './write-plan.js';

const ref = (apiVersion: string, kind: string, name = kind.toLowerCase()) => ({
  ref: { apiVersion, kind, name },
});

describe('write waves', () => {
  it('writes namespaces and CRDs first, roles and service accounts next, every other kind together', () => {
    expect(writeWaveOf({ apiVersion: 'v1', kind: 'Namespace' })).toBe(WriteWave.Foundations);
    expect(writeWaveOf({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' })).toBe(
      WriteWave.Foundations,
    );
    expect(writeWaveOf({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role' })).toBe(WriteWave.Roles);
    expect(writeWaveOf({ apiVersion: 'v1', kind: 'ServiceAccount' })).toBe(WriteWave.Roles);
    for (const [apiVersion, kind] of [
      ['v1', 'Secret'],
      ['v1', 'ConfigMap'],
      ['v1', 'Service'],
      ['apps/v1', 'Deployment'],
      ['batch/v1', 'Job'],
      ['networking.k8s.io/v1', 'Ingress'],
      ['rbac.authorization.k8s.io/v1', 'RoleBinding'],
      ['example.com/v1', 'Widget'],
    ] as const) {
      expect(writeWaveOf({ apiVersion, kind }), kind).toBe(WriteWave.Rest);
    }
  });

  it('puts a CR’s Secret, ConfigMap, Service and Deployment in one wave', () => {
    const waves = groupByWave([
      ref('v1', 'Secret'),
      ref('v1', 'ConfigMap'),
      ref('v1', 'Service'),
      ref('apps/v1', 'Deployment'),
    ]);
    expect(waves.map((w) => w.map((c) => c.ref.kind))).toEqual([
      ['Secret', 'ConfigMap', 'Service', 'Deployment'],
    ]);
  });

  it('orders the waves and keeps declaration order inside each', () => {
    const waves = groupByWave([
      ref('rbac.authorization.k8s.io/v1', 'RoleBinding'),
      ref('apps/v1', 'Deployment'),
      ref('rbac.authorization.k8s.io/v1', 'Role'),
      ref('v1', 'Namespace'),
      ref('v1', 'Secret'),
    ]);
    expect(waves.map((w) => w.map((c) => c.ref.kind))).toEqual([
      ['Namespace'],
      ['Role'],
      ['RoleBinding', 'Deployment', 'Secret'],
    ]);
  });
});

describe('finalizerMayJoinFirstWave', () => {
  const owned = (uid: string): { manifest: KubeObject } => ({
    manifest: {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'x',
        namespace: 'ns',
        ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'x', uid }],
      },
    } as KubeObject,
  });
  const unowned: { manifest: KubeObject } = {
    manifest: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'other' } } as KubeObject,
  };
  const none = { extraFinalizers: [], hasOnDelete: false, hasProviders: false };

  it('joins when every child is owned by the CR and nothing else needs cleaning up', () => {
    expect(finalizerMayJoinFirstWave(none, 'u1', [owned('u1'), owned('u1')])).toBe(true);
    expect(finalizerMayJoinFirstWave(none, 'u1', [])).toBe(true);
  });

  it('goes first when one child is not collected through an ownerReference to this CR', () => {
    expect(finalizerMayJoinFirstWave(none, 'u1', [owned('u1'), unowned])).toBe(false);
    expect(finalizerMayJoinFirstWave(none, 'u1', [owned('u2')])).toBe(false);
    expect(finalizerMayJoinFirstWave(none, '', [owned('')])).toBe(false);
  });

  it('goes first when the entry cleans up on deletion', () => {
    expect(finalizerMayJoinFirstWave({ ...none, hasOnDelete: true }, 'u1', [owned('u1')])).toBe(false);
    expect(finalizerMayJoinFirstWave({ ...none, hasProviders: true }, 'u1', [owned('u1')])).toBe(false);
    expect(finalizerMayJoinFirstWave({ ...none, extraFinalizers: ['x/y'] }, 'u1', [owned('u1')])).toBe(false);
  });
});

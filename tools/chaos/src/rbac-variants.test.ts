import type { Manifest } from '@orkestra/operator';
import { describe, expect, it } from 'vitest';
import { rbacVariants, wildcardsIn } from './rbac-variants.js';

const manifests = [
  { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'op' } },
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'orkestra:op' },
    rules: [
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] },
      { apiGroups: ['apps'], resources: ['deployments'], verbs: ['*'] },
    ],
  },
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: 'orkestra:op:leader-election', namespace: 'ops' },
    rules: [
      {
        apiGroups: ['coordination.k8s.io'],
        resources: ['leases'],
        verbs: ['get'],
        resourceNames: ['orkestra-op'],
      },
    ],
  },
] as unknown as Manifest[];

describe('rbacVariants', () => {
  it('returns the full set, then one variant per rule with exactly that rule removed', () => {
    const variants = rbacVariants(manifests);
    expect(variants.map((v) => v.label)).toEqual([
      'all rules',
      'ClusterRole orkestra:op rule 0: core/configmaps [get,list]',
      'ClusterRole orkestra:op rule 1: apps/deployments [*]',
      'Role orkestra:op:leader-election rule 0: coordination.k8s.io/leases [get] (orkestra-op)',
    ]);
    const second = variants[2]?.manifests[1] as unknown as { rules: unknown[] };
    expect(second.rules).toEqual([{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }]);
    expect((manifests[1] as unknown as { rules: unknown[] }).rules).toHaveLength(2);
  });

  it('finds wildcards', () => {
    expect(wildcardsIn(manifests)).toEqual(['ClusterRole orkestra:op: apps/deployments [*]']);
  });
});

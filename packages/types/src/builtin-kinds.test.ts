import { describe, expect, it } from 'vitest';
import { BUILTIN_GROUPS, BUILTIN_KINDS, hasBuiltinKinds, isBuiltinKindName } from './builtin-kinds.js';
import { RESOURCE_KINDS } from './kinds/index.js';

describe('the built-in kinds table', () => {
  it('puts every kind in one of Kubernetes’ own groups, once', () => {
    for (const row of BUILTIN_KINDS) expect(BUILTIN_GROUPS.has(row.group)).toBe(true);
    const names = BUILTIN_KINDS.map((row) => `${row.group}/${row.kind}`);
    expect(new Set(names).size).toBe(names.length);
  });

  it('knows the group of every fixed resource list, so the runtime discovers only custom kinds', () => {
    for (const info of RESOURCE_KINDS)
      if (info.apiVersion != null) expect(hasBuiltinKinds(info.apiVersion)).toBe(true);
  });

  it('answers for the groups the runtime skipped discovery for, and for no other', () => {
    for (const apiVersion of [
      'v1',
      'apps/v1',
      'batch/v1',
      'networking.k8s.io/v1',
      'autoscaling/v2',
      'policy/v1',
      'rbac.authorization.k8s.io/v1',
    ])
      expect(hasBuiltinKinds(apiVersion)).toBe(true);
    // Kinds of these groups (StorageClass, PriorityClass, …) are cluster-scoped: discovery says so.
    for (const apiVersion of [
      'storage.k8s.io/v1',
      'scheduling.k8s.io/v1',
      'example.org/v1',
      'apps.example.org/v1',
    ])
      expect(hasBuiltinKinds(apiVersion)).toBe(false);
  });

  it('recognises Kubernetes’ own kinds by name, not a CRD kind', () => {
    for (const kind of ['Pod', 'Event', 'DaemonSet', 'Node', 'ClusterRoleBinding'])
      expect(isBuiltinKindName(kind)).toBe(true);
    expect(isBuiltinKindName('Website')).toBe(false);
  });
});

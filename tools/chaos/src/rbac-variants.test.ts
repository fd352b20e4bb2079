import type { Manifest } from '@orkestra/operator';
import { describe, expect, it } from 'vitest';
import { forbiddenProof, parseAuditLog, rbacVariants, wildcardsIn } from './rbac-variants.js';

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
  it('returns the full set, then one variant per verb per resource with exactly that grant removed', () => {
    const variants = rbacVariants(manifests);
    expect(variants.map((v) => v.label)).toEqual([
      'all rules',
      'ClusterRole orkestra:op: core/configmaps [get]',
      'ClusterRole orkestra:op: core/configmaps [list]',
      'ClusterRole orkestra:op: apps/deployments [*]',
      'Role orkestra:op:leader-election: coordination.k8s.io/leases [get] (orkestra-op)',
    ]);
    const withoutGet = variants[1]?.manifests[1] as unknown as { rules: unknown[] };
    expect(withoutGet.rules).toEqual([
      { apiGroups: [''], resources: ['configmaps'], verbs: ['list'] },
      { apiGroups: ['apps'], resources: ['deployments'], verbs: ['*'] },
    ]);
    expect(variants[1]?.removed).toEqual({
      role: 'ClusterRole orkestra:op',
      apiGroup: '',
      resource: 'configmaps',
      verb: 'get',
    });
    expect((manifests[1] as unknown as { rules: unknown[] }).rules).toHaveLength(2);
  });

  it('splits a rule with several resources so only one resource loses the verb', () => {
    const rule = { apiGroups: [''], resources: ['configmaps', 'secrets'], verbs: ['get', 'list'] };
    const role = { kind: 'ClusterRole', metadata: { name: 'r' }, rules: [rule] } as unknown as Manifest;
    const variant = rbacVariants([role]).find((v) => v.label === 'ClusterRole r: core/secrets [get]');
    expect((variant?.manifests[0] as unknown as { rules: unknown[] }).rules).toEqual([
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['list'] },
    ]);
  });

  it('finds wildcards', () => {
    expect(wildcardsIn(manifests)).toEqual(['ClusterRole orkestra:op: apps/deployments [*]']);
  });
});

describe('forbiddenProof', () => {
  const sa = 'system:serviceaccount:ops:op';
  const events = parseAuditLog(
    [
      {
        verb: 'list',
        user: { username: sa },
        objectRef: { resource: 'configmaps' },
        responseStatus: { code: 200 },
      },
      {
        verb: 'list',
        user: { username: 'admin' },
        objectRef: { resource: 'secrets' },
        responseStatus: { code: 403 },
      },
      {
        verb: 'patch',
        user: { username: sa },
        objectRef: { resource: 'shops', subresource: 'status', apiGroup: 'g' },
        responseStatus: { code: 403 },
      },
      {
        verb: 'create',
        user: { username: sa },
        objectRef: { resource: 'configmaps' },
        responseStatus: {
          code: 403,
          message:
            "cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on",
        },
      },
      {
        verb: 'patch',
        user: { username: sa },
        objectRef: { resource: 'secrets' },
        responseStatus: {
          code: 403,
          message: `secrets "s" is forbidden: User "${sa}" cannot create resource "secrets" in API group "" in the namespace "n"`,
        },
      },
    ]
      .map((e) => JSON.stringify(e))
      .join('\n') + '\n{"cut',
  );

  it('matches only a 403 of that user for that verb, resource and subresource', () => {
    expect(
      forbiddenProof(events, sa, { role: 'r', apiGroup: '', resource: 'configmaps', verb: 'list' }),
    ).toBeUndefined();
    expect(
      forbiddenProof(events, sa, { role: 'r', apiGroup: '', resource: 'secrets', verb: 'list' }),
    ).toBeUndefined();
    expect(
      forbiddenProof(events, sa, { role: 'r', apiGroup: 'g', resource: 'shops', verb: 'patch' }),
    ).toBeUndefined();
    expect(
      forbiddenProof(events, sa, { role: 'r', apiGroup: 'g', resource: 'shops/status', verb: 'patch' })?.verb,
    ).toBe('patch');
  });

  it('proves create by the 403 of an apply that creates (a PATCH authorized as create)', () => {
    expect(
      forbiddenProof(events, sa, { role: 'r', apiGroup: '', resource: 'secrets', verb: 'create' })?.verb,
    ).toBe('patch');
    expect(
      forbiddenProof(events, sa, { role: 'r', apiGroup: '', resource: 'secrets', verb: 'patch' }),
    ).toBeUndefined();
  });

  it('proves finalizers update by the admission 403 of the child write', () => {
    expect(
      forbiddenProof(events, sa, { role: 'r', apiGroup: 'g', resource: 'shops/finalizers', verb: 'update' })
        ?.verb,
    ).toBe('create');
  });
});

import { describe, expect, it } from 'vitest';
import { RESOURCE_KINDS, resourceKindOf } from './index.js';
import { apiGroupOf, guessPlural } from './resource-kind.js';

describe('kind facts helpers', () => {
  it('apiGroupOf is the part of apiVersion before the slash, empty for core', () => {
    expect(apiGroupOf('v1')).toBe('');
    expect(apiGroupOf('apps/v1')).toBe('apps');
    expect(apiGroupOf('networking.k8s.io/v1')).toBe('networking.k8s.io');
  });

  it('guessPlural follows the Kubernetes guess (y → ies, s/x/z/ch/sh → es, else s)', () => {
    expect(guessPlural('Certificate')).toBe('certificates');
    expect(guessPlural('NetworkPolicy')).toBe('networkpolicies');
    expect(guessPlural('Gateway')).toBe('gateways');
    expect(guessPlural('Ingress')).toBe('ingresses');
    expect(guessPlural('Box')).toBe('boxes');
    expect(guessPlural('Patch')).toBe('patches');
    expect(guessPlural('')).toBe('');
  });

  it('resourceKindOf finds a fixed kind by apiVersion and kind, and nothing for custom kinds', () => {
    expect(resourceKindOf('apps/v1', 'Deployment')).toMatchObject({
      listKey: 'deployments',
      group: 'apps',
      plural: 'deployments',
      namespaced: true,
    });
    expect(resourceKindOf('v1', 'Namespace')).toMatchObject({ plural: 'namespaces', namespaced: false });
    expect(resourceKindOf('cert-manager.io/v1', 'Certificate')).toBeUndefined();
    expect(resourceKindOf('v1', 'Deployment')).toBeUndefined();
  });

  it('every fixed kind states a plural and a group that agree with its apiVersion', () => {
    for (const info of RESOURCE_KINDS) {
      if (info.apiVersion == null) continue;
      expect(info.group).toBe(apiGroupOf(info.apiVersion));
      expect(info.plural).toMatch(/^[a-z]+$/);
    }
  });
});

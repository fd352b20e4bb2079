import { describe, expect, it } from 'vitest';
import { compileNamespacePattern, createNamespaceGuard } from './namespace-guard.js';

describe('compileNamespacePattern', () => {
  it('matches exact names, prefixes, suffixes and everything', () => {
    expect(compileNamespacePattern('default')('default')).toBe(true);
    expect(compileNamespacePattern('default')('default2')).toBe(false);
    expect(compileNamespacePattern('kube-*')('kube-system')).toBe(true);
    expect(compileNamespacePattern('kube-*')('kube-')).toBe(true);
    expect(compileNamespacePattern('kube-*')('my-kube-x')).toBe(false);
    expect(compileNamespacePattern('*-system')('cert-manager-system')).toBe(true);
    expect(compileNamespacePattern('*-system')('system')).toBe(false);
    expect(compileNamespacePattern('*')('anything')).toBe(true);
  });

  it('rejects patterns with a star in the middle or on both ends', () => {
    expect(() => compileNamespacePattern('a*b')).toThrow(/invalid namespace pattern "a\*b"/);
    expect(() => compileNamespacePattern('*x*')).toThrow(TypeError);
    expect(() => compileNamespacePattern('**')).toThrow(TypeError);
  });
});

describe('createNamespaceGuard', () => {
  it('blocks nothing without patterns', () => {
    const guard = createNamespaceGuard({});
    expect(guard.active).toBe(false);
    expect(guard.isBlocked('kube-system')).toBe(false);
    expect(guard.pinnedNamespace).toBeUndefined();
    expect(guard.reason('x')).toBe('namespace "x" is allowed (no namespace guard)');
    expect(createNamespaceGuard().isBlocked('default')).toBe(false);
  });

  it('blocks restricted namespaces', () => {
    const guard = createNamespaceGuard({ restricted: ['kube-*', '*-system', 'default'] });
    expect(guard.active).toBe(true);
    expect(guard.isBlocked('kube-public')).toBe(true);
    expect(guard.isBlocked('istio-system')).toBe(true);
    expect(guard.isBlocked('default')).toBe(true);
    expect(guard.isBlocked('shop')).toBe(false);
    expect(guard.reason('istio-system')).toBe('namespace "istio-system" is restricted (matches "*-system")');
    expect(guard.reason('shop')).toBe('namespace "shop" is allowed');
  });

  it('blocks namespaces outside a non-empty allow list', () => {
    const guard = createNamespaceGuard({ allowed: ['team-*', 'shared'] });
    expect(guard.isBlocked('team-a')).toBe(false);
    expect(guard.isBlocked('shared')).toBe(false);
    expect(guard.isBlocked('other')).toBe(true);
    expect(guard.reason('other')).toBe(
      'namespace "other" is not allowed (allowedNamespaces: "team-*", "shared")',
    );
    expect(guard.pinnedNamespace).toBeUndefined();
  });

  it('lets restricted beat allowed', () => {
    const guard = createNamespaceGuard({ restricted: ['team-secret'], allowed: ['team-*'] });
    expect(guard.isBlocked('team-a')).toBe(false);
    expect(guard.isBlocked('team-secret')).toBe(true);
    expect(guard.reason('team-secret')).toContain('is restricted');
    expect(createNamespaceGuard({ restricted: ['*'], allowed: ['*'] }).isBlocked('x')).toBe(true);
  });

  it('pins informers to a single exact allowed namespace', () => {
    expect(createNamespaceGuard({ allowed: ['shop'] }).pinnedNamespace).toBe('shop');
    expect(createNamespaceGuard({ allowed: ['shop'], restricted: ['kube-*'] }).pinnedNamespace).toBe('shop');
    expect(createNamespaceGuard({ allowed: ['shop-*'] }).pinnedNamespace).toBeUndefined();
    expect(createNamespaceGuard({ allowed: ['*'] }).pinnedNamespace).toBeUndefined();
    expect(createNamespaceGuard({ allowed: ['a', 'b'] }).pinnedNamespace).toBeUndefined();
    // The only allowed namespace is also restricted: nothing is reachable, so nothing is pinned.
    expect(createNamespaceGuard({ allowed: ['shop'], restricted: ['shop'] }).pinnedNamespace).toBeUndefined();
  });

  it('fails fast on an invalid pattern', () => {
    expect(() => createNamespaceGuard({ restricted: ['kube*system'] })).toThrow(TypeError);
  });
});

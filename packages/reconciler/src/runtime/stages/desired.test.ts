import { describe, expect, it } from 'vitest';
import type { DesiredSet } from '../desired-set.js';
import { blockedError } from './desired.js';

describe('blockedError', () => {
  it('is the terminal NamespaceRestricted error of the first blocked child, naming it and its Katalog path', () => {
    const none: DesiredSet = { groups: { onCreate: [], onReconcile: [] }, blocked: [], ids: new Set() };
    expect(blockedError(none)).toBeUndefined();
    const blocked = {
      ...none,
      blocked: [
        {
          ref: { apiVersion: 'v1', kind: 'ConfigMap', name: 'c', namespace: 'kube-system' },
          entry: { katalogPath: 'site.onReconcile.configMaps[0]' },
          reason: 'namespace kube-system is restricted',
        },
        {
          ref: { apiVersion: 'v1', kind: 'ConfigMap', name: 'd', namespace: 'kube-public' },
          entry: { katalogPath: 'site.onReconcile.configMaps[1]' },
          reason: 'namespace kube-public is restricted',
        },
      ],
    } as unknown as DesiredSet;
    const error = blockedError(blocked);
    expect(error?.code).toBe('NamespaceRestricted');
    expect(error?.katalogPath).toBe('site.onReconcile.configMaps[0]');
    expect(error?.message).toContain('kube-system');
    expect(error?.message).not.toContain('kube-public');
  });
});

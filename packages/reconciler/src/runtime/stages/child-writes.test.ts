import type { KubeObject } from '@orkestra/registry';
import { appliedHash } from '@orkestra/registry';
import { describe, expect, it } from 'vitest';
import type { DesiredChild } from '../desired-set.js';
import { firstFailure, isDrift, writeOrder } from './child-writes.js';

function child(listKey: string, group: 'onCreate' | 'onReconcile', index = 0): DesiredChild {
  return {
    id: `${listKey}/${group}/${index}`,
    ref: { apiVersion: 'v1', kind: listKey, name: `${listKey}-${index}`, namespace: 'web' },
    entry: { listKey, group, index, katalogPath: `site.${group}.${listKey}[${index}]` },
  } as unknown as DesiredChild;
}

describe('writeOrder', () => {
  it('puts onCreate before onReconcile and follows the fixed kind order within a group', () => {
    expect(writeOrder(child('configMaps', 'onCreate'))).toBeLessThan(
      writeOrder(child('configMaps', 'onReconcile')),
    );
    expect(writeOrder(child('configMaps', 'onReconcile'))).toBeLessThan(
      writeOrder(child('deployments', 'onReconcile')),
    );
    expect(writeOrder(child('unknown', 'onCreate'))).toBe(99);
  });
});

describe('firstFailure', () => {
  it('reports the failure first in kind order, then entry order, whatever order the writes ended in', () => {
    const list = [
      child('deployments', 'onReconcile'),
      child('configMaps', 'onReconcile', 1),
      child('configMaps', 'onReconcile', 0),
    ];
    const results: PromiseSettledResult<unknown>[] = [
      { status: 'rejected', reason: 'deployment' },
      { status: 'rejected', reason: 'config 1' },
      { status: 'rejected', reason: 'config 0' },
    ];
    expect(firstFailure(list, results)?.reason).toBe('config 0');
    expect(
      firstFailure(list, [
        { status: 'fulfilled', value: undefined },
        { status: 'fulfilled', value: undefined },
        { status: 'fulfilled', value: undefined },
      ]),
    ).toBeUndefined();
  });
});

describe('isDrift', () => {
  it('is drift only when the live child carries the applied hash of this very manifest', () => {
    const manifest: KubeObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', namespace: 'web' },
      data: { a: '1' },
    };
    const stamped = (hash: string): KubeObject => ({
      ...manifest,
      metadata: { ...manifest.metadata, annotations: { 'orkestra.konductor.io/applied-hash': hash } },
    });
    expect(isDrift(stamped(appliedHash(manifest)), manifest)).toBe(true);
    expect(isDrift(stamped('sha256:other'), manifest)).toBe(false);
    expect(isDrift(manifest, manifest)).toBe(false);
    expect(isDrift(undefined, manifest)).toBe(false);
  });
});

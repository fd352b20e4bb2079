import { describe, expect, it } from 'vitest';
import { ago, formatExplain } from './explain-tree.js';

const now = new Date('2026-12-01T12:00:00Z');

describe('formatExplain', () => {
  it('prints Ready and Synced, then every child with step, state, since and reason in step order', () => {
    const lines = formatExplain(
      {
        kind: 'Shop',
        metadata: { name: 'one', namespace: 'shop' },
        status: {
          conditions: [
            {
              type: 'Ready',
              status: 'False',
              reason: 'ChildNotReady',
              message: 'Deployment one-web: 1/2 replicas available',
              lastTransitionTime: '2026-12-01T11:58:00Z',
            },
            {
              type: 'Synced',
              status: 'True',
              reason: 'ReconcileSucceeded',
              lastTransitionTime: '2026-12-01T11:59:15Z',
            },
          ],
          inventory: [
            {
              kind: 'Deployment',
              name: 'one-web',
              source: 'onReconcile.deployments[0]',
              readiness: {
                state: 'InProgress',
                message: '1/2 replicas available',
                since: '2026-12-01T11:58:00Z',
              },
            },
            {
              kind: 'Secret',
              name: 'one-db',
              source: 'onCreate.secrets[0]',
              readiness: { state: 'Current', since: '2026-12-01T10:00:00Z' },
            },
            { kind: 'ConfigMap', name: 'old', source: 'onReconcile.configMaps[10]' },
            {
              kind: 'ConfigMap',
              name: 'cfg',
              source: 'onReconcile.configMaps[2]',
              readiness: { state: 'Current', since: '2026-12-01T11:59:50Z' },
            },
          ],
        },
      },
      now,
    );
    expect(lines).toEqual([
      'Shop shop/one',
      '  Ready: False ChildNotReady: Deployment one-web: 1/2 replicas available for 2m',
      '  Synced: True ReconcileSucceeded for 45s',
      '',
      '  STEP                        CHILD               STATE       SINCE  REASON',
      '  onCreate.secrets[0]         Secret one-db       Current     2h',
      '  onReconcile.configMaps[2]   ConfigMap cfg       Current     10s',
      '  onReconcile.configMaps[10]  ConfigMap old       -           -',
      '  onReconcile.deployments[0]  Deployment one-web  InProgress  2m     1/2 replicas available',
    ]);
  });

  it('says when the CR was not reconciled yet and has no children', () => {
    expect(formatExplain({ kind: 'Shop', metadata: { name: 'new' } }, now)).toEqual([
      'Shop new',
      '  Ready: unknown (not reconciled yet)',
      '  Synced: unknown (not reconciled yet)',
      '  no children recorded',
    ]);
  });

  it('ago rounds to seconds, minutes, hours and days', () => {
    expect(ago('2026-12-01T11:59:59Z', now)).toBe('1s');
    expect(ago('2026-12-01T11:50:00Z', now)).toBe('10m');
    expect(ago('2026-12-01T07:00:00Z', now)).toBe('5h');
    expect(ago('2026-11-20T12:00:00Z', now)).toBe('11d');
    expect(ago('not a time', now)).toBe('?');
  });
});

describe('formatExplain revision (docs/reference/runtime.md §24)', () => {
  it('prints the Katalog revision of the last reconcile and a pin', () => {
    const lines = formatExplain(
      {
        kind: 'Shop',
        metadata: { name: 'one', annotations: { 'orkestra.konductor.io/revision': 'abc1234567' } },
        status: { katalogRevision: '0123456789', conditions: [] },
      },
      now,
    );
    expect(lines).toContain('  Revision: 0123456789 (pinned to abc1234567)');
  });
});

describe('formatExplain shard (docs/reference/runtime.md §25)', () => {
  it('names the replica that owns a CR of a sharded operator, and a hand-off under way', () => {
    const explain = (labels: Record<string, string>) =>
      formatExplain({ kind: 'Shop', metadata: { name: 'one', labels }, status: { conditions: [] } }, now);
    expect(explain({ 'orkestra.konductor.io/shard': 'op-7d9f-0a1b2c3d' })).toContain(
      '  Shard: op-7d9f-0a1b2c3d',
    );
    expect(
      explain({ 'orkestra.konductor.io/shard': 'op-7d9f-0a1b2c3d', 'orkestra.konductor.io/drain': 'true' }),
    ).toContain('  Shard: op-7d9f-0a1b2c3d (handing over to another shard)');
    expect(explain({}).some((line) => line.includes('Shard'))).toBe(false);
  });
});

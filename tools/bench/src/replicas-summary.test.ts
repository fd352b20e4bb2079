import { describe, expect, it } from 'vitest';
import type { SystemResult } from './measure-system.js';
import { formatReplicaTable, summarizeReplicas } from './replicas-summary.js';
import type { ReplicaRun } from './replicas-summary.js';

const result = (convergenceMs: number): SystemResult =>
  ({
    convergenceMs,
    writesPerNewCr: { child: 4, status: 1, cr: 1, events: 0, other: 0 },
    apiServerCpuMs: 1000,
    cpu: { ms: 500, reconciles: 100, msPerReconcile: 5, reconcilesPerCr: 1 },
  }) as unknown as SystemResult;
const replica = (rssMb: number, reconciles: number, sharderPatches = 0) => ({
  shard: 's',
  rssBytes: rssMb * 1024 * 1024,
  cpuMs: 10,
  reconciles,
  sharderPatches,
});
const run = (replicas: number, round: number, ms: number, doubles: string[] = []): ReplicaRun => ({
  replicas,
  round,
  result: result(ms),
  perReplica: replicas === 1 ? [replica(100, 100)] : [replica(80, 60, 100), replica(70, 40)],
  childObjectsWritten: 400,
  doubleReconciles: doubles,
});

describe('summarizeReplicas', () => {
  it('gives medians and ranges per replica count, the busiest replica’s share and the double reconciles', () => {
    const summaries = summarizeReplicas([
      run(2, 0, 3000),
      run(1, 0, 5000),
      run(2, 1, 2000, ['configmaps ns/x']),
      run(1, 1, 4000),
      run(2, 2, 2500),
    ]);
    expect(summaries.map((s) => s.replicas)).toEqual([1, 2]);
    const two = summaries[1];
    expect(two?.convergenceMs).toEqual({ median: 2500, min: 2000, max: 3000, n: 3 });
    expect(two?.writesPerCr.median).toBe(6);
    expect(two?.maxReplicaRssMb.median).toBe(80);
    expect(two?.totalRssMb.median).toBe(150);
    expect(two?.busiestShare.median).toBe(0.6);
    expect(two?.sharderPatches.median).toBe(100);
    expect(two?.doubleReconciles).toEqual({ median: 0, min: 0, max: 1, n: 3 });
    expect(formatReplicaTable(100, summaries)).toContain('| 2 | 3 | 2500 (2000–3000) | 6.00 |');
  });
});

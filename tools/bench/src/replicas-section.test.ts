import { describe, expect, it } from 'vitest';
import { isReplicasDocument, replicasSection } from './replicas-section.js';
import type { ReplicaSummary } from './replicas-summary.js';

const s = (median: number) => ({ median, min: median, max: median, n: 3 });
const summary = (replicas: number, convergenceMs: number, apiServerCpuMs: number): ReplicaSummary => ({
  replicas,
  rounds: 3,
  convergenceMs: s(convergenceMs),
  writesPerCr: s(9),
  apiServerCpuMs: s(apiServerCpuMs),
  operatorCpuMs: s(1000),
  maxReplicaRssMb: s(200),
  totalRssMb: s(200 * replicas),
  busiestShare: s(1 / replicas),
  sharderPatches: s(0),
  doubleReconciles: s(0),
});

describe('replicasSection (docs/performance.md, "Sharded")', () => {
  const doc = {
    settings: { command: 'pnpm bench --replicas 1,2 --size 1000', replicas: [1, 2] },
    environment: {
      date: '2026-12-06T00:00:00.000Z',
      durationS: 600,
      cpus: 2,
      loadAverage1m: { start: 1, end: 2 },
    },
    sizes: [{ size: 1000, summaries: [summary(1, 20_000, 20_000), summary(2, 16_000, 24_000)] }],
  };

  it('tells replicas results from size documents', () => {
    expect(isReplicasDocument(doc)).toBe(true);
    expect(isReplicasDocument({ size: 100, settings: {}, rounds: [] })).toBe(false);
  });

  it('names the command, the table and the speed-up with the API server share of the cores', () => {
    const text = replicasSection([doc]);
    expect(text).toContain('`pnpm bench --replicas 1,2 --size 1000`');
    expect(text).toContain('| 2 | 3 | 16000 |');
    // 20 000 ÷ 16 000 = 1.25; 24 000 ms of API server CPU over 16 000 ms on 2 cores = 75 %;
    // 1 000 ms of operator CPU over the same = 3 %.
    expect(text).toContain('2 replicas: speed-up 1.25×, API server 75 % and operators 3 % of the 2 cores');
  });

  it('is empty without replicas runs', () => {
    expect(replicasSection([])).toBe('');
  });
});

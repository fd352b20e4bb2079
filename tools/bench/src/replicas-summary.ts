/**
 * `pnpm bench --replicas 1,2,4` (docs/reference/runtime.md §25): Orkestra sharded over N runtime
 * processes, each count once per round on its own fresh control plane. This file summarizes the
 * runs: medians and ranges over rounds per replica count, and the table printed at the end.
 */
import type { SystemResult } from './measure-system.js';
import type { ReplicaSample } from './orkestra-runner.js';
import { spread } from './stats.js';
import type { Spread } from './stats.js';

/** ReplicaRun is one replica count's run in one round. */
export interface ReplicaRun {
  readonly replicas: number;
  readonly round: number;
  readonly result: SystemResult;
  /** Each replica's RSS (after a full collection), CPU since it started, reconciles and sharder patches, at the end. */
  readonly perReplica: readonly ReplicaSample[];
  /** Child objects written by the sharded operator (from the audit log). */
  readonly childObjectsWritten: number;
  /** Child objects written by two shards' identities (`resource namespace/name`): double reconciles. */
  readonly doubleReconciles: readonly string[];
}

/** ReplicaSummary is one replica count over every round. */
export interface ReplicaSummary {
  readonly replicas: number;
  readonly rounds: number;
  readonly convergenceMs: Spread;
  /** Writes per new CR (children, status, CR, events, other), summed over the replicas. */
  readonly writesPerCr: Spread;
  readonly apiServerCpuMs: Spread;
  /** Operator CPU over the convergence and settle span, summed over replicas, ms. */
  readonly operatorCpuMs: Spread;
  /** The largest replica's RSS at the end, MiB. */
  readonly maxReplicaRssMb: Spread;
  /** Every replica's RSS at the end, summed, MiB. */
  readonly totalRssMb: Spread;
  /** Reconciles finished by the busiest replica ÷ by all (1/N is an even split). */
  readonly busiestShare: Spread;
  readonly sharderPatches: Spread;
  readonly doubleReconciles: Spread;
}

const MB = 1024 * 1024;

function writesOf(result: SystemResult): number | null {
  const w = result.writesPerNewCr;
  return w == null ? null : w.child + w.status + w.cr + w.events + w.other;
}

/** summarizeReplicas groups the runs by replica count, in increasing order. */
export function summarizeReplicas(runs: readonly ReplicaRun[]): ReplicaSummary[] {
  const counts = [...new Set(runs.map((r) => r.replicas))].sort((a, b) => a - b);
  return counts.map((replicas) => {
    const of = runs.filter((r) => r.replicas === replicas);
    const each = <T>(read: (run: ReplicaRun) => T): T[] => of.map(read);
    return {
      replicas,
      rounds: of.length,
      convergenceMs: spread(each((r) => r.result.convergenceMs)),
      writesPerCr: spread(each((r) => writesOf(r.result))),
      apiServerCpuMs: spread(each((r) => r.result.apiServerCpuMs)),
      operatorCpuMs: spread(each((r) => r.result.cpu?.ms)),
      maxReplicaRssMb: spread(each((r) => Math.max(...r.perReplica.map((p) => p.rssBytes)) / MB)),
      totalRssMb: spread(each((r) => r.perReplica.reduce((a, p) => a + p.rssBytes, 0) / MB)),
      busiestShare: spread(
        each((r) => {
          const total = r.perReplica.reduce((a, p) => a + p.reconciles, 0);
          return total === 0 ? null : Math.max(...r.perReplica.map((p) => p.reconciles)) / total;
        }),
      ),
      sharderPatches: spread(each((r) => r.perReplica.reduce((a, p) => a + p.sharderPatches, 0))),
      doubleReconciles: spread(each((r) => r.doubleReconciles.length)),
    };
  });
}

function cell(s: Spread, digits = 0): string {
  if (s.median == null) return '–';
  const f = (v: number | null): string => (v == null ? '?' : v.toFixed(digits));
  return s.n > 1 && s.min !== s.max ? `${f(s.median)} (${f(s.min)}–${f(s.max)})` : f(s.median);
}

/** formatReplicaTable prints the summaries as a Markdown table: medians, ranges in brackets. */
export function formatReplicaTable(size: number, summaries: readonly ReplicaSummary[]): string {
  const rows = [
    `Orkestra sharded, ${size} CRs: median (range) over rounds`,
    '',
    '| replicas | rounds | convergence ms | writes/CR | operator CPU ms (sum) | API server CPU ms | largest replica RSS MiB | RSS MiB (sum) | busiest share | sharder patches | double reconciles |',
    '| -------: | -----: | -------------: | --------: | --------------------: | ----------------: | ----------------------: | ------------: | ------------: | --------------: | ----------------: |',
  ];
  for (const s of summaries)
    rows.push(
      `| ${s.replicas} | ${s.rounds} | ${cell(s.convergenceMs)} | ${cell(s.writesPerCr, 2)} | ${cell(s.operatorCpuMs)} | ${cell(s.apiServerCpuMs)} | ${cell(s.maxReplicaRssMb, 1)} | ${cell(s.totalRssMb, 1)} | ${cell(s.busiestShare, 2)} | ${cell(s.sharderPatches)} | ${cell(s.doubleReconciles)} |`,
    );
  return rows.join('\n');
}

/**
 * The benchmark's output: the results object written to `bench/results/latest.json` (the keys the
 * issue asks for at the top, the details of every system below) and the table printed at the end.
 */
import type { SystemResult } from './measure-system.js';
import type { RawFloorResult } from './raw-floor.js';
import { ratio, round } from './stats.js';

/** Outcome is a phase's result or why it could not run. */
export type Outcome<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string };

/** NotRun names a measurement that could not run and why. */
interface NotRun {
  readonly measurement: string;
  readonly reason: string;
}

/** BenchInput is everything one run produced. */
export interface BenchInput {
  readonly size: number;
  readonly settings: Readonly<Record<string, unknown>>;
  readonly environment: Readonly<Record<string, unknown>>;
  readonly floor: Outcome<RawFloorResult>;
  readonly orkestra: Outcome<SystemResult>;
  /** Null when the peer was not requested (`--no-peer`). */
  readonly peer: { readonly name: string; readonly outcome: Outcome<SystemResult> } | null;
}

/** BenchResults is the JSON document: headline figures (Orkestra's) first, then details. */
export interface BenchResults {
  readonly size: number;
  readonly convergenceRatio: number | null;
  readonly idleRequestsPerCrHour: number | null;
  readonly noopResyncWrites: number | null;
  readonly oneFieldChangeWrites: number | null;
  readonly latencyP50Ms: number | null;
  readonly latencyP99Ms: number | null;
  readonly rssMbPer1kCrs: number | null;
  readonly peer: string | null;
  readonly peerRatio: number | null;
  readonly notRun: readonly NotRun[];
  readonly settings: Readonly<Record<string, unknown>>;
  readonly environment: Readonly<Record<string, unknown>>;
  readonly floor: RawFloorResult | { readonly error: string };
  readonly orkestra: SystemResult | { readonly error: string };
  readonly peerResult: SystemResult | { readonly error: string } | null;
}

const valueOf = <T>(o: Outcome<T>): T | undefined => (o.ok ? o.value : undefined);
const detail = <T>(o: Outcome<T>): T | { readonly error: string } => (o.ok ? o.value : { error: o.reason });

/** buildResults turns one run's outcomes into the results document. */
export function buildResults(input: BenchInput): BenchResults {
  const floor = valueOf(input.floor);
  const ork = valueOf(input.orkestra);
  const peer = input.peer == null ? undefined : valueOf(input.peer.outcome);
  const notRun: NotRun[] = [];
  if (!input.floor.ok)
    notRun.push({ measurement: 'raw floor (convergenceRatio)', reason: input.floor.reason });
  if (!input.orkestra.ok) {
    notRun.push({
      measurement:
        'Orkestra (convergenceRatio, idleRequestsPerCrHour, noopResyncWrites, oneFieldChangeWrites, latency, rssMbPer1kCrs, peerRatio)',
      reason: input.orkestra.reason,
    });
  } else if (ork != null && ork.edit.resyncShare > 0.5) {
    notRun.push({
      measurement: 'oneFieldChangeWrites',
      reason: `resync writes were ${Math.round(ork.edit.resyncShare * 100)}% of the edit window's writes`,
    });
  } else if (ork?.noopResyncWrites == null) {
    notRun.push({ measurement: 'noopResyncWrites', reason: 'no resync was due during the idle window' });
  }
  if (input.peer == null)
    notRun.push({ measurement: 'peer (peerRatio)', reason: 'not requested (--no-peer)' });
  else if (!input.peer.outcome.ok) {
    notRun.push({ measurement: `peer ${input.peer.name} (peerRatio)`, reason: input.peer.outcome.reason });
  }
  return {
    size: input.size,
    convergenceRatio: round(ratio(ork?.convergenceMs, floor?.convergenceMs), 3),
    idleRequestsPerCrHour: round(ork?.idleRequestsPerCrHour, 2),
    noopResyncWrites: round(ork?.noopResyncWrites, 3),
    oneFieldChangeWrites:
      ork == null || ork.edit.resyncShare > 0.5 ? null : round(ork.oneFieldChangeWrites, 2),
    latencyP50Ms: round(ork?.edit.latencyMs.p50, 1),
    latencyP99Ms: round(ork?.edit.latencyMs.p99, 1),
    rssMbPer1kCrs: round(ork?.memory.rssMbPer1kCrs, 1),
    peer: input.peer?.name ?? null,
    peerRatio: round(ratio(ork?.convergenceMs, peer?.convergenceMs), 3),
    notRun,
    settings: input.settings,
    environment: input.environment,
    floor: detail(input.floor),
    orkestra: detail(input.orkestra),
    peerResult: input.peer == null ? null : detail(input.peer.outcome),
  };
}

const fmt = (value: number | null | undefined, digits = 1): string =>
  value == null || !Number.isFinite(value) ? 'n/a' : value.toFixed(digits);

/** formatTable renders the results side by side: goal, Orkestra, the peer, the raw floor. */
export function formatTable(results: BenchResults): string {
  const ork = 'convergenceMs' in results.orkestra ? results.orkestra : undefined;
  const peer =
    results.peerResult != null && 'convergenceMs' in results.peerResult ? results.peerResult : undefined;
  const floor = 'convergenceMs' in results.floor ? results.floor : undefined;
  const peerName = results.peer ?? 'peer';
  const mb = (s: SystemResult | undefined): string => fmt(s?.memory.rssMbPer1kCrs);
  const writesCell = (s: SystemResult | undefined): string => {
    if (s == null) return 'n/a';
    if (s.edit.resyncShare > 0.5) {
      const r = s.edit.rawPerEdit;
      return `n/a: resyncs dominate (raw ${fmt(r.child, 1)} child, ${fmt(r.status, 1)} status, ${fmt(r.cr, 1)} CR)`;
    }
    const w = s.edit.perEdit;
    return `${fmt(s.oneFieldChangeWrites, 2)} (${fmt(w.child, 2)} child, ${fmt(w.status, 2)} status; +${fmt(w.events, 2)} events)`;
  };
  const rows: [string, string, string, string, string][] = [
    ['measurement', 'goal', 'orkestra', peerName, 'raw floor'],
    [
      `convergence, ${results.size} CRs (ms)`,
      '',
      fmt(ork?.convergenceMs, 0),
      fmt(peer?.convergenceMs, 0),
      fmt(floor?.convergenceMs, 0),
    ],
    [
      '  ÷ raw floor',
      '≤ 1.2',
      fmt(results.convergenceRatio, 2),
      fmt(ratio(peer?.convergenceMs, floor?.convergenceMs), 2),
      '1.00',
    ],
    [`  orkestra ÷ ${peerName}`, '', fmt(results.peerRatio, 2), '', ''],
    [
      'idle requests / CR / hour',
      '0',
      fmt(ork?.idleRequestsPerCrHour, 2),
      fmt(peer?.idleRequestsPerCrHour, 2),
      '',
    ],
    ['writes per no-op resync', '0', fmt(ork?.noopResyncWrites, 3), fmt(peer?.noopResyncWrites, 3), ''],
    [
      '  (resyncs due / reconciles seen)',
      '',
      `${fmt(ork?.idle.resyncs, 0)} / ${fmt(ork?.idle.reconciles, 0)}`,
      `${fmt(peer?.idle.resyncs, 0)} / ${fmt(peer?.idle.reconciles, 0)}`,
      '',
    ],
    ['writes per one-field change', '1 + ≤ 1', writesCell(ork), writesCell(peer), ''],
    ['edit → child p50 (ms)', '50', fmt(ork?.edit.latencyMs.p50), fmt(peer?.edit.latencyMs.p50), ''],
    ['edit → child p99 (ms)', '250', fmt(ork?.edit.latencyMs.p99), fmt(peer?.edit.latencyMs.p99), ''],
    ['RSS MB per 1k CRs', '< 150', mb(ork), mb(peer), ''],
    ['  heap MB per 1k CRs', '', fmt(ork?.memory.heapMbPer1kCrs), fmt(peer?.memory.heapMbPer1kCrs), ''],
  ];
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  const line = (r: readonly string[]): string =>
    r
      .map((cell, c) => cell.padEnd(widths[c]!))
      .join('  ')
      .trimEnd();
  const out = [line(rows[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)];
  for (const n of results.notRun) out.push(`not run: ${n.measurement}: ${n.reason}`);
  return out.join('\n');
}

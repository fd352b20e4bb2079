/**
 * The method's arithmetic: the order the systems run in each round (rotated, so no system always
 * goes first or last on a growing API server) and the summary over rounds (the median and the
 * range of every figure; a single round is never quoted alone).
 */
import type { BenchResults } from './bench-report.js';
import type { SystemResult } from './measure-system.js';
import { spread } from './stats.js';
import { totalWrites } from './write-classes.js';
import type { Spread } from './stats.js';

/**
 * rotatedOrder is `systems` rotated left by `round` places: round 0 runs them as given, round 1
 * starts with the second, and so on.
 *
 * @example
 * rotatedOrder(['floor', 'orkestra', 'kro'], 1); // ['orkestra', 'kro', 'floor']
 */
export function rotatedOrder<T>(systems: readonly T[], round: number): T[] {
  if (systems.length === 0) return [];
  const k = ((round % systems.length) + systems.length) % systems.length;
  return [...systems.slice(k), ...systems.slice(0, k)];
}

/** HEADLINE_KEYS are the top-level figures of a round document that are summarized over rounds. */
export const HEADLINE_KEYS = [
  'convergenceRatio',
  'fullFloorRatio',
  'idleRequestsPerCrHour',
  'noopResyncWrites',
  'oneFieldChangeWrites',
  'latencyP50Ms',
  'latencyP99Ms',
  'rssMbPer1kCrs',
  'peerRatio',
  'peerDefaultRatio',
] as const;
export type HeadlineKey = (typeof HEADLINE_KEYS)[number];

/** SystemSpread is one system's figures over rounds. */
export interface SystemSpread {
  readonly name: string;
  readonly rounds: number;
  readonly convergenceMs: Spread;
  readonly idleRequestsPerCrHour: Spread;
  /** Lease requests per hour at idle (leader election), from the audit log. */
  readonly idleLeaseRequestsPerHour: Spread;
  readonly noopResyncWrites: Spread;
  readonly oneFieldChangeWrites: Spread;
  readonly latencyP50Ms: Spread;
  readonly latencyP99Ms: Spread;
  readonly rssMbPer1kCrs: Spread;
  /** RSS with every CR cached (after the idle window), MiB. */
  readonly rssFullMb: Spread;
  readonly heapMbPer1kCrs: Spread;
  readonly cpuMsPerReconcile: Spread;
  readonly reconcilesPerCr: Spread;
  /** Keys the resync queued over convergence, per new CR (Orkestra only). */
  readonly resyncsPerCr: Spread;
  /** Writes from first create to settled, per new CR, the CR creates left out. */
  readonly writesPerNewCr: Spread;
  /** The Events among them. */
  readonly eventsPerNewCr: Spread;
  /** The writes to the CR object itself among them (finalizers). */
  readonly crWritesPerNewCr: Spread;
}

/** FloorSpread is a floor's convergence time over rounds. */
export interface FloorSpread {
  readonly convergenceMs: Spread;
}

/** RoundsSummary is the part of the results document computed over rounds. */
export interface RoundsSummary {
  /** Each headline figure: median, minimum and maximum over rounds. */
  readonly spreads: Readonly<Record<HeadlineKey, Spread>>;
  readonly floor: FloorSpread;
  readonly fullFloor: FloorSpread;
  readonly orkestra: SystemSpread | null;
  readonly peer: SystemSpread | null;
  readonly peerDefault: SystemSpread | null;
  /** Rounds in which Orkestra converged faster than kro (at 30 s resync, at its default resync). */
  readonly fasterThanPeer: { readonly rounds: number; readonly of: number };
  readonly fasterThanPeerDefault: { readonly rounds: number; readonly of: number };
}

const systemOf = (detail: SystemResult | { readonly error: string } | null): SystemResult | undefined =>
  detail != null && 'convergenceMs' in detail ? detail : undefined;

const convergenceOf = (
  detail: { readonly convergenceMs: number } | { readonly error: string } | null,
): number | null => (detail != null && 'convergenceMs' in detail ? detail.convergenceMs : null);

function systemSpread(results: readonly (SystemResult | undefined)[]): SystemSpread | null {
  const measured = results.filter((r): r is SystemResult => r != null);
  const first = measured[0];
  if (first == null) return null;
  const of = (pick: (r: SystemResult) => number | null | undefined): Spread => spread(measured.map(pick));
  return {
    name: first.name,
    rounds: measured.length,
    convergenceMs: of((r) => r.convergenceMs),
    idleRequestsPerCrHour: of((r) => r.idleRequestsPerCrHour),
    idleLeaseRequestsPerHour: of((r) => r.idleLeaseRequestsPerHour),
    noopResyncWrites: of((r) => r.noopResyncWrites),
    oneFieldChangeWrites: of((r) => (r.edit.resyncShare > 0.5 ? null : r.oneFieldChangeWrites)),
    // A timed-out edit ends the phase; its latencies are a lower bound, not a measurement.
    latencyP50Ms: of((r) => (r.edit.timedOutAt != null ? null : r.edit.latencyMs.p50)),
    latencyP99Ms: of((r) => (r.edit.timedOutAt != null ? null : r.edit.latencyMs.p99)),
    rssMbPer1kCrs: of((r) => r.memory.rssMbPer1kCrs),
    rssFullMb: of((r) => r.memory.full.rssBytes / 1_048_576),
    heapMbPer1kCrs: of((r) => r.memory.heapMbPer1kCrs),
    cpuMsPerReconcile: of((r) => r.cpu?.msPerReconcile),
    reconcilesPerCr: of((r) => r.cpu?.reconcilesPerCr),
    resyncsPerCr: of((r) => r.cpu?.resyncsPerCr),
    writesPerNewCr: of((r) => (r.writesPerNewCr == null ? null : totalWrites(r.writesPerNewCr))),
    eventsPerNewCr: of((r) => r.writesPerNewCr?.events),
    crWritesPerNewCr: of((r) => r.writesPerNewCr?.cr),
  };
}

function wins(
  rounds: readonly BenchResults[],
  key: 'peerRatio' | 'peerDefaultRatio',
): { rounds: number; of: number } {
  const measured = rounds.map((r) => r[key]).filter((v): v is number => v != null);
  return { rounds: measured.filter((v) => v < 1).length, of: measured.length };
}

/** summarizeRounds computes medians and ranges over the round documents. */
export function summarizeRounds(rounds: readonly BenchResults[]): RoundsSummary {
  const spreads = Object.fromEntries(
    HEADLINE_KEYS.map((key) => [key, spread(rounds.map((r) => r[key]))]),
  ) as Record<HeadlineKey, Spread>;
  return {
    spreads,
    floor: { convergenceMs: spread(rounds.map((r) => convergenceOf(r.floor))) },
    fullFloor: { convergenceMs: spread(rounds.map((r) => convergenceOf(r.fullFloor))) },
    orkestra: systemSpread(rounds.map((r) => systemOf(r.orkestra))),
    peer: systemSpread(rounds.map((r) => systemOf(r.peerResult))),
    peerDefault: systemSpread(rounds.map((r) => systemOf(r.peerDefaultResult))),
    fasterThanPeer: wins(rounds, 'peerRatio'),
    fasterThanPeerDefault: wins(rounds, 'peerDefaultRatio'),
  };
}

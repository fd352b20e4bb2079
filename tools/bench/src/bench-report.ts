/**
 * The benchmark's output: the results object written to `bench/results/latest.json` (the keys the
 * issue asks for at the top, the details of every system below); size-document.ts summarizes rounds.
 */
import type { SystemResult } from './measure-system.js';
import type { FullFloorResult } from './full-floor.js';
import type { RawFloorResult } from './raw-floor.js';
import { ratio, round } from './stats.js';

/** Outcome is a phase's result or why it could not run. */
export type Outcome<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string };

/** NotRun names a measurement that could not run and why. */
export interface NotRun {
  readonly measurement: string;
  readonly reason: string;
}

/** BenchInput is everything one run produced. */
export interface BenchInput {
  readonly size: number;
  readonly settings: Readonly<Record<string, unknown>>;
  readonly environment: Readonly<Record<string, unknown>>;
  readonly floor: Outcome<RawFloorResult>;
  /** The full floor (children with Orkestra's metadata plus one status write per CR). */
  readonly fullFloor?: Outcome<FullFloorResult>;
  readonly orkestra: Outcome<SystemResult>;
  /** Null when the peer was not requested (`--no-peer`); kro at a 30 s resync, like Orkestra. */
  readonly peer: { readonly name: string; readonly outcome: Outcome<SystemResult> } | null;
  /** kro at its default resync period; null when not requested. */
  readonly peerDefault?: { readonly name: string; readonly outcome: Outcome<SystemResult> } | null;
}

/** BenchResults is the JSON document: headline figures (Orkestra's) first, then details. */
export interface BenchResults {
  readonly size: number;
  readonly convergenceRatio: number | null;
  /** Orkestra ÷ the full floor (the writes an operator must make). */
  readonly fullFloorRatio: number | null;
  readonly idleRequestsPerCrHour: number | null;
  readonly noopResyncWrites: number | null;
  readonly oneFieldChangeWrites: number | null;
  readonly latencyP50Ms: number | null;
  readonly latencyP99Ms: number | null;
  readonly rssMbPer1kCrs: number | null;
  readonly peer: string | null;
  readonly peerRatio: number | null;
  /** Orkestra ÷ kro at its default resync period. */
  readonly peerDefaultRatio: number | null;
  readonly notRun: readonly NotRun[];
  readonly settings: Readonly<Record<string, unknown>>;
  readonly environment: Readonly<Record<string, unknown>>;
  readonly floor: RawFloorResult | { readonly error: string };
  readonly fullFloor: FullFloorResult | { readonly error: string } | null;
  readonly orkestra: SystemResult | { readonly error: string };
  readonly peerResult: SystemResult | { readonly error: string } | null;
  readonly peerDefaultResult: SystemResult | { readonly error: string } | null;
}

const valueOf = <T>(o: Outcome<T>): T | undefined => (o.ok ? o.value : undefined);
const detail = <T>(o: Outcome<T>): T | { readonly error: string } => (o.ok ? o.value : { error: o.reason });

/** buildResults turns one run's outcomes into the results document. */
export function buildResults(input: BenchInput): BenchResults {
  const floor = valueOf(input.floor);
  const ork = valueOf(input.orkestra);
  const peer = input.peer == null ? undefined : valueOf(input.peer.outcome);
  const fullFloor = input.fullFloor == null ? undefined : valueOf(input.fullFloor);
  const peerDefault = input.peerDefault == null ? undefined : valueOf(input.peerDefault.outcome);
  const notRun: NotRun[] = [];
  if (input.fullFloor != null && !input.fullFloor.ok)
    notRun.push({ measurement: 'full floor (fullFloorRatio)', reason: input.fullFloor.reason });
  if (input.peerDefault != null && !input.peerDefault.outcome.ok) {
    notRun.push({
      measurement: `peer ${input.peerDefault.name} (peerDefaultRatio)`,
      reason: input.peerDefault.outcome.reason,
    });
  }
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
  for (const [name, result] of [
    ['Orkestra', ork],
    [input.peer?.name, peer],
    [input.peerDefault?.name, peerDefault],
  ] as const) {
    if (result?.edit.timedOutAt != null) {
      notRun.push({
        measurement: `${name ?? result.name} edit latency (latencyP50Ms, latencyP99Ms)`,
        reason: `edit ${result.edit.timedOutAt}'s child change was not seen within 30 s; the edits stopped there`,
      });
    }
  }
  if (input.peer == null)
    notRun.push({ measurement: 'peer (peerRatio)', reason: 'not requested (--no-peer)' });
  else if (!input.peer.outcome.ok) {
    notRun.push({ measurement: `peer ${input.peer.name} (peerRatio)`, reason: input.peer.outcome.reason });
  }
  return {
    size: input.size,
    convergenceRatio: round(ratio(ork?.convergenceMs, floor?.convergenceMs), 3),
    fullFloorRatio: round(ratio(ork?.convergenceMs, fullFloor?.convergenceMs), 3),
    idleRequestsPerCrHour: round(ork?.idleRequestsPerCrHour, 2),
    noopResyncWrites: round(ork?.noopResyncWrites, 3),
    oneFieldChangeWrites:
      ork == null || ork.edit.resyncShare > 0.5 ? null : round(ork.oneFieldChangeWrites, 2),
    latencyP50Ms: ork?.edit.timedOutAt != null ? null : round(ork?.edit.latencyMs.p50, 1),
    latencyP99Ms: ork?.edit.timedOutAt != null ? null : round(ork?.edit.latencyMs.p99, 1),
    rssMbPer1kCrs: round(ork?.memory.rssMbPer1kCrs, 1),
    peer: input.peer?.name ?? null,
    peerRatio: round(ratio(ork?.convergenceMs, peer?.convergenceMs), 3),
    peerDefaultRatio: round(ratio(ork?.convergenceMs, peerDefault?.convergenceMs), 3),
    notRun,
    settings: input.settings,
    environment: input.environment,
    floor: detail(input.floor),
    fullFloor: input.fullFloor == null ? null : detail(input.fullFloor),
    orkestra: detail(input.orkestra),
    peerResult: input.peer == null ? null : detail(input.peer.outcome),
    peerDefaultResult: input.peerDefault == null ? null : detail(input.peerDefault.outcome),
  };
}

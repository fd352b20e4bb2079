/**
 * Fixtures for the report tests: a measured system and one round with every system in it.
 */
import { buildResults } from './bench-report.js';
import type { BenchInput } from './bench-report.js';
import type { SystemResult } from './measure-system.js';

/** fakeSystem is a SystemResult with round numbers; `overrides` replaces whole top-level fields. */
export const fakeSystem = (
  name: string,
  convergenceMs: number,
  p99 = 80,
  overrides: Partial<SystemResult> = {},
): SystemResult => ({
  name,
  crs: 110,
  convergenceMs,
  createMs: 100,
  settleMs: 500,
  writesPerNewCr: { child: 4, status: 1, cr: 1, events: 1, other: 0 },
  idle: {
    windowMs: 60_000,
    requests: 0,
    writes: 0,
    resyncs: 220,
    reconciles: 220,
    breakdown: '',
    source: 'apiserver_request_total',
    leaseRequests: null,
  },
  idleRequestsPerCrHour: 0,
  noopResyncWrites: 0,
  edit: {
    edits: 50,
    windowMs: 20_000,
    perEdit: { child: 1, status: 1, cr: 0, events: 1, other: 0 },
    rawPerEdit: { child: 1, status: 1, cr: 0, events: 1, other: 0 },
    resyncShare: 0,
    latencyMs: { p50: 20, p99: p99, max: p99 },
    breakdown: '',
  },
  cpu: { ms: 500, reconciles: 100, msPerReconcile: 5, reconcilesPerCr: 1 },
  oneFieldChangeWrites: 2,
  memory: {
    empty: { rssBytes: 100 * 1_048_576, method: 'test' },
    full: { rssBytes: 150 * 1_048_576, method: 'test' },
    rssMbPer1kCrs: 50,
    heapMbPer1kCrs: 10,
  },
  ...overrides,
});

/** fakeRound is one round: Orkestra `ork` ms, kro `kro` ms, full floor `full` ms, floor 1000 ms. */
export const fakeRound = (
  ork: number,
  kro: number,
  full: number,
  p99 = 80,
): ReturnType<typeof buildResults> => {
  const input: BenchInput = {
    size: 1000,
    settings: { order: ['floor', 'orkestra'] },
    environment: { loadAverage1m: { start: 1, end: 2 } },
    floor: { ok: true, value: { convergenceMs: 1000, applies: 4000 } },
    fullFloor: { ok: true, value: { convergenceMs: full, writes: 5000 } },
    orkestra: { ok: true, value: fakeSystem('orkestra', ork, p99) },
    peer: { name: 'kro v0.9.4 (30 s resync)', outcome: { ok: true, value: fakeSystem('kro', kro) } },
    peerDefault: {
      name: 'kro v0.9.4 (default resync)',
      outcome: { ok: false, reason: 'Go is not installed' },
    },
  };
  return buildResults(input);
};

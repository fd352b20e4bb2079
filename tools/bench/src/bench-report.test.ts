import { describe, expect, it } from 'vitest';
import { buildResults } from './bench-report.js';
import type { BenchInput } from './bench-report.js';
import { fakeSystem } from './fixtures.js';
import type { SystemResult } from './measure-system.js';

const system = (name: string, convergenceMs: number): SystemResult =>
  fakeSystem(name, convergenceMs, 80, {
    edit: {
      edits: 50,
      windowMs: 20_000,
      perEdit: { child: 1, status: 1, cr: 0, events: 1, other: 0 },
      rawPerEdit: { child: 1, status: 1.5, cr: 0, events: 1, other: 0 },
      resyncShare: 0.2,
      latencyMs: { p50: 20.04, p99: 80.06, max: 90 },
      breakdown: '',
    },
    memory: {
      empty: { rssBytes: 100, method: 'test' },
      full: { rssBytes: 200, method: 'test' },
      rssMbPer1kCrs: 42.123,
      heapMbPer1kCrs: 20,
    },
  });

const input = (overrides: Partial<BenchInput> = {}): BenchInput => ({
  size: 100,
  settings: {},
  environment: {},
  floor: { ok: true, value: { convergenceMs: 1000, applies: 400 } },
  fullFloor: { ok: true, value: { convergenceMs: 1200, writes: 500 } },
  orkestra: { ok: true, value: system('orkestra', 1100) },
  peer: { name: 'kro v0.9.4', outcome: { ok: true, value: system('kro v0.9.4', 2200) } },
  ...overrides,
});

describe('buildResults', () => {
  it('puts Orkestra’s figures at the top and divides by the floor and the peer', () => {
    const results = buildResults(input());
    expect(results).toMatchObject({
      size: 100,
      convergenceRatio: 1.1,
      idleRequestsPerCrHour: 0,
      noopResyncWrites: 0,
      oneFieldChangeWrites: 2,
      fullFloorRatio: 0.917,
      latencyP50Ms: 20,
      latencyP99Ms: 80.1,
      rssMbPer1kCrs: 42.1,
      peer: 'kro v0.9.4',
      peerRatio: 0.5,
      notRun: [],
    });
  });

  it('keeps a system’s convergence when its edits timed out, and reports the latency as not run', () => {
    const timedOut = (name: string, convergenceMs: number): SystemResult => {
      const base = system(name, convergenceMs);
      return { ...base, edit: { ...base.edit, edits: 3, timedOutAt: 3 } };
    };
    const results = buildResults(
      input({ peer: { name: 'kro v0.9.4', outcome: { ok: true, value: timedOut('kro v0.9.4', 2200) } } }),
    );
    expect(results.peerRatio).toBe(0.5);
    expect(results.latencyP99Ms).toBe(80.1);
    expect(results.notRun).toEqual([
      {
        measurement: 'kro v0.9.4 edit latency (latencyP50Ms, latencyP99Ms)',
        reason: "edit 3's child change was not seen within 30 s; the edits stopped there",
      },
    ]);
    const ours = buildResults(input({ orkestra: { ok: true, value: timedOut('orkestra', 1100) } }));
    expect(ours.latencyP99Ms).toBeNull();
    expect(ours.convergenceRatio).toBe(1.1);
  });

  it('reports what could not run instead of numbers', () => {
    const results = buildResults(
      input({
        orkestra: { ok: false, reason: 'createKatalogRuntime is not exported' },
        peer: { name: 'kro v0.9.4', outcome: { ok: false, reason: 'Go is not installed' } },
      }),
    );
    expect(results.convergenceRatio).toBeNull();
    expect(results.latencyP99Ms).toBeNull();
    expect(results.peerRatio).toBeNull();
    expect(results.orkestra).toEqual({ error: 'createKatalogRuntime is not exported' });
    expect(results.notRun.map((n) => n.reason)).toEqual([
      'createKatalogRuntime is not exported',
      'Go is not installed',
    ]);
  });

  it('has peer null without a peer', () => {
    const results = buildResults(input({ peer: null }));
    expect(results.peer).toBeNull();
    expect(results.peerRatio).toBeNull();
    expect(results.notRun).toEqual([
      { measurement: 'peer (peerRatio)', reason: 'not requested (--no-peer)' },
    ]);
  });
});

describe('writes per one-field change', () => {
  it('are kept for Orkestra when only the peer’s resync writes dominate', () => {
    const busy = system('kro v0.9.4', 2200);
    const saturated: SystemResult = {
      ...busy,
      edit: {
        ...busy.edit,
        resyncShare: 0.9,
        rawPerEdit: { child: 221.6, status: 2, cr: 55.4, events: 0, other: 0 },
      },
    };
    const results = buildResults(
      input({ peer: { name: 'kro v0.9.4', outcome: { ok: true, value: saturated } } }),
    );
    expect(results.oneFieldChangeWrites).toBe(2);
  });

  it('leaves Orkestra’s figure null and says why', () => {
    const busy = system('orkestra', 1100);
    const saturated: SystemResult = { ...busy, edit: { ...busy.edit, resyncShare: 0.75 } };
    const results = buildResults(input({ orkestra: { ok: true, value: saturated } }));
    expect(results.oneFieldChangeWrites).toBeNull();
    expect(results.notRun).toEqual([
      { measurement: 'oneFieldChangeWrites', reason: "resync writes were 75% of the edit window's writes" },
    ]);
  });
});

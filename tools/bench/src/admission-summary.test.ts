import { describe, expect, it } from 'vitest';
import {
  admissionSection,
  isAdmissionDocument,
  latencyOf,
  replaceAdmissionSection,
  summarizeRounds,
} from './admission-summary.js';
import type { AdmissionDocument, AdmissionRound } from './admission-summary.js';

const load = { before: 1, after: 2 };
const round = (
  r: number,
  plain: number,
  policy: number,
  hook: number,
  lists: [number, number],
): AdmissionRound => ({
  round: r,
  admission: {
    order: ['plain', 'guarded', 'hooked'],
    noRuleMs: { p50: plain, p99: plain * 4, n: 10 },
    policyMs: { p50: policy, p99: policy * 4, n: 10 },
    webhookMs: { p50: hook, p99: hook * 4, n: 10 },
    loadAvg1m: load,
  },
  conversion: {
    storageVersion: 'v1',
    convertedVersion: 'v2',
    storageVersionMs: { p50: 1, p99: 2, n: 10 },
    convertedMs: { p50: 2, p99: 5, n: 10 },
    listStorageMs: [lists[0], lists[0] + 50, lists[0]],
    listConvertedMs: [lists[1], lists[1], lists[1] + 50],
    loadAvg1m: load,
  },
  migration: {
    from: 'v1',
    to: 'v2',
    objects: 100,
    operatorStartMs: 1000,
    wallMs: 11_000,
    objectsPerSecond: 9.1,
    rewriteObjectsPerSecond: 10,
    loadAvg1m: load,
  },
});

describe('summarizeRounds', () => {
  it('takes the added latency within each round, then the median and range over rounds', () => {
    // Round 2's no-rule p50 is slow; its added figure is still its own round's difference.
    const s = summarizeRounds(
      [
        round(1, 10, 11, 18, [100, 110]),
        round(2, 30, 32, 35, [100, 120]),
        round(3, 12, 12.5, 20, [100, 130]),
      ],
      100,
    );
    expect(s.admission.policyAddedP50Ms).toEqual({ median: 1, min: 0.5, max: 2, n: 3 });
    expect(s.admission.webhookAddedP50Ms).toEqual({ median: 8, min: 5, max: 8, n: 3 });
    expect(s.admission.webhookAddedP99Ms).toEqual({ median: 32, min: 20, max: 32, n: 3 });
    // (median converted LIST − median stored LIST) ÷ N
    expect(s.conversion.listPerObjectMs).toEqual({ median: 0.2, min: 0.1, max: 0.3, n: 3 });
    expect(s.migration.objectsPerSecond).toEqual({ median: 9.1, min: 9.1, max: 9.1, n: 3 });
  });

  it('leaves a phase no round reached unmeasured', () => {
    expect(summarizeRounds([{ round: 1 }], 10).migration.wallMs).toEqual({
      median: null,
      min: null,
      max: null,
      n: 0,
    });
    expect(latencyOf([])).toEqual({ p50: null, p99: null, n: 0 });
  });
});

const doc = (complete: boolean): AdmissionDocument => ({
  benchmark: 'admission',
  complete,
  settings: {
    command: 'pnpm --filter @orkestra/bench admission --crs 100 --rounds 1',
    crs: 100,
    rounds: 1,
    workers: 4,
    listPairs: 10,
    migrationPauseMs: 20,
  },
  environment: {
    date: '2026-12-06T15:40:00.000Z',
    durationS: 60,
    commit: 'abc123def456',
    node: 'v20',
    cpus: 2,
    cpuModel: 'cpu',
    loadAverage1m: { start: 1, end: 2 },
    cpuShare: null,
    logs: '/tmp/x',
  },
  rounds: [round(1, 10, 11, 18, [100, 110])],
  summary: summarizeRounds([round(1, 10, 11, 18, [100, 110])], 100),
});

describe('admissionSection', () => {
  it('names the command and the commit of the run it renders, and says when the run stopped early', () => {
    expect(isAdmissionDocument(doc(true))).toBe(true);
    const text = admissionSection([doc(true)]);
    expect(text).toContain(
      '`pnpm --filter @orkestra/bench admission --crs 100 --rounds 1`: 1 of 1 rounds, started 2026-12-06T15:40:00.000Z at commit abc123def456',
    );
    expect(text).toContain(
      '| added by a webhook rule (operator admission webhook): p50 ms | 8.00 [8.00 – 8.00] |',
    );
    expect(admissionSection([doc(false)])).toContain('**the run stopped early**');
  });

  it('goes before the method on a page without it, and replaces itself on a page with it', () => {
    const page = '# Performance\n\n## This run\n\nx\n\n## Method\n\ny\n';
    const once = replaceAdmissionSection(page, admissionSection([doc(true)]));
    expect(once.indexOf('## Admission and conversion')).toBeLessThan(once.indexOf('## Method'));
    expect(replaceAdmissionSection(once, admissionSection([doc(true)]))).toBe(once);
    const other = replaceAdmissionSection(once, admissionSection([doc(false)]));
    expect(other).toContain('stopped early');
    expect(other.match(/## Admission and conversion/g)).toHaveLength(1);
  });
});

import { describe, expect, it } from 'vitest';
import { fakeRound } from './fixtures.js';
import { formatSizeTable, formatSpread, mergeSameMethod, sizeDocument } from './size-document.js';

const doc = () =>
  sizeDocument({
    size: 1000,
    rounds: [
      fakeRound(1100, 1000, 1000, 60),
      fakeRound(900, 1000, 1000, 90),
      fakeRound(1500, 1000, 1000, 70),
    ],
    settings: {},
    environment: {},
  });

describe('sizeDocument', () => {
  it('keeps the one-round keys at the top, as medians, and every round below', () => {
    const d = doc();
    expect(d).toMatchObject({
      size: 1000,
      convergenceRatio: 1.1,
      fullFloorRatio: 1.1,
      latencyP99Ms: 70,
      peer: 'kro v0.9.4 (30 s resync)',
      peerRatio: 1.1,
      peerDefaultRatio: null,
    });
    expect(d.rounds).toHaveLength(3);
    expect(Object.keys(d.rounds[0] ?? {})).toEqual(
      expect.arrayContaining(['convergenceRatio', 'fullFloorRatio', 'peerRatio']),
    );
    expect(d.notRun).toEqual([
      {
        measurement: 'peer kro v0.9.4 (default resync) (peerDefaultRatio)',
        reason: 'Go is not installed',
        round: 0,
      },
      {
        measurement: 'peer kro v0.9.4 (default resync) (peerDefaultRatio)',
        reason: 'Go is not installed',
        round: 1,
      },
      {
        measurement: 'peer kro v0.9.4 (default resync) (peerDefaultRatio)',
        reason: 'Go is not installed',
        round: 2,
      },
    ]);
  });
});

describe('formatSpread', () => {
  it('prints the median with the range, a single round as such, and n/a without data', () => {
    expect(formatSpread({ median: 1.1, min: 0.9, max: 1.5, n: 3 }, 2)).toBe('1.10 [0.90–1.50]');
    expect(formatSpread({ median: 7, min: 7, max: 7, n: 1 }, 0)).toBe('7 (1 round)');
    expect(formatSpread({ median: null, min: null, max: null, n: 0 })).toBe('n/a');
  });
});

describe('formatSizeTable', () => {
  it('lines up medians and ranges per system and says what did not run', () => {
    const table = formatSizeTable(doc());
    const convergence = table.split('\n').find((l) => l.startsWith('convergence, 1000 CRs'));
    expect(convergence?.split(/\s{2,}/)).toEqual([
      'convergence, 1000 CRs (ms)',
      '1100 [900–1500]',
      '1000 [1000–1000]',
      'n/a',
      '1000 [1000–1000]',
      '1000 [1000–1000]',
    ]);
    expect(table).toContain('(faster in 1/3)');
    expect(table).toContain(
      'not run (round 3): peer kro v0.9.4 (default resync) (peerDefaultRatio): Go is not installed',
    );
  });
});

describe('mergeSameMethod (runs of one size and method, interleaved with others, as one section)', () => {
  const doc = (size: number, command: string, extra: Record<string, unknown> = {}) =>
    sizeDocument({
      size,
      rounds: [fakeRound(1100, 1000, 1000)],
      settings: { command, rounds: 1, concurrency: 8, ...extra },
      environment: {
        date: command,
        durationS: 100,
        loadAverage1m: { start: 1, end: 2 },
        cpuShare: { busy: 0.5, niced: 0.5, idle: 0 },
      },
    });

  it('joins same-method documents of a size into one with all their rounds and commands', () => {
    const merged = mergeSameMethod([doc(5000, 'a'), doc(5000, 'b')]);
    expect(merged).toHaveLength(1);
    expect(merged[0]?.rounds).toHaveLength(2);
    expect(merged[0]?.settings['rounds']).toBe(2);
    expect(String(merged[0]?.settings['command'])).toBe('`a`, then `b` (2 runs, one section)');
    expect(merged[0]?.environment['durationS']).toBe(200);
  });

  it('keeps documents of another size or another method apart', () => {
    expect(
      mergeSameMethod([doc(5000, 'a'), doc(1000, 'b'), doc(5000, 'c', { concurrency: 4 })]),
    ).toHaveLength(3);
  });
});

import { describe, expect, it } from 'vitest';
import { claimDifferences } from './chaos-report.js';
import type { ChaosResults, FileResults, TestOutcome } from './chaos-results.js';

const outcome = (name: string, state: TestOutcome['state']): TestOutcome => ({ name, state, durationMs: 1 });
const file = (name: string, tests: TestOutcome[]): FileResults => ({
  file: name,
  ranAt: '2026-12-06T00:00:00.000Z',
  tests,
  figures: [],
  notes: [],
});
const results = (...files: FileResults[]): ChaosResults => ({
  version: 1,
  files: Object.fromEntries(files.map((f) => [f.file, f])),
});

describe('claimDifferences (the CI comparison of a fresh chaos run with docs/chaos-results.json)', () => {
  const documented = results(file('test/a.chaos.test.ts', [outcome('a', 'passed')]));

  it('ignores an opt-in file the fresh run skipped entirely and the documents do not have', () => {
    const fresh = results(
      file('test/a.chaos.test.ts', [outcome('a', 'passed')]),
      file('test/opt-in.chaos.test.ts', [outcome('kills', 'skipped')]),
    );
    expect(claimDifferences(documented, fresh)).toEqual([]);
  });

  it('reports a documented test that the fresh run skipped', () => {
    const fresh = results(file('test/a.chaos.test.ts', [outcome('a', 'skipped')]));
    expect(claimDifferences(documented, fresh)).toEqual([
      'test/a.chaos.test.ts: "a" skipped, documented passed',
    ]);
  });

  it('reports a file that ran and is not documented, and an outcome that changed', () => {
    const fresh = results(
      file('test/a.chaos.test.ts', [outcome('a', 'failed')]),
      file('test/new.chaos.test.ts', [outcome('n', 'passed')]),
    );
    expect(claimDifferences(documented, fresh)).toEqual([
      'test/a.chaos.test.ts: "a" failed, documented passed',
      'test/new.chaos.test.ts: ran but is not in the documented results',
    ]);
  });

  it('reports a documented file that did not run (a run split in two must compare both halves)', () => {
    const two = results(
      file('test/a.chaos.test.ts', [outcome('a', 'passed')]),
      file('test/idle.chaos.test.ts', [outcome('i', 'passed')]),
      file('test/opt-in.chaos.test.ts', [outcome('kills', 'skipped')]),
    );
    const fresh = results(file('test/a.chaos.test.ts', [outcome('a', 'passed')]));
    expect(claimDifferences(two, fresh)).toEqual(['test/idle.chaos.test.ts: documented but did not run']);
  });
});

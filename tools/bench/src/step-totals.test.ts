import { describe, expect, it } from 'vitest';
import { meanStepMs, parseStepTotals } from './step-totals.js';

describe('step totals (orkestra_reconcile_step_duration_seconds)', () => {
  const text = [
    '# TYPE orkestra_reconcile_step_duration_seconds histogram',
    'orkestra_reconcile_step_duration_seconds_bucket{controller="a",step="status",le="0.1"} 3',
    'orkestra_reconcile_step_duration_seconds_sum{controller="a",step="status"} 0.3',
    'orkestra_reconcile_step_duration_seconds_count{controller="a",step="status"} 3',
    'orkestra_reconcile_step_duration_seconds_sum{controller="b",step="status"} 0.1',
    'orkestra_reconcile_step_duration_seconds_count{controller="b",step="status"} 1',
    'orkestra_reconcile_step_duration_seconds_sum{controller="a",step="desired"} 0.02',
    'orkestra_reconcile_step_duration_seconds_count{controller="a",step="desired"} 4',
    'other_metric_sum{step="status"} 9',
  ].join('\n');

  it('sums each step over controllers, from _sum and _count only', () => {
    const totals = parseStepTotals(text);
    expect(totals['status']?.count).toBe(4);
    expect(totals['status']?.sum).toBeCloseTo(0.4);
    expect(totals['desired']).toEqual({ sum: 0.02, count: 4 });
  });

  it('gives the mean ms per reconcile between two readings, leaving out steps that did not run', () => {
    const before = { status: { sum: 0.1, count: 1 }, prune: { sum: 1, count: 2 } };
    const after = { status: { sum: 0.4, count: 4 }, prune: { sum: 1, count: 2 } };
    expect(meanStepMs(before, after)).toEqual({ status: 100 });
  });
});

/**
 * Where a reconcile's time goes, step by step, from the operator's own
 * `orkestra_reconcile_step_duration_seconds` histogram (docs/reference/runtime.md §21): the
 * runtime child reads its sums and counts, the benchmark takes the difference over a span.
 */
import type { StepTotal } from './child-protocol.js';

const SERIES = /^orkestra_reconcile_step_duration_seconds_(sum|count)\{([^}]*)\}\s+(\S+)/;

/** parseStepTotals sums each step's `_sum` and `_count` over every controller in a /metrics text. */
export function parseStepTotals(text: string): Record<string, StepTotal> {
  const totals: Record<string, { sum: number; count: number }> = {};
  for (const line of text.split('\n')) {
    const m = SERIES.exec(line);
    if (m == null) continue;
    const step = /(?:^|,)step="([^"]*)"/.exec(m[2] ?? '')?.[1];
    const value = Number(m[3]);
    if (step == null || !Number.isFinite(value)) continue;
    const t = (totals[step] ??= { sum: 0, count: 0 });
    if (m[1] === 'sum') t.sum += value;
    else t.count += value;
  }
  return totals;
}

/** meanStepMs is each step's mean ms per recorded reconcile between two readings; steps not run in between are left out. */
export function meanStepMs(
  before: Readonly<Record<string, StepTotal>>,
  after: Readonly<Record<string, StepTotal>>,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [step, a] of Object.entries(after)) {
    const b = before[step] ?? { sum: 0, count: 0 };
    const count = a.count - b.count;
    if (count > 0) out[step] = Math.round(((a.sum - b.sum) / count) * 1000 * 100) / 100;
  }
  return out;
}

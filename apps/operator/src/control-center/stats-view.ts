/**
 * The operator view of the Control Center API (docs/reference/runtime.md §23.2): queue depth and
 * workers per entry, reconcile rate and errors, read from the operator's own metrics registry
 * (no API request).
 */
import type { Registry } from 'prom-client';

/** EntryStats is one entry's queue and workers and its reconcile counters. */
export interface EntryStats {
  readonly entry: string;
  readonly queueDepth: number;
  readonly workers: number;
  readonly activeWorkers: number;
  readonly reconciles: number;
  readonly errors: number;
  /** Reconciles per second over the last minute (0 until two samples exist). */
  readonly reconcileRate: number;
}

/** OperatorStats is `GET /api/v1/operator`. */
export interface OperatorStats {
  readonly operator: string;
  readonly leader: boolean;
  readonly ready: boolean;
  readonly entries: readonly EntryStats[];
}

/** QueueSample is what the runtime reports per entry now. */
export interface QueueSample {
  readonly entry: string;
  readonly queueDepth: number;
  readonly workers: number;
  readonly activeWorkers: number;
}

async function sumByController(registry: Registry, name: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const metric = registry.getSingleMetric(name);
  if (metric == null) return out;
  const data = await metric.get();
  for (const value of data.values) {
    const controller = String(value.labels['controller'] ?? '');
    out.set(controller, (out.get(controller) ?? 0) + value.value);
  }
  return out;
}

/**
 * createStatsReader returns a function that reads the operator's stats; it keeps the reconcile
 * totals of the last minute to compute the rate.
 */
export function createStatsReader(options: {
  readonly registry: Registry;
  readonly now?: () => number;
}): (input: {
  operator: string;
  leader: boolean;
  ready: boolean;
  queues: readonly QueueSample[];
}) => Promise<OperatorStats> {
  const now = options.now ?? Date.now;
  const samples: { at: number; totals: Map<string, number> }[] = [];
  return async (input) => {
    const totals = await sumByController(options.registry, 'controller_runtime_reconcile_total');
    const errors = await sumByController(options.registry, 'controller_runtime_reconcile_errors_total');
    const at = now();
    samples.push({ at, totals });
    while (samples.length > 2 && at - (samples[1]?.at ?? at) >= 60_000) samples.shift();
    if (samples.length > 120) samples.shift();
    const first = samples[0];
    const seconds = first == null ? 0 : (at - first.at) / 1000;
    return {
      operator: input.operator,
      leader: input.leader,
      ready: input.ready,
      entries: input.queues.map((queue) => {
        const total = totals.get(queue.entry) ?? 0;
        const before = first?.totals.get(queue.entry) ?? total;
        return {
          ...queue,
          reconciles: total,
          errors: errors.get(queue.entry) ?? 0,
          reconcileRate: seconds > 0 ? Math.round(((total - before) / seconds) * 100) / 100 : 0,
        };
      }),
    };
  };
}

/**
 * The autoscaler's decision (docs/reference/runtime.md §15) as a pure function: inputs of one tick, the state
 * carried between ticks and the resolved configuration in; new values, the changes and the next
 * state out. No clock, no I/O: `now` is passed in.
 */
import { AutoscaleRule, evaluateConditions, expandAutoscaleProfile, parseDuration } from '@orkestra/types';
import type { Autoscale, Condition } from '@orkestra/types';

/** AutoscaleInputs are one tick's measurements (docs/reference/runtime.md §15 "Inputs"). */
export interface AutoscaleInputs {
  /** Dirty keys not in flight. */
  readonly depth: number;
  /** Current capacity W. */
  readonly workers: number;
  /** Time-weighted in-flight ÷ W over the last interval, in %. */
  readonly busyPercent: number;
  /** 95th percentile (nearest rank) of recent reconcile durations, 0 when none. */
  readonly p95Ms: number;
  /** Retryable failures ÷ finished reconciles in the last interval, in %. */
  readonly errorRatePercent: number;
  /** What rule conditions read under `cross.<name>` (katalog.md §18.2); absent names do not pass. */
  readonly cross?: Readonly<Record<string, unknown>>;
}

/** AutoscaleBounds is an inclusive range. */
export interface AutoscaleBounds {
  readonly min: number;
  readonly max: number;
}

/** AutoscaleRuleConfig is a rule with its `do` resolved (resync in ms). */
export interface AutoscaleRuleConfig {
  readonly name: string;
  readonly when: readonly Condition[];
  readonly anyOf: readonly Condition[];
  readonly do: AutoscaleValues;
}

/** AutoscaleValues are values for some of the three outputs. */
export interface AutoscaleValues {
  readonly workers?: number;
  readonly queueDepth?: number;
  readonly resyncMs?: number;
}

/** AutoscaleConfig is an entry's `autoscale` block with every default applied (docs/reference/katalog.md §18). */
export interface AutoscaleConfig {
  readonly intervalMs: number;
  readonly cooldownMs: number;
  readonly workers: AutoscaleBounds;
  readonly queueDepth: AutoscaleBounds;
  readonly resyncMs: AutoscaleBounds;
  /** The declared values W0, D0, R0; a restart starts from them. */
  readonly declared: { readonly workers: number; readonly queueDepth: number; readonly resyncMs: number };
  readonly targets: {
    readonly busyPercent: number;
    readonly queuePerWorker: number;
    readonly p95Ms: number;
    readonly errorRatePercent: number;
  };
  readonly rules: readonly AutoscaleRuleConfig[];
}

/** AutoscaleOverride is a rule override in force. */
export interface AutoscaleOverride {
  /** The rule that passed last. */
  readonly rule: string;
  readonly lastPassedAt: number;
  readonly values: AutoscaleValues;
  /** The values in force when the override began; restored for `touched` keys when it is released. */
  readonly before: { readonly workers: number; readonly queueDepth: number; readonly resyncMs: number };
  readonly touched: readonly AutoscaleTarget[];
}

/** AutoscaleState is carried from one tick to the next; start from `initialAutoscaleState`. */
export interface AutoscaleState {
  /** Current queue depth limit D. */
  readonly queueDepth: number;
  /** Current resync interval R. */
  readonly resyncMs: number;
  readonly lastWorkersChangeAt: number | null;
  readonly lastResyncUpAt: number | null;
  readonly lastQueueShedAt: number | null;
  /** Start of the current idle streak (the start of the window the first idle tick measured). */
  readonly idleSince: number | null;
  /** Start of the current healthy streak. */
  readonly healthySince: number | null;
  readonly override: AutoscaleOverride | null;
}

/** AutoscaleTarget names one of the three outputs. */
export const AutoscaleTarget = {
  Workers: 'workers',
  QueueDepth: 'queueDepth',
  Resync: 'resync',
} as const;
export type AutoscaleTarget = (typeof AutoscaleTarget)[keyof typeof AutoscaleTarget];

/** AutoscaleReason says why a value changed. */
export const AutoscaleReason = {
  /** Backlog on saturated workers, not unhealthy: workers up. */
  Pressure: 'pressure',
  /** Idle throughout the cooldown: workers down. */
  Idle: 'idle',
  /** Errors or latency: resync up, queue depth limit down. */
  Unhealthy: 'unhealthy',
  /** The queue is at 80 % of its limit: limit up. */
  Backlog: 'backlog',
  /** Healthy throughout the cooldown: back toward the declared value. */
  Healthy: 'healthy',
  /** A rule override. */
  Rule: 'rule',
  /** No rule passed for the cooldown: the pre-override value is restored. */
  RuleReleased: 'rule-released',
  /** The value was outside the bounds. */
  Bounds: 'bounds',
} as const;
export type AutoscaleReason = (typeof AutoscaleReason)[keyof typeof AutoscaleReason];

/** AutoscaleChange is one value the tick changes. */
export interface AutoscaleChange {
  readonly target: AutoscaleTarget;
  readonly from: number;
  readonly to: number;
  readonly reason: AutoscaleReason;
  /** The rule, for `rule` and `rule-released`. */
  readonly rule?: string;
}

/** AutoscaleSignals are the four predicates of the algorithm for one tick. */
export interface AutoscaleSignals {
  readonly pressure: boolean;
  readonly unhealthy: boolean;
  readonly healthy: boolean;
  readonly idle: boolean;
}

/** AutoscaleDecision is the outcome of one tick. */
export interface AutoscaleDecision {
  readonly workers: number;
  readonly queueDepth: number;
  readonly resyncMs: number;
  /** Empty when nothing changes. */
  readonly changes: readonly AutoscaleChange[];
  readonly signals: AutoscaleSignals;
  /** The `metrics.*` values rule conditions saw. */
  readonly metrics: Readonly<Record<string, number | boolean>>;
  /** The rule whose override is in force after this tick, or null. */
  readonly rule: string | null;
  readonly state: AutoscaleState;
}

const DAY_MS = 86_400_000;

/**
 * resolveAutoscaleConfig applies docs/reference/katalog.md §18's defaults: workers `[W0, min(50, 4 W0)]`, queue
 * depth `[D0, 10 D0]`, resync `[R0, min(6 R0, 24h)]`, clamped so that 1 ≤ min ≤ max ≤ 50 for workers.
 */
export function resolveAutoscaleConfig(
  autoscale: Pick<
    Autoscale,
    'interval' | 'cooldown' | 'workers' | 'queueDepth' | 'resync' | 'targets' | 'rules'
  > & { readonly profile?: Autoscale['profile'] },
  entry: {
    readonly workers?: number;
    readonly resync?: string;
    readonly queue?: { readonly maxDepth?: number };
  },
): AutoscaleConfig {
  const w0 = entry.workers ?? 3;
  const d0 = entry.queue?.maxDepth ?? 0;
  const r0 = parseDuration(entry.resync ?? '10m');
  // A profile (katalog.md §18.1) is the whole input: its rule comes from the declared values, and
  // the default bounds widen to take its values (cost-optimized goes below W0 and D0).
  const preset =
    autoscale.profile == null
      ? undefined
      : AutoscaleRule.parse(expandAutoscaleProfile(autoscale.profile, { workers: w0, maxDepth: d0 }).rule);
  const rules = preset == null ? autoscale.rules : [preset];
  const wMin = clamp(autoscale.workers?.min ?? Math.min(w0, preset?.do.workers ?? w0), 1, 50);
  const wMax = clamp(autoscale.workers?.max ?? Math.min(50, 4 * w0), wMin, 50);
  const qMin = autoscale.queueDepth?.min ?? Math.min(d0, preset?.do.queueDepth ?? d0);
  const qMax = Math.max(qMin, autoscale.queueDepth?.max ?? 10 * d0);
  const rMin = autoscale.resync?.min == null ? r0 : parseDuration(autoscale.resync.min);
  const rMax = Math.max(
    rMin,
    autoscale.resync?.max == null ? Math.min(6 * r0, DAY_MS) : parseDuration(autoscale.resync.max),
  );
  return {
    intervalMs: parseDuration(autoscale.interval),
    cooldownMs: parseDuration(autoscale.cooldown),
    workers: { min: wMin, max: wMax },
    queueDepth: { min: qMin, max: qMax },
    resyncMs: { min: rMin, max: rMax },
    declared: { workers: w0, queueDepth: d0, resyncMs: r0 },
    targets: { ...autoscale.targets },
    rules: rules.map((rule) => ({
      name: rule.name,
      when: rule.when,
      anyOf: rule.anyOf,
      do: {
        ...(rule.do.workers == null ? {} : { workers: rule.do.workers }),
        ...(rule.do.queueDepth == null ? {} : { queueDepth: rule.do.queueDepth }),
        ...(rule.do.resync == null ? {} : { resyncMs: parseDuration(rule.do.resync) }),
      },
    })),
  };
}

/** initialAutoscaleState is the state after a start: the declared values, no history. */
export function initialAutoscaleState(config: AutoscaleConfig): AutoscaleState {
  return {
    queueDepth: config.declared.queueDepth,
    resyncMs: config.declared.resyncMs,
    lastWorkersChangeAt: null,
    lastResyncUpAt: null,
    lastQueueShedAt: null,
    idleSince: null,
    healthySince: null,
    override: null,
  };
}

/**
 * decide computes one autoscaler tick (docs/reference/runtime.md §15). `now` is epoch milliseconds: cooldowns are
 * differences of it and rule time conditions read it as the current date.
 *
 * - `pressure` = depth > W × queuePerWorker and busy ≥ busyPercent; `unhealthy` = errRate ≥
 *   errorRatePercent or p95 > p95Ms; `healthy` = errRate < errorRatePercent / 2 and p95 ≤ p95Ms / 2;
 *   `idle` = depth = 0 and busy < busyPercent / 2.
 * - Workers: up to `min(max, max(W + 1, ⌈1.5 W⌉))` on pressure when not unhealthy (every tick);
 *   down to `max(min, W − max(1, ⌊W / 4⌋))` when idle throughout the last cooldown and no worker
 *   change within it.
 * - Resync (only when R0 > 0): `min(max, 2 R)` when unhealthy, at most once per cooldown;
 *   `max(min, R / 2)` when healthy throughout the last cooldown and R > R0.
 * - Queue depth limit (only when D0 > 0): `max(min, ⌊D / 2⌋)` when unhealthy, at most once per
 *   cooldown; else `min(max, 2 D)` when depth ≥ 0.8 D; else `max(D0, ⌊D / 2⌋)` when healthy
 *   throughout the last cooldown and D > D0.
 * - Rules first: the first rule whose gate passes (over `metrics.*` and time conditions) sets the
 *   keys its `do` names, clamped to the bounds; the override holds until no rule has passed for
 *   the cooldown, then the keys it set return to their values from before the override.
 * - A value found outside its bounds is brought back into them.
 *
 * A streak ("throughout the last cooldown") starts at the beginning of the interval measured by
 * its first tick, i.e. `now − interval` of that tick.
 */
export function decide(
  inputs: AutoscaleInputs,
  state: AutoscaleState,
  config: AutoscaleConfig,
  now: number,
): AutoscaleDecision {
  const { targets, cooldownMs, declared } = config;
  const W = inputs.workers;
  const D = state.queueDepth;
  const R = state.resyncMs;
  const { depth, busyPercent: busy, p95Ms: p95, errorRatePercent: errRate } = inputs;

  const signals: AutoscaleSignals = {
    pressure: depth > W * targets.queuePerWorker && busy >= targets.busyPercent,
    unhealthy: errRate >= targets.errorRatePercent || p95 > targets.p95Ms,
    healthy: errRate < targets.errorRatePercent / 2 && p95 <= targets.p95Ms / 2,
    idle: depth === 0 && busy < targets.busyPercent / 2,
  };
  const idleSince = signals.idle ? (state.idleSince ?? now - config.intervalMs) : null;
  const healthySince = signals.healthy ? (state.healthySince ?? now - config.intervalMs) : null;
  const idleThroughout = idleSince != null && now - idleSince >= cooldownMs;
  const healthyThroughout = healthySince != null && now - healthySince >= cooldownMs;
  const cooledDown = (at: number | null): boolean => at == null || now - at >= cooldownMs;

  const metrics = {
    queueDepth: depth,
    workers: W,
    workersBusyPercent: busy,
    workersIdlePercent: Math.max(0, 100 - busy),
    errorRatePercent: errRate,
    reconcileDurationP95Ms: p95,
    autoscaleActive:
      state.override != null ||
      W !== declared.workers ||
      D !== declared.queueDepth ||
      R !== declared.resyncMs,
  };

  // Rules first.
  const date = new Date(now);
  const passing = config.rules.find(
    (rule) =>
      evaluateConditions(
        { when: rule.when, anyOf: rule.anyOf },
        { metrics, cross: inputs.cross ?? {} },
        { now: () => date },
      ).passed,
  );
  let override = state.override;
  let released: AutoscaleOverride | null = null;
  if (passing != null) {
    const values = ruleValues(passing.do, config);
    const touched = new Set<AutoscaleTarget>(override?.touched ?? []);
    for (const target of keysOf(values)) touched.add(target);
    override = {
      rule: passing.name,
      lastPassedAt: now,
      values,
      before: override?.before ?? { workers: W, queueDepth: D, resyncMs: R },
      touched: [...touched],
    };
  } else if (override != null && now - override.lastPassedAt >= cooldownMs) {
    released = override;
    override = null;
  }

  const changes: AutoscaleChange[] = [];
  let lastWorkersChangeAt = state.lastWorkersChangeAt;
  let lastResyncUpAt = state.lastResyncUpAt;
  let lastQueueShedAt = state.lastQueueShedAt;

  // Workers.
  let workers = W;
  const wb = config.workers;
  if (override?.values.workers != null) {
    workers = override.values.workers;
    if (workers !== W)
      changes.push({ target: 'workers', from: W, to: workers, reason: 'rule', rule: override.rule });
  } else if (released?.touched.includes('workers') === true) {
    workers = clamp(released.before.workers, wb.min, wb.max);
    if (workers !== W)
      changes.push({ target: 'workers', from: W, to: workers, reason: 'rule-released', rule: released.rule });
  } else if (W < wb.min || W > wb.max) {
    workers = clamp(W, wb.min, wb.max);
    changes.push({ target: 'workers', from: W, to: workers, reason: 'bounds' });
  } else if (signals.pressure && !signals.unhealthy) {
    const up = Math.min(wb.max, Math.max(W + 1, Math.ceil(1.5 * W)));
    if (up > W) {
      workers = up;
      changes.push({ target: 'workers', from: W, to: up, reason: 'pressure' });
    }
  } else if (idleThroughout && cooledDown(state.lastWorkersChangeAt)) {
    const down = Math.max(wb.min, W - Math.max(1, Math.floor(W / 4)));
    if (down < W) {
      workers = down;
      changes.push({ target: 'workers', from: W, to: down, reason: 'idle' });
    }
  }
  if (workers !== W) lastWorkersChangeAt = now;

  // Resync interval (only when R0 > 0).
  let resyncMs = R;
  const rb = config.resyncMs;
  if (declared.resyncMs > 0) {
    if (override?.values.resyncMs != null) {
      resyncMs = override.values.resyncMs;
      if (resyncMs !== R)
        changes.push({ target: 'resync', from: R, to: resyncMs, reason: 'rule', rule: override.rule });
    } else if (released?.touched.includes('resync') === true) {
      resyncMs = clamp(released.before.resyncMs, rb.min, rb.max);
      if (resyncMs !== R)
        changes.push({
          target: 'resync',
          from: R,
          to: resyncMs,
          reason: 'rule-released',
          rule: released.rule,
        });
    } else if (R < rb.min || R > rb.max) {
      resyncMs = clamp(R, rb.min, rb.max);
      changes.push({ target: 'resync', from: R, to: resyncMs, reason: 'bounds' });
    } else if (signals.unhealthy) {
      const up = Math.min(rb.max, 2 * R);
      if (up > R && cooledDown(state.lastResyncUpAt)) {
        resyncMs = up;
        lastResyncUpAt = now;
        changes.push({ target: 'resync', from: R, to: up, reason: 'unhealthy' });
      }
    } else if (healthyThroughout && R > declared.resyncMs) {
      const down = Math.max(rb.min, Math.floor(R / 2));
      if (down < R) {
        resyncMs = down;
        changes.push({ target: 'resync', from: R, to: down, reason: 'healthy' });
      }
    }
  }

  // Queue depth limit (only when D0 > 0).
  let queueDepth = D;
  const qb = config.queueDepth;
  if (declared.queueDepth > 0) {
    if (override?.values.queueDepth != null) {
      queueDepth = override.values.queueDepth;
      if (queueDepth !== D) {
        changes.push({ target: 'queueDepth', from: D, to: queueDepth, reason: 'rule', rule: override.rule });
      }
    } else if (released?.touched.includes('queueDepth') === true) {
      queueDepth = clamp(released.before.queueDepth, qb.min, qb.max);
      if (queueDepth !== D) {
        changes.push({
          target: 'queueDepth',
          from: D,
          to: queueDepth,
          reason: 'rule-released',
          rule: released.rule,
        });
      }
    } else if (D < qb.min || D > qb.max) {
      queueDepth = clamp(D, qb.min, qb.max);
      changes.push({ target: 'queueDepth', from: D, to: queueDepth, reason: 'bounds' });
    } else if (signals.unhealthy) {
      const down = Math.max(qb.min, Math.floor(D / 2));
      if (down < D && cooledDown(state.lastQueueShedAt)) {
        queueDepth = down;
        lastQueueShedAt = now;
        changes.push({ target: 'queueDepth', from: D, to: down, reason: 'unhealthy' });
      }
    } else if (depth >= 0.8 * D) {
      const up = Math.min(qb.max, 2 * D);
      if (up > D) {
        queueDepth = up;
        changes.push({ target: 'queueDepth', from: D, to: up, reason: 'backlog' });
      }
    } else if (healthyThroughout && D > declared.queueDepth) {
      const down = Math.max(declared.queueDepth, Math.floor(D / 2));
      if (down < D) {
        queueDepth = down;
        changes.push({ target: 'queueDepth', from: D, to: down, reason: 'healthy' });
      }
    }
  }

  return {
    workers,
    queueDepth,
    resyncMs,
    changes,
    signals,
    metrics,
    rule: override?.rule ?? null,
    state: {
      queueDepth,
      resyncMs,
      lastWorkersChangeAt,
      lastResyncUpAt,
      lastQueueShedAt,
      idleSince,
      healthySince,
      override,
    },
  };
}

/** percentile95 is the 95th percentile (nearest rank) of `values`, 0 when empty. */
export function percentile95(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(0.95 * sorted.length) - 1)] ?? 0;
}

function ruleValues(values: AutoscaleValues, config: AutoscaleConfig): AutoscaleValues {
  const { workers, queueDepth, resyncMs } = values;
  return {
    ...(workers == null ? {} : { workers: clamp(workers, config.workers.min, config.workers.max) }),
    ...(queueDepth == null || config.declared.queueDepth <= 0
      ? {}
      : { queueDepth: clamp(queueDepth, config.queueDepth.min, config.queueDepth.max) }),
    ...(resyncMs == null || config.declared.resyncMs <= 0
      ? {}
      : { resyncMs: clamp(resyncMs, config.resyncMs.min, config.resyncMs.max) }),
  };
}

function keysOf(values: AutoscaleValues): AutoscaleTarget[] {
  const keys: AutoscaleTarget[] = [];
  if (values.workers != null) keys.push('workers');
  if (values.queueDepth != null) keys.push('queueDepth');
  if (values.resyncMs != null) keys.push('resync');
  return keys;
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}

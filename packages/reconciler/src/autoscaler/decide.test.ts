import { Autoscale } from '@orkestra/types';
import { describe, expect, it } from 'vitest';
import { decide, initialAutoscaleState, percentile95, resolveAutoscaleConfig } from './decide.js';
import type { AutoscaleConfig, AutoscaleDecision, AutoscaleInputs, AutoscaleState } from './decide.js';

const S = 1000;
const MIN = 60 * S;
// 2024-06-03 (a Monday) 12:00 UTC.
const NOON = Date.UTC(2024, 5, 3, 12, 0, 0);

function configOf(
  autoscale: unknown = {},
  entry = { workers: 4, resync: '10m', queue: { maxDepth: 100 } },
): AutoscaleConfig {
  return resolveAutoscaleConfig(Autoscale.parse(autoscale), entry);
}

const calm: AutoscaleInputs = { depth: 5, workers: 4, busyPercent: 60, p95Ms: 3000, errorRatePercent: 5 };
const idle: AutoscaleInputs = { depth: 0, workers: 4, busyPercent: 10, p95Ms: 3000, errorRatePercent: 5 };
const healthy: AutoscaleInputs = { depth: 5, workers: 4, busyPercent: 60, p95Ms: 1000, errorRatePercent: 1 };
const unhealthyErrors: AutoscaleInputs = {
  depth: 5,
  workers: 4,
  busyPercent: 60,
  p95Ms: 1000,
  errorRatePercent: 20,
};

/** Runs ticks every interval, feeding the decided worker count back as W, and returns every decision. */
function run(
  config: AutoscaleConfig,
  inputs: AutoscaleInputs | ((tick: number, workers: number) => AutoscaleInputs),
  ticks: number,
  start: { state?: AutoscaleState; workers?: number; now?: number } = {},
): { decisions: AutoscaleDecision[]; state: AutoscaleState; workers: number; now: number } {
  let state = start.state ?? initialAutoscaleState(config);
  let workers = start.workers ?? config.declared.workers;
  let now = start.now ?? NOON;
  const decisions: AutoscaleDecision[] = [];
  for (let i = 0; i < ticks; i++) {
    now += config.intervalMs;
    const base = typeof inputs === 'function' ? inputs(i, workers) : inputs;
    const decision = decide({ ...base, workers }, state, config, now);
    decisions.push(decision);
    state = decision.state;
    workers = decision.workers;
  }
  return { decisions, state, workers, now };
}

describe('resolveAutoscaleConfig', () => {
  it('applies the defaults of docs/reference/katalog.md §18', () => {
    const config = configOf();
    expect(config.intervalMs).toBe(15 * S);
    expect(config.cooldownMs).toBe(2 * MIN);
    expect(config.workers).toEqual({ min: 4, max: 16 });
    expect(config.queueDepth).toEqual({ min: 100, max: 1000 });
    expect(config.resyncMs).toEqual({ min: 10 * MIN, max: 60 * MIN });
    expect(config.declared).toEqual({ workers: 4, queueDepth: 100, resyncMs: 10 * MIN });
    expect(config.targets).toEqual({ busyPercent: 80, queuePerWorker: 5, p95Ms: 5000, errorRatePercent: 20 });
  });

  it('caps the default workers max at 50 and the resync max at 24h', () => {
    const config = configOf({}, { workers: 20, resync: '8h', queue: { maxDepth: 0 } });
    expect(config.workers).toEqual({ min: 20, max: 50 });
    expect(config.resyncMs.max).toBe(24 * 60 * MIN);
  });

  it('takes declared bounds and resolves rule durations', () => {
    const config = configOf({
      workers: { min: 2, max: 8 },
      resync: { min: '5m', max: '1h' },
      queueDepth: { min: 10, max: 50 },
      rules: [{ name: 'r', do: { resync: '30m' } }],
    });
    expect(config.workers).toEqual({ min: 2, max: 8 });
    expect(config.resyncMs).toEqual({ min: 5 * MIN, max: 60 * MIN });
    expect(config.queueDepth).toEqual({ min: 10, max: 50 });
    expect(config.rules[0]?.do).toEqual({ resyncMs: 30 * MIN });
  });
});

describe('decide: signals', () => {
  const config = configOf();
  it('computes pressure, unhealthy, healthy and idle from the targets', () => {
    const at = (inputs: AutoscaleInputs) =>
      decide(inputs, initialAutoscaleState(config), config, NOON).signals;
    // pressure needs depth > W × 5 (strictly) and busy ≥ 80.
    expect(at({ ...calm, depth: 21, busyPercent: 80 }).pressure).toBe(true);
    expect(at({ ...calm, depth: 20, busyPercent: 100 }).pressure).toBe(false);
    expect(at({ ...calm, depth: 100, busyPercent: 79 }).pressure).toBe(false);
    // unhealthy: errRate ≥ 20 or p95 > 5000.
    expect(at({ ...calm, errorRatePercent: 20 }).unhealthy).toBe(true);
    expect(at({ ...calm, p95Ms: 5001 }).unhealthy).toBe(true);
    expect(at({ ...calm, p95Ms: 5000, errorRatePercent: 19.9 }).unhealthy).toBe(false);
    // healthy: errRate < 10 and p95 ≤ 2500.
    expect(at({ ...calm, p95Ms: 2500, errorRatePercent: 9.9 }).healthy).toBe(true);
    expect(at({ ...calm, p95Ms: 2501, errorRatePercent: 0 }).healthy).toBe(false);
    expect(at({ ...calm, p95Ms: 0, errorRatePercent: 10 }).healthy).toBe(false);
    // idle: depth = 0 and busy < 40.
    expect(at({ ...calm, depth: 0, busyPercent: 39 }).idle).toBe(true);
    expect(at({ ...calm, depth: 0, busyPercent: 40 }).idle).toBe(false);
    expect(at({ ...calm, depth: 1, busyPercent: 0 }).idle).toBe(false);
  });
});

describe('decide: workers', () => {
  const config = configOf();
  const pressure: AutoscaleInputs = {
    depth: 500,
    workers: 4,
    busyPercent: 95,
    p95Ms: 3000,
    errorRatePercent: 5,
  };

  it('adds max(W + 1, ⌈1.5 W⌉) workers on pressure, every tick, up to max', () => {
    const { decisions } = run(config, pressure, 4);
    expect(decisions.map((d) => d.workers)).toEqual([6, 9, 14, 16]);
    expect(decisions[0]?.changes).toContainEqual({ target: 'workers', from: 4, to: 6, reason: 'pressure' });
    const small = configOf(
      { workers: { min: 1, max: 10 } },
      { workers: 1, resync: '0', queue: { maxDepth: 0 } },
    );
    expect(run(small, { ...pressure, workers: 1 }, 2).decisions.map((d) => d.workers)).toEqual([2, 3]);
  });

  it('adds no workers under pressure while unhealthy', () => {
    const { decisions } = run(config, { ...pressure, p95Ms: 6000 }, 3);
    expect(decisions.every((d) => d.workers === 4)).toBe(true);
    expect(decisions[0]?.changes.some((c) => c.target === 'workers')).toBe(false);
  });

  it('removes max(1, ⌊W/4⌋) workers only when idle throughout the cooldown', () => {
    const { decisions } = run(config, idle, 8, { workers: 12 });
    // Ticks at 15 s … 120 s; the first idle tick measured [0, 15 s], so the cooldown is complete at 120 s.
    expect(decisions.slice(0, 7).every((d) => d.changes.length === 0)).toBe(true);
    expect(decisions[7]?.changes).toEqual([{ target: 'workers', from: 12, to: 9, reason: 'idle' }]);
  });

  it('waits a whole cooldown after any worker change before the next scale-down', () => {
    const first = run(config, idle, 8, { workers: 12 });
    expect(first.workers).toBe(9);
    const next = run(config, idle, 8, { state: first.state, workers: first.workers, now: first.now });
    expect(next.decisions.slice(0, 7).every((d) => d.workers === 9)).toBe(true);
    expect(next.decisions[7]?.workers).toBe(7);
  });

  it('restarts the idle streak when a tick is not idle', () => {
    const { decisions } = run(config, (i) => (i === 5 ? calm : idle), 14, { workers: 12 });
    expect(decisions.slice(0, 13).every((d) => d.workers === 12)).toBe(true);
    expect(decisions[13]?.workers).toBe(9);
  });

  it('never goes below workers.min', () => {
    const { decisions } = run(config, idle, 40, { workers: 5 });
    expect(decisions.map((d) => d.workers).filter((w, i, all) => w !== all[i - 1])).toEqual([5, 4]);
    expect(Math.min(...decisions.map((d) => d.workers))).toBe(4);
  });

  it('brings a worker count outside the bounds back into them', () => {
    const decision = decide({ ...calm, workers: 30 }, initialAutoscaleState(config), config, NOON);
    expect(decision.changes).toEqual([{ target: 'workers', from: 30, to: 16, reason: 'bounds' }]);
  });
});

describe('decide: resync interval', () => {
  const config = configOf();

  it('doubles R when unhealthy, at most once per cooldown, up to max', () => {
    const { decisions } = run(config, unhealthyErrors, 40);
    const changes = decisions.flatMap((d, i) =>
      d.changes
        .filter((c) => c.target === 'resync')
        .map((c) => ({ tick: i, to: c.to / MIN, reason: c.reason })),
    );
    // Ticks every 15 s: first change at tick 0, then one per 2 minutes (8 ticks), capped at 60 min.
    expect(changes).toEqual([
      { tick: 0, to: 20, reason: 'unhealthy' },
      { tick: 8, to: 40, reason: 'unhealthy' },
      { tick: 16, to: 60, reason: 'unhealthy' },
    ]);
  });

  it('halves R toward R0 when healthy throughout the cooldown', () => {
    const up = run(config, unhealthyErrors, 9); // 10 → 20 → 40 min
    expect(up.state.resyncMs).toBe(40 * MIN);
    const down = run(config, healthy, 12, { state: up.state, now: up.now });
    const values = down.decisions.map((d) => d.resyncMs / MIN);
    expect(values.slice(0, 7)).toEqual([40, 40, 40, 40, 40, 40, 40]);
    expect(values.slice(7, 10)).toEqual([20, 10, 10]);
    expect(down.decisions[7]?.changes).toEqual([
      { target: 'resync', from: 40 * MIN, to: 20 * MIN, reason: 'healthy' },
    ]);
  });

  it('leaves R alone when neither unhealthy nor healthy', () => {
    const up = run(config, unhealthyErrors, 1);
    const after = run(config, calm, 20, { state: up.state, now: up.now });
    expect(after.decisions.every((d) => d.resyncMs === 20 * MIN)).toBe(true);
  });

  it('never changes resync when R0 is 0', () => {
    const config0 = configOf({}, { workers: 4, resync: '0', queue: { maxDepth: 0 } });
    const { decisions } = run(config0, unhealthyErrors, 10);
    expect(decisions.every((d) => d.resyncMs === 0 && d.changes.length === 0)).toBe(true);
  });
});

describe('decide: queue depth limit', () => {
  const config = configOf();

  it('doubles D when depth ≥ 0.8 D and not unhealthy, up to max', () => {
    const backlog = (_: number, workers: number): AutoscaleInputs => ({
      ...calm,
      workers,
      depth: 900,
      busyPercent: 50,
    });
    const { decisions } = run(config, backlog, 5);
    expect(decisions.map((d) => d.queueDepth)).toEqual([200, 400, 800, 1000, 1000]);
    expect(decisions[0]?.changes).toEqual([{ target: 'queueDepth', from: 100, to: 200, reason: 'backlog' }]);
    // depth just under 80 % of D does not grow it.
    expect(decide({ ...calm, depth: 79 }, initialAutoscaleState(config), config, NOON).queueDepth).toBe(100);
    expect(decide({ ...calm, depth: 80 }, initialAutoscaleState(config), config, NOON).queueDepth).toBe(200);
  });

  it('halves D when unhealthy, at most once per cooldown, not below min', () => {
    const grown = { ...initialAutoscaleState(config), queueDepth: 800 };
    const { decisions } = run(config, { ...unhealthyErrors, depth: 900 }, 20, { state: grown });
    const values = decisions.map((d) => d.queueDepth);
    expect(values[0]).toBe(400);
    expect(values.slice(1, 8).every((v) => v === 400)).toBe(true);
    expect(values[8]).toBe(200);
    expect(values[16]).toBe(100);
    expect(decisions[0]?.changes.find((c) => c.target === 'queueDepth')?.reason).toBe('unhealthy');
  });

  it('halves D back toward D0 when healthy throughout the cooldown', () => {
    const grown = { ...initialAutoscaleState(config), queueDepth: 800 };
    const { decisions } = run(config, healthy, 11, { state: grown });
    expect(decisions.map((d) => d.queueDepth)).toEqual([
      800, 800, 800, 800, 800, 800, 800, 400, 200, 100, 100,
    ]);
  });

  it('never changes the queue depth limit when D0 is 0', () => {
    const config0 = configOf({}, { workers: 4, resync: '10m', queue: { maxDepth: 0 } });
    const { decisions } = run(config0, { ...calm, depth: 900 }, 5);
    expect(decisions.every((d) => d.queueDepth === 0)).toBe(true);
  });
});

describe('decide: rules', () => {
  it('overrides the keys a passing rule sets, clamped, and leaves the others to the algorithm', () => {
    const config = configOf({
      rules: [
        { name: 'flood', when: [{ field: 'metrics.queueDepth', greaterThan: 50 }], do: { workers: 40 } },
      ],
    });
    const decision = decide({ ...unhealthyErrors, depth: 60 }, initialAutoscaleState(config), config, NOON);
    expect(decision.rule).toBe('flood');
    expect(decision.changes).toContainEqual({
      target: 'workers',
      from: 4,
      to: 16,
      reason: 'rule',
      rule: 'flood',
    });
    // resync is not set by the rule, so the algorithm still backs off.
    expect(decision.changes).toContainEqual({
      target: 'resync',
      from: 10 * MIN,
      to: 20 * MIN,
      reason: 'unhealthy',
    });
  });

  it('holds the override until no rule passed for the cooldown, then restores the previous value', () => {
    const config = configOf({
      rules: [
        { name: 'flood', when: [{ field: 'metrics.queueDepth', greaterThan: 50 }], do: { workers: 12 } },
      ],
    });
    // Tick 0 passes; later ticks are idle (would scale down) but the override holds for 2 minutes.
    const { decisions } = run(config, (i) => (i === 0 ? { ...calm, depth: 60 } : idle), 10);
    expect(decisions[0]?.workers).toBe(12);
    expect(decisions.slice(1, 8).every((d) => d.workers === 12 && d.rule === 'flood')).toBe(true);
    expect(decisions[8]?.rule).toBeNull();
    expect(decisions[8]?.changes).toEqual([
      { target: 'workers', from: 12, to: 4, reason: 'rule-released', rule: 'flood' },
    ]);
  });

  it('uses the first passing rule', () => {
    const config = configOf({
      rules: [
        { name: 'never', when: [{ field: 'metrics.workers', greaterThan: 100 }], do: { workers: 5 } },
        { name: 'first', when: [{ field: 'metrics.workers', greaterThan: 0 }], do: { workers: 6 } },
        { name: 'second', when: [{ field: 'metrics.workers', greaterThan: 0 }], do: { workers: 7 } },
      ],
    });
    expect(decide(calm, initialAutoscaleState(config), config, NOON).workers).toBe(6);
  });

  it('evaluates time conditions at `now`', () => {
    const config = configOf({
      rules: [
        {
          name: 'nightly-batch',
          when: [{ cron: '0 1 * * *', duration: '2h' }],
          do: { workers: 12, resync: '30m' },
        },
      ],
    });
    const at = (hour: number) =>
      decide(calm, initialAutoscaleState(config), config, Date.UTC(2024, 5, 3, hour, 30, 0));
    expect(at(1).workers).toBe(12);
    expect(at(1).resyncMs).toBe(30 * MIN);
    expect(at(2).rule).toBe('nightly-batch');
    expect(at(3).rule).toBeNull();
    expect(at(3).workers).toBe(4);
  });

  it('lets rules read metrics.autoscaleActive and the idle percentage', () => {
    const config = configOf({
      rules: [
        {
          name: 'quiet',
          when: [
            { field: 'metrics.autoscaleActive', equals: 'false' },
            { field: 'metrics.workersIdlePercent', greaterThanOrEqual: 90 },
          ],
          do: { workers: 5 },
        },
      ],
    });
    const first = decide(idle, initialAutoscaleState(config), config, NOON);
    expect(first.metrics).toMatchObject({
      autoscaleActive: false,
      workersIdlePercent: 90,
      workers: 4,
      queueDepth: 0,
    });
    expect(first.workers).toBe(5);
    // Now the autoscaler is active (an override is held), so the rule no longer passes.
    const second = decide({ ...idle, workers: 5 }, first.state, config, NOON + 15 * S);
    expect(second.metrics['autoscaleActive']).toBe(true);
    expect(second.rule).toBe('quiet'); // held for the cooldown
  });

  it('ignores rule queueDepth when D0 is 0', () => {
    const config = configOf(
      { rules: [{ name: 'r', do: { queueDepth: 500, workers: 6 } }] },
      { workers: 4, resync: '10m', queue: { maxDepth: 0 } },
    );
    const decision = decide(calm, initialAutoscaleState(config), config, NOON);
    expect(decision.queueDepth).toBe(0);
    expect(decision.workers).toBe(6);
  });
});

describe('percentile95', () => {
  it('uses the nearest rank', () => {
    expect(percentile95([])).toBe(0);
    expect(percentile95([7])).toBe(7);
    const hundred = Array.from({ length: 100 }, (_, i) => 100 - i); // 100 … 1, unsorted
    expect(percentile95(hundred)).toBe(95);
    expect(percentile95([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 1000])).toBe(19);
    expect(percentile95([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 1000])).toBe(
      20,
    );
    expect(percentile95([1, 1000])).toBe(1000);
  });
});

describe('profiles (katalog.md §18.1)', () => {
  it('cost-optimized drops to half the workers and queue when idle, below the declared values', () => {
    const config = configOf({ profile: 'cost-optimized' });
    expect(config.intervalMs).toBe(30 * S);
    expect(config.cooldownMs).toBe(10 * MIN);
    expect(config.workers.min).toBe(2);
    expect(config.queueDepth.min).toBe(50);
    const idleDeep = { depth: 90, workers: 4, busyPercent: 10, p95Ms: 100, errorRatePercent: 0 };
    const d = decide(idleDeep, initialAutoscaleState(config), config, NOON);
    expect(d.rule).toBe('profile:cost-optimized');
    expect(d.workers).toBe(2);
    expect(d.queueDepth).toBe(50);
  });

  it('burst scales to four times the workers when the queue passes 60 % of its limit', () => {
    const config = configOf({ profile: 'burst' });
    const deep = { depth: 61, workers: 4, busyPercent: 50, p95Ms: 100, errorRatePercent: 0 };
    expect(decide(deep, initialAutoscaleState(config), config, NOON).workers).toBe(16);
    const shallow = { ...deep, depth: 60 };
    expect(decide(shallow, initialAutoscaleState(config), config, NOON).rule).toBeNull();
  });
});

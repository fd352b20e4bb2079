/**
 * Autoscale presets (docs/reference/katalog.md §18.1, ADR 0065): `autoscale.profile` names one of
 * upstream's five presets, which expands into an interval, a cooldown and one rule computed from the
 * entry's declared workers and queue depth. A profile is the whole autoscale input: it is refused
 * beside `interval`, `cooldown`, `conditions`, `do` or `rules`, as upstream refuses it.
 */

/** AUTOSCALE_PROFILES are the preset names, as upstream spells them (matched case-insensitively). */
export const AUTOSCALE_PROFILES = [
  'burst',
  'steady',
  'batch',
  'latency-sensitive',
  'cost-optimized',
] as const;
/** AutoscaleProfileName is a preset name. */
export type AutoscaleProfileName = (typeof AUTOSCALE_PROFILES)[number];

/** AutoscaleProfileBaseline is what a preset is computed from: the entry's declared values. */
export interface AutoscaleProfileBaseline {
  /** The entry's `workers` (default 3). */
  readonly workers: number;
  /** The entry's `queue.maxDepth` (0 = unlimited). */
  readonly maxDepth: number;
}

/** AutoscaleProfileRule is the rule a preset expands into, in the Katalog's input form. */
export interface AutoscaleProfileRule {
  readonly name: string;
  readonly when?: readonly Record<string, unknown>[];
  readonly anyOf?: readonly Record<string, unknown>[];
  readonly do: { readonly workers?: number; readonly queueDepth?: number };
}

/** AutoscaleProfileExpansion is a preset's interval, cooldown and rule. */
export interface AutoscaleProfileExpansion {
  readonly interval: string;
  readonly cooldown: string;
  readonly rule: AutoscaleProfileRule;
}

interface Preset {
  /** Share of maxDepth above which the queue counts as deep. */
  readonly threshold: number;
  readonly workers: number;
  readonly queue: number;
  readonly interval: string;
  readonly cooldown: string;
}

const PRESETS: Readonly<Record<AutoscaleProfileName, Preset>> = {
  burst: { threshold: 0.6, workers: 4, queue: 10, interval: '5s', cooldown: '30s' },
  steady: { threshold: 0.4, workers: 2, queue: 3, interval: '30s', cooldown: '2m' },
  batch: { threshold: 1, workers: 3, queue: 8, interval: '60s', cooldown: '5m' },
  'latency-sensitive': { threshold: 0, workers: 2.5, queue: 1, interval: '15s', cooldown: '1m' },
  'cost-optimized': { threshold: 0.8, workers: 0.5, queue: 0.5, interval: '30s', cooldown: '10m' },
};

/** autoscaleProfileName returns the preset a written name selects (case-insensitive), or undefined. */
export function autoscaleProfileName(written: string): AutoscaleProfileName | undefined {
  const lower = written.toLowerCase();
  return (AUTOSCALE_PROFILES as readonly string[]).includes(lower)
    ? (lower as AutoscaleProfileName)
    : undefined;
}

/** autoscaleProfileTiming is a preset's interval and cooldown (they do not depend on the baseline). */
export function autoscaleProfileTiming(name: AutoscaleProfileName): { interval: string; cooldown: string } {
  const { interval, cooldown } = PRESETS[name];
  return { interval, cooldown };
}

/** unknownAutoscaleProfileMessage is the refusal of an unknown preset name (upstream's wording). */
export function unknownAutoscaleProfileMessage(written: string): string {
  return `unknown autoscale profile: ${JSON.stringify(written)} — allowed: ${AUTOSCALE_PROFILES.join(', ')}`;
}

/**
 * expandAutoscaleProfile computes a preset for a baseline. Worker counts are truncated toward zero
 * (latency-sensitive rounds up) and kept within 1..50; queue depth overrides are left out when the
 * entry's queue is unlimited.
 *
 * | profile           | interval | cooldown | passes when                                   | do                         |
 * | ----------------- | -------- | -------- | --------------------------------------------- | -------------------------- |
 * | burst             | 5s       | 30s      | queueDepth > 0.6 D                            | workers 4 W, queue 10 D    |
 * | steady            | 30s      | 2m       | queueDepth > 0.4 D and workersBusyPercent > 70 | workers 2 W, queue 3 D     |
 * | batch             | 60s      | 5m       | cron `0 23 * * *` for 3h                      | workers 3 W, queue 8 D     |
 * | latency-sensitive | 15s      | 1m       | reconcileDurationP95Ms > 200                  | workers ⌈2.5 W⌉            |
 * | cost-optimized    | 30s      | 10m      | workersIdlePercent > 60 and queueDepth > 0.8 D | workers W / 2, queue D / 2 |
 */
export function expandAutoscaleProfile(
  name: AutoscaleProfileName,
  baseline: AutoscaleProfileBaseline,
): AutoscaleProfileExpansion {
  const preset = PRESETS[name];
  const { workers: w, maxDepth: d } = baseline;
  const threshold = Math.trunc(d * preset.threshold);
  const scaled =
    name === 'latency-sensitive' ? Math.ceil(w * preset.workers) : Math.trunc(w * preset.workers);
  const workers = Math.min(50, Math.max(1, scaled));
  const queue = Math.trunc(d * preset.queue);
  const doQueue = name === 'latency-sensitive' || d <= 0 ? {} : { queueDepth: queue };
  const gt = (field: string, value: number): Record<string, unknown> => ({
    field: `metrics.${field}`,
    greaterThan: value,
  });
  const rule = ((): AutoscaleProfileRule => {
    const ruleName = `profile:${name}`;
    const act = { workers, ...doQueue };
    switch (name) {
      case 'burst':
        return { name: ruleName, when: [gt('queueDepth', threshold)], do: act };
      case 'steady':
        return { name: ruleName, when: [gt('queueDepth', threshold), gt('workersBusyPercent', 70)], do: act };
      case 'batch':
        return { name: ruleName, anyOf: [{ cron: '0 23 * * *', duration: '3h' }], do: act };
      case 'latency-sensitive':
        return { name: ruleName, when: [gt('reconcileDurationP95Ms', 200)], do: act };
      case 'cost-optimized':
        return {
          name: ruleName,
          when: [gt('workersIdlePercent', 60), gt('queueDepth', threshold)],
          do: act,
        };
    }
  })();
  return { interval: preset.interval, cooldown: preset.cooldown, rule };
}

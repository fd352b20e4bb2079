/**
 * Workload autoscale (docs/reference/katalog.md §18.4, ADR 0065): a Deployment, StatefulSet or
 * ReplicaSet child with `autoscale` gets its `spec.replicas` from a decision made on every
 * reconcile — `scaleUp` (else `scaleDown`) evaluated over the reconcile's context (the CR, its
 * `cross` and `external` results, the time), from the replicas the live child has, within
 * `min`..`max`, at most once per `cooldown`. The time of the last change is kept on the child
 * (`orkestra.konductor.io/autoscaled-at`), so a restarted operator keeps the cooldown; the decision
 * and why go to the CR's `status.autoscale.<child name>`. An existing child created once is not
 * re-applied: a change is carried as `DesiredChild.scale`, which the child-writes stage patches.
 */
import type { KubeObject } from '@orkestra/registry';
import type { TemplateContext } from '@orkestra/template';
import { OrkestraAnnotation, evaluateConditions, parseDuration } from '@orkestra/types';
import type { EvaluateConditionsOptions, WorkloadAutoscale } from '@orkestra/types';
import type { DesiredChild, DesiredSet } from './desired-set.js';

/** WorkloadScaleInput is one decision's inputs. */
export interface WorkloadScaleInput {
  readonly config: WorkloadAutoscale;
  /** The entry's rendered `replicas` (the default `min`, and the start when the child is new). */
  readonly declared: number;
  /** `spec.replicas` of the live child; undefined when it does not exist yet. */
  readonly current: number | undefined;
  readonly upPassed: boolean;
  readonly downPassed: boolean;
  /** Epoch ms of the last change, from the child's annotation. */
  readonly lastScaleAt: number | undefined;
  readonly now: number;
}

/** WorkloadScaleDecision is the replicas to write and why. */
export interface WorkloadScaleDecision {
  readonly replicas: number;
  /** `up`, `down`, `bounds` (brought into min..max), `cooldown` (held), or `none`. */
  readonly decision: 'up' | 'down' | 'bounds' | 'cooldown' | 'none';
  readonly why: string;
  /** True when `replicas` differs from the current value (the change time is then `now`). */
  readonly changed: boolean;
}

/** decideWorkloadScale is the pure decision of one child on one reconcile. */
export function decideWorkloadScale(input: WorkloadScaleInput): WorkloadScaleDecision {
  const { config, now } = input;
  const min = config.min ?? Math.min(input.declared, config.max);
  const max = config.max;
  const base = input.current ?? input.declared;
  const clamp = (n: number): number => Math.min(max, Math.max(min, n));
  const cooldownMs = parseDuration(config.cooldown);
  const coolingFor = input.lastScaleAt == null ? 0 : Math.max(0, input.lastScaleAt + cooldownMs - now);
  if (base < min || base > max) {
    const replicas = clamp(base);
    return {
      replicas,
      decision: 'bounds',
      why: `${base} is outside ${min}..${max}: ${replicas}`,
      changed: true,
    };
  }
  let wanted: number | undefined;
  let direction: 'up' | 'down' | undefined;
  if (input.upPassed && config.scaleUp != null) {
    const up = config.scaleUp;
    wanted = clamp(up.target ?? base + (up.increment ?? 1));
    direction = 'up';
  } else if (input.downPassed && config.scaleDown != null) {
    const down = config.scaleDown;
    wanted = clamp(down.target ?? base - (down.decrement ?? 1));
    direction = 'down';
  }
  if (wanted == null || direction == null)
    return { replicas: base, decision: 'none', why: `no scale condition passed: ${base}`, changed: false };
  if (wanted === base)
    return {
      replicas: base,
      decision: 'none',
      why: `scale${direction === 'up' ? 'Up' : 'Down'} passed; ${base} is already its value within ${min}..${max}`,
      changed: false,
    };
  if (coolingFor > 0)
    return {
      replicas: base,
      decision: 'cooldown',
      why: `scale${direction === 'up' ? 'Up' : 'Down'} passed; held at ${base} for the cooldown (${Math.ceil(coolingFor / 1000)}s left)`,
      changed: false,
    };
  return {
    replicas: wanted,
    decision: direction,
    why: `scale${direction === 'up' ? 'Up' : 'Down'} passed: ${base} → ${wanted}`,
    changed: true,
  };
}

/** WorkloadScaleStatus is one child's entry in `status.autoscale`. */
export interface WorkloadScaleStatus {
  readonly kind: string;
  readonly replicas: number;
  readonly decision: WorkloadScaleDecision['decision'];
  readonly why: string;
  /** RFC 3339 time of the last change, if any. */
  readonly lastScaleTime?: string;
}

/**
 * scaleWorkloads sets `spec.replicas` (and the change-time annotation) on every desired child with
 * `autoscale`, reading each live child from `live`; returns the new set, the status entries, and
 * when to reconcile again for a held change (the end of its cooldown).
 */
export function scaleWorkloads(
  desired: DesiredSet,
  o: {
    readonly context: TemplateContext;
    readonly conditions: EvaluateConditionsOptions;
    readonly live: (child: DesiredChild) => KubeObject | undefined;
    readonly now: number;
  },
): { desired: DesiredSet; status: Record<string, WorkloadScaleStatus> | undefined; recheckAt: number[] } {
  const status: Record<string, WorkloadScaleStatus> = {};
  const recheckAt: number[] = [];
  let any = false;
  const scale = (child: DesiredChild): DesiredChild => {
    const config = child.entry.raw['autoscale'] as WorkloadAutoscale | undefined;
    if (config == null) return child;
    any = true;
    const live = o.live(child);
    const liveSpec = (live?.['spec'] ?? {}) as Record<string, unknown>;
    const current = typeof liveSpec['replicas'] === 'number' ? liveSpec['replicas'] : undefined;
    const declaredSpec = (child.manifest['spec'] ?? {}) as Record<string, unknown>;
    const declared = typeof declaredSpec['replicas'] === 'number' ? declaredSpec['replicas'] : 1;
    const stamp = live?.metadata.annotations?.[OrkestraAnnotation.AutoscaledAt];
    const lastScaleAt = stamp == null ? undefined : Date.parse(stamp) || undefined;
    const passes = (direction: WorkloadAutoscale['scaleUp'] | WorkloadAutoscale['scaleDown']): boolean =>
      direction != null && evaluateConditions(direction.conditions, o.context, o.conditions).passed;
    const decision = decideWorkloadScale({
      config,
      declared,
      current,
      upPassed: passes(config.scaleUp),
      downPassed: passes(config.scaleDown),
      lastScaleAt,
      now: o.now,
    });
    if (decision.decision === 'cooldown' && lastScaleAt != null)
      recheckAt.push(lastScaleAt + parseDuration(config.cooldown));
    const at = decision.changed ? new Date(o.now).toISOString() : stamp;
    status[child.ref.name] = {
      kind: child.ref.kind,
      replicas: decision.replicas,
      decision: decision.decision,
      why: decision.why,
      ...(at == null ? {} : { lastScaleTime: at }),
    };
    // A child created once is not re-applied: only its replicas (and the change time) are patched,
    // as upstream scales an onCreate workload it does not update.
    if (child.mode === 'create' && live != null)
      return decision.changed && at != null
        ? { ...child, scale: { replicas: decision.replicas, at } }
        : child;
    const metadata = child.manifest.metadata;
    const manifest: KubeObject = {
      ...child.manifest,
      metadata: {
        ...metadata,
        ...(at == null
          ? {}
          : { annotations: { ...metadata.annotations, [OrkestraAnnotation.AutoscaledAt]: at } }),
      },
      spec: { ...declaredSpec, replicas: decision.replicas },
    };
    return { ...child, manifest };
  };
  const groups = Object.fromEntries(
    Object.entries(desired.groups).map(([group, children]) => [group, children.map(scale)]),
  ) as unknown as DesiredSet['groups'];
  return { desired: any ? { ...desired, groups } : desired, status: any ? status : undefined, recheckAt };
}

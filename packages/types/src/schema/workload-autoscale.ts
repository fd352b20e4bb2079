/**
 * `autoscale` on a Deployment, StatefulSet or ReplicaSet child (docs/reference/katalog.md §18.4, ADR
 * 0065; upstream's WorkloadAutoscale): on every reconcile, when `scaleUp` (else `scaleDown`)
 * passes — over the CR, its `cross` and `external` results and the time — `spec.replicas` moves to
 * `target` or by `increment`/`decrement`, within `min`..`max`, at most once per `cooldown`.
 */
import { z } from 'zod';
import { Duration } from '../duration.js';
import { gated } from './condition.js';

const Count = z.int().min(0);

const Step = z.int().min(1).optional();

/** exclusiveStep refuses a direction with both `target` and its step. */
function exclusiveStep(step: 'increment' | 'decrement') {
  return (direction: object, ctx: z.RefinementCtx): void => {
    const d = direction as Record<string, unknown>;
    if (d['target'] !== undefined && d[step] !== undefined)
      ctx.addIssue({
        code: 'custom',
        message: `\`target\` and \`${step}\` are exclusive (a jump or a step)`,
        path: [step],
        input: d[step],
      });
  };
}

const ScaleUp = z
  .strictObject({ conditions: gated({}).prefault({}), target: Count.optional(), increment: Step })
  .superRefine(exclusiveStep('increment'));
const ScaleDown = z
  .strictObject({ conditions: gated({}).prefault({}), target: Count.optional(), decrement: Step })
  .superRefine(exclusiveStep('decrement'));

/** WorkloadAutoscale is a child's `autoscale` block. */
export const WorkloadAutoscale = z
  .strictObject({
    /** Replica floor. Default: the entry's rendered `replicas`. */
    min: Count.optional(),
    /** Replica ceiling. */
    max: z.int().min(1),
    /** Least time between two changes. Default `1m`. */
    cooldown: Duration.default('1m'),
    scaleUp: ScaleUp.optional(),
    scaleDown: ScaleDown.optional(),
  })
  .superRefine((value, ctx) => {
    if (value.min !== undefined && value.min > value.max)
      ctx.addIssue({
        code: 'custom',
        message: '`min` must not exceed `max`',
        path: ['min'],
        input: value.min,
      });
    if (value.scaleUp === undefined && value.scaleDown === undefined)
      ctx.addIssue({ code: 'custom', message: 'autoscale needs `scaleUp` or `scaleDown`', input: value });
  });
/** WorkloadAutoscale is a child's `autoscale` block after loading. */
export type WorkloadAutoscale = z.output<typeof WorkloadAutoscale>;

import { z } from 'zod';
import { Duration } from '../duration.js';
import { RolloutNotifyInput } from './notification.js';

/**
 * RolloutCanary is the first step of a rollout (docs/reference/katalog.md §2.3): exactly one of a
 * count of CRs, a percentage of them, or a label selector (`matchLabels`).
 */
const RolloutCanarySchema = z
  .strictObject({
    count: z.int().min(1).optional(),
    percent: z.number().gt(0).max(100).optional(),
    selector: z.record(z.string(), z.string()).optional(),
  })
  .superRefine((canary, ctx) => {
    const set = [canary.count, canary.percent, canary.selector].filter((v) => v != null).length;
    if (set !== 1)
      ctx.addIssue({ code: 'custom', message: 'set exactly one of count, percent and selector' });
  });
/** RolloutCanary is the canary step of `spec.rollout`. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface RolloutCanary extends z.output<typeof RolloutCanarySchema> {}

/**
 * Rollout is `spec.rollout` (docs/reference/katalog.md §2.3, docs/reference/runtime.md §24): how a
 * changed Katalog reaches the live CRs. Without it a new Katalog applies to every CR at once.
 */
const RolloutSchema = z
  .strictObject({
    canary: RolloutCanarySchema.default({ count: 1 }),
    waves: z.array(z.number().gt(0).max(100)).min(1).default([100]),
    readyTimeout: Duration.default('10m'),
    onFailure: z.enum(['pause', 'rollback']).default('pause'),
    paused: z.boolean().default(false),
    /** Teams told of the rollout's outcomes (docs/reference/katalog.md §2.3, §15.4; ADR 0066). */
    notify: RolloutNotifyInput.optional(),
  })
  .superRefine((rollout, ctx) => {
    rollout.waves.forEach((wave, i) => {
      const before = rollout.waves[i - 1];
      if (before != null && wave <= before)
        ctx.addIssue({ code: 'custom', path: ['waves', i], message: 'waves must increase' });
    });
    if (rollout.waves.at(-1) !== 100)
      ctx.addIssue({
        code: 'custom',
        path: ['waves', rollout.waves.length - 1],
        message: 'the last wave must be 100',
      });
  });
/** Rollout is a loaded `spec.rollout`. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface Rollout extends z.output<typeof RolloutSchema> {}
/** Rollout is the zod schema of `spec.rollout` (docs/reference/katalog.md §2.3). */
export const Rollout: z.ZodType<Rollout> = RolloutSchema.meta({ id: 'Rollout' });

import { z } from 'zod';
import { gated } from '../schema/condition.js';
import { IntLike, Literal, TemplateValue, Tpl } from '../schema/primitives.js';
import { commonShape } from '../schema/resources.js';
import { defineResourceKind } from './resource-kind.js';

/** HpaEntry is an item of `hpa`; CPU target defaults to 80 unless a memory target is set. */
const HpaEntrySchema = gated({
  ...commonShape,
  scaleTargetRef: z
    .strictObject({
      apiVersion: Literal.default('apps/v1'),
      kind: Literal.default('Deployment'),
      name: Tpl.optional(),
    })
    .prefault({}),
  minReplicas: IntLike.default(1),
  maxReplicas: IntLike,
  targetCPUUtilizationPercentage: IntLike.optional(),
  targetMemoryUtilizationPercentage: IntLike.optional(),
  behavior: TemplateValue.optional(),
})
  .superRefine((entry, ctx) => {
    if (
      typeof entry.minReplicas === 'number' &&
      typeof entry.maxReplicas === 'number' &&
      entry.maxReplicas < entry.minReplicas
    ) {
      ctx.addIssue({
        code: 'custom',
        message: `maxReplicas (${entry.maxReplicas}) must be at least minReplicas (${entry.minReplicas})`,
        path: ['maxReplicas'],
        input: entry.maxReplicas,
      });
    }
  })
  .transform((entry) => ({
    ...entry,
    ...(entry.targetCPUUtilizationPercentage === undefined &&
    entry.targetMemoryUtilizationPercentage === undefined
      ? { targetCPUUtilizationPercentage: 80 }
      : {}),
  }));
/** HpaEntry is a horizontal pod autoscaler entry. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface HpaEntry extends z.output<typeof HpaEntrySchema> {}
/** HpaEntry is an item of `hpa`; CPU target defaults to 80 unless a memory target is set. */
export const HpaEntry: z.ZodType<HpaEntry> = HpaEntrySchema.meta({ id: 'HpaEntry' });

/** hpa is the `hpa` list: HorizontalPodAutoscaler children (autoscaling/v2). */
export const hpa = defineResourceKind({
  listKey: 'hpa',
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  plural: 'horizontalpodautoscalers',
  childrenKeys: { singular: 'hpa', plural: 'hpas' },
  namespaced: true,
  defaultNameSuffix: '-hpa',
  wave: 5,
  entry: HpaEntry,
});

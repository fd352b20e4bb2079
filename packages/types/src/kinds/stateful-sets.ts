import { z } from 'zod';
import { gated } from '../schema/condition.js';
import { IntLike, IntOrPercent, Quantity, Tpl, TplList } from '../schema/primitives.js';
import { commonShape, containerShape, exclusive, portsExclusive, servingShape } from '../schema/resources.js';
import { WorkloadAutoscale } from '../schema/workload-autoscale.js';
import { defineResourceKind } from './resource-kind.js';

/** VolumeClaimTemplate is a StatefulSet volume claim template; `storageSize` and `storageClass` are accepted aliases. */
const VolumeClaimTemplateSchema = z
  .strictObject({
    name: Tpl.default('data'),
    storage: Quantity.optional(),
    storageSize: Quantity.optional(),
    storageClassName: Tpl.optional(),
    storageClass: Tpl.optional(),
    accessModes: TplList.default(['ReadWriteOnce']),
    mountPath: Tpl.default('/data'),
  })
  .superRefine((value, ctx) => {
    if (value.storage === undefined && value.storageSize === undefined)
      ctx.addIssue({ code: 'custom', message: '`storage` is required', input: value });
    exclusive(ctx, value, 'storage', 'storageSize');
    exclusive(ctx, value, 'storageClassName', 'storageClass');
  })
  .transform(({ storageSize, storageClass, storage, storageClassName, ...rest }) => ({
    ...rest,
    storage: storage ?? storageSize ?? '',
    ...((storageClassName ?? storageClass) === undefined
      ? {}
      : { storageClassName: storageClassName ?? storageClass }),
  }));
/** VolumeClaimTemplate is a volume claim template. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface VolumeClaimTemplate extends z.output<typeof VolumeClaimTemplateSchema> {}
/** VolumeClaimTemplate is a StatefulSet volume claim template; `storageSize` and `storageClass` are accepted aliases. */
export const VolumeClaimTemplate: z.ZodType<VolumeClaimTemplate> = VolumeClaimTemplateSchema.meta({
  id: 'VolumeClaimTemplate',
});

/** StatefulSetEntry is an item of `statefulSets`. */
const StatefulSetEntrySchema = gated({
  ...commonShape,
  ...containerShape,
  ...servingShape,
  replicas: IntLike.default(1),
  /** Replicas driven by conditions (docs/reference/katalog.md §18.4). */
  autoscale: WorkloadAutoscale.optional(),
  serviceName: Tpl.optional(),
  volumeClaimTemplates: z.array(VolumeClaimTemplate).default([]),
  podManagementPolicy: Tpl.optional(),
  rollingUpdate: z.strictObject({ maxUnavailable: IntOrPercent.optional() }).optional(),
}).superRefine(portsExclusive);
/** StatefulSetEntry is a stateful set entry. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface StatefulSetEntry extends z.output<typeof StatefulSetEntrySchema> {}
/** StatefulSetEntry is an item of `statefulSets`. */
export const StatefulSetEntry: z.ZodType<StatefulSetEntry> = StatefulSetEntrySchema.meta({
  id: 'StatefulSetEntry',
});

/** statefulSets is the `statefulSets` list: StatefulSet children (apps/v1). */
export const statefulSets = defineResourceKind({
  listKey: 'statefulSets',
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  namespaced: true,
  defaultNameSuffix: '',
  wave: 4,
  entry: StatefulSetEntry,
});

import { z } from 'zod';
import { gated } from '../schema/condition.js';
import { IntLike, IntOrPercent } from '../schema/primitives.js';
import { commonShape, containerShape, portsExclusive, servingShape } from '../schema/resources.js';
import { WorkloadAutoscale } from '../schema/workload-autoscale.js';
import { defineResourceKind } from './resource-kind.js';

/** DeploymentEntry is an item of `deployments`. */
const DeploymentEntrySchema = gated({
  ...commonShape,
  ...containerShape,
  ...servingShape,
  replicas: IntLike.default(1),
  /** Replicas driven by conditions (docs/reference/katalog.md §18.4). */
  autoscale: WorkloadAutoscale.optional(),
  rollingUpdate: z
    .strictObject({ maxSurge: IntOrPercent.optional(), maxUnavailable: IntOrPercent.optional() })
    .optional(),
}).superRefine(portsExclusive);
/** DeploymentEntry is a deployment entry. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface DeploymentEntry extends z.output<typeof DeploymentEntrySchema> {}
/** DeploymentEntry is an item of `deployments`. */
export const DeploymentEntry: z.ZodType<DeploymentEntry> = DeploymentEntrySchema.meta({
  id: 'DeploymentEntry',
});

/** deployments is the `deployments` list: Deployment children (apps/v1). */
export const deployments = defineResourceKind({
  listKey: 'deployments',
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  namespaced: true,
  defaultNameSuffix: '-deployment',
  wave: 4,
  entry: DeploymentEntry,
});

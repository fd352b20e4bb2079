import type { z } from 'zod';
import { gated } from '../schema/condition.js';
import { commonShape, containerShape, portsExclusive, servingShape } from '../schema/resources.js';
import { IntLike } from '../schema/primitives.js';
import { WorkloadAutoscale } from '../schema/workload-autoscale.js';
import { defineResourceKind } from './resource-kind.js';

/** ReplicaSetEntry is an item of `replicaSets` (upstream Orkestra's key): one container, `replicas`. */
const ReplicaSetEntrySchema = gated({
  ...commonShape,
  ...containerShape,
  ...servingShape,
  replicas: IntLike.default(1),
  /** Replicas driven by conditions (docs/reference/katalog.md §18.4). */
  autoscale: WorkloadAutoscale.optional(),
}).superRefine(portsExclusive);
/** ReplicaSetEntry is a replica set entry. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface ReplicaSetEntry extends z.output<typeof ReplicaSetEntrySchema> {}
/** ReplicaSetEntry is an item of `replicaSets`. */
const ReplicaSetEntry: z.ZodType<ReplicaSetEntry> = ReplicaSetEntrySchema.meta({
  id: 'ReplicaSetEntry',
});

/**
 * replicaSets is the `replicaSets` list: ReplicaSet children (default name `<cr>-replicaset`) in
 * the workload wave. A ReplicaSet is never the default workload of services, pdb or hpa; select it
 * with `workload: <name>`.
 */
export const replicaSets = defineResourceKind({
  listKey: 'replicaSets',
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  namespaced: true,
  defaultNameSuffix: '-replicaset',
  wave: 4,
  entry: ReplicaSetEntry,
});

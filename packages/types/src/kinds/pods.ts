import type { z } from 'zod';
import { gated } from '../schema/condition.js';
import { Tpl } from '../schema/primitives.js';
import { commonShape, containerShape, portsExclusive, servingShape } from '../schema/resources.js';
import { defineResourceKind } from './resource-kind.js';

const { podLabels: _podLabels, podAnnotations: _podAnnotations, ...podContainerShape } = containerShape;

/**
 * PodEntry is an item of `pods` (upstream Orkestra's key): one container and its serving fields;
 * the Pod's own `labels`/`annotations` take the place of `podLabels`/`podAnnotations`.
 */
const PodEntrySchema = gated({
  ...commonShape,
  ...podContainerShape,
  ...servingShape,
  restartPolicy: Tpl.default('Always'),
}).superRefine(portsExclusive);
/** PodEntry is a pod entry. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface PodEntry extends z.output<typeof PodEntrySchema> {}
/** PodEntry is an item of `pods` (create-only in every group). */
export const PodEntry: z.ZodType<PodEntry> = PodEntrySchema.meta({ id: 'PodEntry' });

/**
 * pods is the `pods` list (upstream Orkestra's key): bare Pod children (default name `<cr>-pod`)
 * in the workload wave. A Pod is create-only, as a Job is: its spec is not updated in place, and a
 * Pod that is gone (deleted, or its node lost) is created again with the current spec.
 */
export const pods = defineResourceKind({
  listKey: 'pods',
  apiVersion: 'v1',
  kind: 'Pod',
  namespaced: true,
  defaultNameSuffix: '-pod',
  wave: 4,
  entry: PodEntry,
});

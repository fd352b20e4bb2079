import type { z } from 'zod';
import { gated } from '../schema/condition.js';
import { IntLike } from '../schema/primitives.js';
import { commonShape, containerShape, jobShape } from '../schema/resources.js';
import { defineResourceKind } from './resource-kind.js';

/** JobEntry is an item of `jobs` (create-only in every group, never pruned). */
const JobEntrySchema = gated({
  ...commonShape,
  ...containerShape,
  ...jobShape,
  activeDeadlineSeconds: IntLike.optional(),
  ttlSecondsAfterFinished: IntLike.optional(),
});
/** JobEntry is a job entry. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface JobEntry extends z.output<typeof JobEntrySchema> {}
/** JobEntry is an item of `jobs` (create-only in every group, never pruned). */
export const JobEntry: z.ZodType<JobEntry> = JobEntrySchema.meta({ id: 'JobEntry' });

/** jobs is the `jobs` list: Job children (batch/v1). */
export const jobs = defineResourceKind({
  listKey: 'jobs',
  apiVersion: 'batch/v1',
  kind: 'Job',
  namespaced: true,
  defaultNameSuffix: '-job',
  wave: 4,
  entry: JobEntry,
});

import type { z } from 'zod';
import { gated } from '../schema/condition.js';
import { BoolLike, CronSchedule, IntLike, Tpl } from '../schema/primitives.js';
import { commonShape, containerShape, jobShape } from '../schema/resources.js';
import { defineResourceKind } from './resource-kind.js';

/** CronJobEntry is an item of `cronJobs`; a literal `schedule` is checked as a cron expression. */
const CronJobEntrySchema = gated({
  ...commonShape,
  ...containerShape,
  ...jobShape,
  schedule: CronSchedule,
  timeZone: Tpl.optional(),
  suspend: BoolLike.default(false),
  concurrencyPolicy: Tpl.default('Allow'),
  successfulJobsHistoryLimit: IntLike.default(3),
  failedJobsHistoryLimit: IntLike.default(1),
  startingDeadlineSeconds: IntLike.optional(),
  activeDeadlineSeconds: IntLike.optional(),
  ttlSecondsAfterFinished: IntLike.optional(),
});
/** CronJobEntry is a cron job entry. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface CronJobEntry extends z.output<typeof CronJobEntrySchema> {}
/** CronJobEntry is an item of `cronJobs`; a literal `schedule` is checked as a cron expression. */
export const CronJobEntry: z.ZodType<CronJobEntry> = CronJobEntrySchema.meta({ id: 'CronJobEntry' });

/** cronJobs is the `cronJobs` list: CronJob children (batch/v1). */
export const cronJobs = defineResourceKind({
  listKey: 'cronJobs',
  apiVersion: 'batch/v1',
  kind: 'CronJob',
  namespaced: true,
  defaultNameSuffix: '-cronjob',
  wave: 4,
  entry: CronJobEntry,
});

import { CronJobEntry } from '../schema/resources.js';
import { defineResourceKind } from './resource-kind.js';

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

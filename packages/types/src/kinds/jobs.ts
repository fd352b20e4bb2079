import { JobEntry } from '../schema/resources.js';
import { defineResourceKind } from './resource-kind.js';

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

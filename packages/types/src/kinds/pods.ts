import { PodEntry } from '../schema/resources.js';
import { defineResourceKind } from './resource-kind.js';

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

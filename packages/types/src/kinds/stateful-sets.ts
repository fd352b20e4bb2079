import { StatefulSetEntry } from '../schema/resources.js';
import { defineResourceKind } from './resource-kind.js';

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

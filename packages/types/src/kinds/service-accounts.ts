import { ServiceAccountEntry } from '../schema/resources.js';
import { defineResourceKind } from './resource-kind.js';

/** serviceAccounts is the `serviceAccounts` list: ServiceAccount children (v1). */
export const serviceAccounts = defineResourceKind({
  listKey: 'serviceAccounts',
  apiVersion: 'v1',
  kind: 'ServiceAccount',
  namespaced: true,
  defaultNameSuffix: '-sa',
  wave: 2,
  entry: ServiceAccountEntry,
});

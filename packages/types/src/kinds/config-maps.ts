import { ConfigMapEntry } from '../schema/resources.js';
import { defineResourceKind } from './resource-kind.js';

/** configMaps is the `configMaps` list: ConfigMap children (v1). */
export const configMaps = defineResourceKind({
  listKey: 'configMaps',
  apiVersion: 'v1',
  kind: 'ConfigMap',
  namespaced: true,
  defaultNameSuffix: '-config',
  wave: 3,
  entry: ConfigMapEntry,
});

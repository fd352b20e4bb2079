import { PersistentVolumeClaimEntry } from '../schema/resources.js';
import { defineResourceKind } from './resource-kind.js';

/** persistentVolumeClaims is the `persistentVolumeClaims` list: PersistentVolumeClaim children (v1). */
export const persistentVolumeClaims = defineResourceKind({
  listKey: 'persistentVolumeClaims',
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  childrenKeys: { singular: 'pvc', plural: 'persistentvolumeclaims' },
  namespaced: true,
  defaultNameSuffix: null,
  wave: 3,
  entry: PersistentVolumeClaimEntry,
});

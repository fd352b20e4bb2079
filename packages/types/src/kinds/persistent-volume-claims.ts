import type { z } from 'zod';
import { gated } from '../schema/condition.js';
import { Quantity, Tpl, TplList } from '../schema/primitives.js';
import { commonShape, requireName } from '../schema/resources.js';
import { defineResourceKind } from './resource-kind.js';

/** PersistentVolumeClaimEntry is an item of `persistentVolumeClaims` (alias `pvcs`); `name` is required. */
const PersistentVolumeClaimEntrySchema = gated({
  ...commonShape,
  storage: Quantity,
  accessModes: TplList.default(['ReadWriteOnce']),
  storageClassName: Tpl.optional(),
  volumeMode: Tpl.optional(),
  volumeName: Tpl.optional(),
}).superRefine((entry, ctx) => requireName(entry, ctx, 'persistentVolumeClaims'));
/** PersistentVolumeClaimEntry is a PVC entry. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface PersistentVolumeClaimEntry extends z.output<typeof PersistentVolumeClaimEntrySchema> {}
/** PersistentVolumeClaimEntry is an item of `persistentVolumeClaims` (alias `pvcs`); `name` is required. */
export const PersistentVolumeClaimEntry: z.ZodType<PersistentVolumeClaimEntry> =
  PersistentVolumeClaimEntrySchema.meta({ id: 'PersistentVolumeClaimEntry' });

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

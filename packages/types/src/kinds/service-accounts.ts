import type { z } from 'zod';
import { gated } from '../schema/condition.js';
import { BoolLike, TplList } from '../schema/primitives.js';
import { commonShape } from '../schema/resources.js';
import { defineResourceKind } from './resource-kind.js';

/** ServiceAccountEntry is an item of `serviceAccounts`. */
const ServiceAccountEntrySchema = gated({
  ...commonShape,
  imagePullSecrets: TplList.default([]),
  automountServiceAccountToken: BoolLike.optional(),
});
/** ServiceAccountEntry is a service account entry. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface ServiceAccountEntry extends z.output<typeof ServiceAccountEntrySchema> {}
/** ServiceAccountEntry is an item of `serviceAccounts`. */
export const ServiceAccountEntry: z.ZodType<ServiceAccountEntry> = ServiceAccountEntrySchema.meta({
  id: 'ServiceAccountEntry',
});

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

import type { z } from 'zod';
import { gated } from '../schema/condition.js';
import { IntOrPercent, Tpl, TplMap } from '../schema/primitives.js';
import { commonShape, exclusive } from '../schema/resources.js';
import { defineResourceKind } from './resource-kind.js';

/** PdbEntry is an item of `pdb`; `minAvailable: 1` when neither bound is set. */
const PdbEntrySchema = gated({
  ...commonShape,
  minAvailable: IntOrPercent.optional(),
  maxUnavailable: IntOrPercent.optional(),
  workload: Tpl.optional(),
  selector: TplMap.default({}),
  unhealthyPodEvictionPolicy: Tpl.optional(),
})
  .superRefine((entry, ctx) => exclusive(ctx, entry, 'minAvailable', 'maxUnavailable'))
  .transform((entry) => ({
    ...entry,
    ...(entry.minAvailable === undefined && entry.maxUnavailable === undefined ? { minAvailable: 1 } : {}),
  }));
/** PdbEntry is a pod disruption budget entry. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface PdbEntry extends z.output<typeof PdbEntrySchema> {}
/** PdbEntry is an item of `pdb`; `minAvailable: 1` when neither bound is set. */
export const PdbEntry: z.ZodType<PdbEntry> = PdbEntrySchema.meta({ id: 'PdbEntry' });

/** pdb is the `pdb` list: PodDisruptionBudget children (policy/v1). */
export const pdb = defineResourceKind({
  listKey: 'pdb',
  apiVersion: 'policy/v1',
  kind: 'PodDisruptionBudget',
  plural: 'poddisruptionbudgets',
  childrenKeys: { singular: 'pdb', plural: 'pdbs' },
  namespaced: true,
  defaultNameSuffix: '-pdb',
  wave: 5,
  entry: PdbEntry,
});

import { z } from 'zod';
import { gated } from '../schema/condition.js';
import { commonShape } from '../schema/resources.js';
import { Quantity } from '../schema/primitives.js';
import { defineResourceKind } from './resource-kind.js';

const QuantityMap = z.record(z.string(), Quantity);

/** LimitRangeItem is one `limits` item: bounds and defaults of one object type. */
const LimitRangeItemSchema = z.strictObject({
  type: z.enum(['Container', 'Pod', 'PersistentVolumeClaim']).default('Container'),
  max: QuantityMap.optional(),
  min: QuantityMap.optional(),
  default: QuantityMap.optional(),
  defaultRequest: QuantityMap.optional(),
  maxLimitRequestRatio: QuantityMap.optional(),
});

/**
 * LimitRangeEntry is an item of `limitRanges`. `limits` is required; an explicit empty list makes a
 * LimitRange that constrains nothing (the API server accepts it; upstream writes one for an item
 * without limits).
 */
const LimitRangeEntrySchema = gated({
  ...commonShape,
  limits: z.array(LimitRangeItemSchema),
});
/** LimitRangeEntry is a limit range entry. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface LimitRangeEntry extends z.output<typeof LimitRangeEntrySchema> {}
/** LimitRangeEntry is an item of `limitRanges`. */
const LimitRangeEntry: z.ZodType<LimitRangeEntry> = LimitRangeEntrySchema.meta({
  id: 'LimitRangeEntry',
});

/**
 * limitRanges is the `limitRanges` list: LimitRange children (default name `<cr>-limits`), written
 * in wave 2, so their defaults apply to the group's pods.
 */
export const limitRanges = defineResourceKind({
  listKey: 'limitRanges',
  apiVersion: 'v1',
  kind: 'LimitRange',
  namespaced: true,
  defaultNameSuffix: '-limits',
  wave: 2,
  entry: LimitRangeEntry,
});

import type { z } from 'zod';
import { gated } from '../schema/condition.js';
import { TplMap } from '../schema/primitives.js';
import { commonShape } from '../schema/resources.js';
import { CopyFrom } from './copy-from.js';
import { defineResourceKind } from './resource-kind.js';

/**
 * ConfigMapEntry is an item of `configMaps`: `data`, and `copyFrom` to copy the data (and
 * binaryData) of another ConfigMap under the Secret copy's rules (docs/reference/katalog.md §7.2, ADR 0115).
 */
const ConfigMapEntrySchema = gated({
  ...commonShape,
  data: TplMap.default({}),
  copyFrom: CopyFrom.optional(),
});
/** ConfigMapEntry is a config map entry. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface ConfigMapEntry extends z.output<typeof ConfigMapEntrySchema> {}
/** ConfigMapEntry is an item of `configMaps`. */
export const ConfigMapEntry: z.ZodType<ConfigMapEntry> = ConfigMapEntrySchema.meta({ id: 'ConfigMapEntry' });

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

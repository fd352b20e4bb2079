import { CustomEntry } from '../schema/resources.js';
import type { ResourceKind } from './resource-kind.js';

/**
 * custom is the `custom` list: any kind, named per entry (`apiVersion`, `kind`); scope and plural
 * come from discovery, or the entry's `namespaced`. It is written last (wave 6).
 */
export const custom: ResourceKind<'custom', CustomEntry> = Object.freeze({
  listKey: 'custom',
  apiVersion: null,
  group: null,
  kind: null,
  plural: null,
  namespaced: null,
  defaultNameSuffix: null,
  wave: 6,
  childrenKeys: Object.freeze({ singular: 'custom', plural: 'customs' }),
  entry: CustomEntry,
});

import type { z } from 'zod';
import { gated } from '../schema/condition.js';
import { commonShape } from '../schema/resources.js';
import { defineResourceKind } from './resource-kind.js';

const { namespace: _namespace, ...clusterCommonShape } = commonShape;

/** NamespaceEntry is an item of `namespaces` (cluster-scoped: no `namespace` field). */
const NamespaceEntrySchema = gated(clusterCommonShape);
/** NamespaceEntry is a namespace entry. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface NamespaceEntry extends z.output<typeof NamespaceEntrySchema> {}
/** NamespaceEntry is an item of `namespaces` (cluster-scoped: no `namespace` field). */
export const NamespaceEntry: z.ZodType<NamespaceEntry> = NamespaceEntrySchema.meta({ id: 'NamespaceEntry' });

/** namespaces is the `namespaces` list: Namespace children (v1). */
export const namespaces = defineResourceKind({
  listKey: 'namespaces',
  apiVersion: 'v1',
  kind: 'Namespace',
  namespaced: false,
  defaultNameSuffix: '-ns',
  wave: 1,
  entry: NamespaceEntry,
});

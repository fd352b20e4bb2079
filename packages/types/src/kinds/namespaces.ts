import { NamespaceEntry } from '../schema/resources.js';
import { defineResourceKind } from './resource-kind.js';

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

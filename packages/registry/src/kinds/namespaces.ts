import { defineKind } from '../kind-module.js';

/** namespaces creates cluster-scoped Namespaces (default name `<cr>-ns`); no kind-specific fields. */
export const namespaces = defineKind({
  listKey: 'namespaces',
  apiVersion: 'v1',
  kind: 'Namespace',
  namespaced: false,
  wave: 1,
  defaultNameSuffix: '-ns',
  maxNameLength: 63,
  build: () => ({ body: {} }),
});

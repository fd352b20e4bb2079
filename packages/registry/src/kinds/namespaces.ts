import { defineKind } from '../kind-module.js';

/** namespaces creates cluster-scoped Namespaces (default name `<cr>-ns`); no kind-specific fields. */
export const namespaces = defineKind({
  listKey: 'namespaces',
  isNamespace: true,
  maxNameLength: 63,
  build: () => ({ body: {} }),
});

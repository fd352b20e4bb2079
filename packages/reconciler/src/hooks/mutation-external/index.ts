/**
 * The `mutation.external` hook (docs/reference/katalog.md §11, ADR 0114): before step 7 the
 * reconcile makes the entry's mutation calls that do not say `fires: {reconcile: false}`, so the
 * mutation rules read the answers (`{{ .external.registry.json.digest }}`), as upstream's
 * `mutation.external` does at every reconcile. The answers stay `external.<name>` for the
 * validation rules and everything after them. It fills `external`; its own context key stays empty.
 */
import { callsBeforeRules } from '../external/calls-before-rules.js';

/** mutationExternalHook is the `mutation.external` unit. */
export const mutationExternalHook = callsBeforeRules({
  key: 'mutationExternal',
  phase: 'mutation',
  field: 'mutation',
  reference: 'docs/reference/katalog.md §11',
});

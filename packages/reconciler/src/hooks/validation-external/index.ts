/**
 * The `validation.external` hook (docs/reference/katalog.md §12, ADR 0026): step 8 makes the
 * entry's validation calls before the rules, so a rule can test an answer
 * (`{{ .external.quota.json.allowed }}`), as upstream's `validation.external` does. The results are
 * `external.<name>` for the rules and for everything after them (the `external` unit of step 11
 * adds its own calls to them). It fills `external`; its own context key stays empty.
 */
import { callsBeforeRules } from '../external/calls-before-rules.js';

/** validationExternalHook is the `validation.external` unit (the mutation calls' answers stay beside its own). */
export const validationExternalHook = callsBeforeRules({
  key: 'validationExternal',
  phase: 'validation',
  field: 'validation',
  reference: 'docs/reference/katalog.md §12',
});

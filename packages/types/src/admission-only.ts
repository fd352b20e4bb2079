/**
 * Upstream's admission-only calls and rules (`fires: {reconcile: false}`; docs/reference/katalog.md
 * §12 and §15.1, ADR 0104): a `validation.external` call so marked is made by the admission webhook
 * and not by the reconcile, and a validation rule so marked — or one that reads such a call's
 * result, which the reconcile never has — is judged at admission and skipped by the reconcile.
 */
import type { Validation, ValidationRule } from './schema/crd-parts.js';

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** admissionOnlyCalls names the entry's `validation.external` calls made at admission only. */
function admissionOnlyCalls(validation: Pick<Validation, 'external'> | undefined): readonly string[] {
  return (validation?.external ?? []).filter((call) => call.fires?.reconcile === false).map((c) => c.name);
}

/**
 * readsCall tells whether a rule reads `external.<name>`: as a field path
 * (`external.signature.status`), in a template (`{{ .external.signature.status }}`) or through
 * `index .external "signature"`, in its comparison, gate or message.
 */
function readsCall(rule: ValidationRule, name: string): boolean {
  const text = JSON.stringify([rule.condition, rule.when, rule.anyOf, rule.message]);
  const n = escape(name);
  return (
    new RegExp(`(?:^|[^\\w$.-])\\.?external\\.${n}(?![\\w-])`).test(text) ||
    new RegExp(`index\\s+\\.external\\s+\\\\"${n}\\\\"`).test(text)
  );
}

/**
 * admissionOnlyReason says why the reconcile does not judge a validation rule (undefined when it
 * does): the rule says `fires.reconcile: false`, or it reads the result of a call made at
 * admission only.
 *
 * @example
 * admissionOnlyReason(rule, entry.validation); // 'it reads external.signature, a call made at admission only (fires.reconcile: false)'
 */
export function admissionOnlyReason(
  rule: ValidationRule,
  validation: Pick<Validation, 'external'> | undefined,
): string | undefined {
  if (rule.fires?.reconcile === false) return 'fires.reconcile: false';
  const call = admissionOnlyCalls(validation).find((name) => readsCall(rule, name));
  return call === undefined
    ? undefined
    : `it reads external.${call}, a call made at admission only (fires.reconcile: false)`;
}

/**
 * Upstream's admission-only calls and rules (`fires: {reconcile: false}`; docs/reference/katalog.md
 * §11, §12 and §15.1, ADR 0104, ADR 0112): a `validation.external` or `mutation.external` call so
 * marked is made by the admission webhook and not by the reconcile, and a validation or mutation
 * rule so marked — or one that reads such a call's result, which the reconcile never has — is
 * judged (applied) at admission and skipped by the reconcile.
 */
import type { Mutation, MutationRule, Validation, ValidationRule } from './schema/crd-parts.js';
import type { ExternalCall } from './schema/hooks.js';

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** admissionOnlyCalls names the calls of one list made at admission only. */
function admissionOnlyCalls(calls: readonly ExternalCall[] | undefined): readonly string[] {
  return (calls ?? []).filter((call) => call.fires?.reconcile === false).map((c) => c.name);
}

/**
 * readsCall tells whether a rule's text reads `external.<name>`: as a field path
 * (`external.signature.status`), in a template (`{{ .external.signature.status }}`) or through
 * `index .external "signature"`.
 */
function readsCall(text: string, name: string): boolean {
  const n = escape(name);
  return (
    new RegExp(`(?:^|[^\\w$.-])\\.?external\\.${n}(?![\\w-])`).test(text) ||
    new RegExp(`index\\s+\\.external\\s+\\\\"${n}\\\\"`).test(text)
  );
}

/** ruleText is what of a rule may read a call: its comparison, gate and message, or its value and gate. */
function ruleText(rule: ValidationRule | MutationRule): string {
  return 'condition' in rule
    ? JSON.stringify([rule.condition, rule.when, rule.anyOf, rule.message])
    : JSON.stringify([rule.default, rule.override, rule.when, rule.anyOf]);
}

/**
 * readsCalls names the calls of `calls` a validation or mutation rule reads (`external.<name>`
 * in its comparison, gate, message or value).
 *
 * @example
 * readsCalls(rule, entry.mutation.external); // ['registry']
 */
export function readsCalls(
  rule: ValidationRule | MutationRule,
  calls: readonly Pick<ExternalCall, 'name'>[] | undefined,
): string[] {
  const text = ruleText(rule);
  return (calls ?? []).map((c) => c.name).filter((name) => readsCall(text, name));
}

/**
 * admissionOnlyReason says why the reconcile does not judge a validation rule, or apply a mutation
 * rule (undefined when it does): the rule says `fires.reconcile: false`, or it reads the result of
 * a call of its block's `external` made at admission only.
 *
 * @example
 * admissionOnlyReason(rule, entry.validation); // 'it reads external.signature, a call made at admission only (fires.reconcile: false)'
 */
export function admissionOnlyReason(
  rule: ValidationRule | MutationRule,
  block: Pick<Validation, 'external'> | Pick<Mutation, 'external'> | undefined,
): string | undefined {
  if (rule.fires?.reconcile === false) return 'fires.reconcile: false';
  const text = ruleText(rule);
  const call = admissionOnlyCalls(block?.external).find((name) => readsCall(text, name));
  return call === undefined
    ? undefined
    : `it reads external.${call}, a call made at admission only (fires.reconcile: false)`;
}

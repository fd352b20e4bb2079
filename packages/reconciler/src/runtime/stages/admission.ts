/**
 * The admission stages of the pipeline (docs/reference/runtime.md §7 steps 4 and 6–8), as pure functions of the
 * compiled entry and the CR: the namespace guard, normalize, the mutation plan and validation.
 * The pipeline does the I/O around them (the finalizer, the mutation merge patch).
 */
import type { KubeObject } from '@orkestra/registry';
import type { TemplateContext } from '@orkestra/template';
import {
  ConditionReason,
  OrkestraError,
  TerminalError,
  evaluateCondition,
  evaluateConditions,
  getPath,
  stringForm,
} from '@orkestra/types';
import type { Condition, EvaluateConditionsOptions } from '@orkestra/types';
import type { NamespaceGuard } from '../../namespace-guard.js';
import { formatReasonMessage } from '../../reason-message.js';
import type { CompiledCrd } from '../compile-katalog.js';

/** crContext is the template context of the admission stages: the CR's own fields. */
export function crContext(cr: KubeObject): TemplateContext {
  return {
    apiVersion: cr.apiVersion,
    kind: cr.kind,
    metadata: cr.metadata,
    spec: cr['spec'] ?? {},
    status: cr['status'] ?? {},
  };
}

/** namespaceRestriction is step 4: the terminal NamespaceRestricted error for a CR in a blocked namespace, else undefined. */
export function namespaceRestriction(
  crd: CompiledCrd,
  guard: NamespaceGuard,
  namespace: string | undefined,
): TerminalError | undefined {
  if (namespace == null || !guard.isBlocked(namespace)) return undefined;
  return new TerminalError(formatReasonMessage(crd.katalogPath, guard.reason(namespace)), {
    code: ConditionReason.NamespaceRestricted,
    katalogPath: crd.katalogPath,
  });
}

/** normalizeCr is step 6: the CR as the later steps see it (the entry's `normalize` applied to its spec). */
export function normalizeCr(crd: CompiledCrd, cr: KubeObject): KubeObject {
  const normalize = crd.normalize;
  if (normalize == null) return cr;
  const { apiVersion, kind, metadata } = cr;
  const input = { apiVersion, kind, metadata, spec: cr['spec'] ?? {}, status: cr['status'] ?? {} };
  const out = normalize.apply(input) as { spec?: unknown };
  return { ...cr, spec: out.spec };
}

/** MutationPlan is what step 7 would write: the changed spec paths (a merge patch of `spec`). */
export interface MutationPlan {
  readonly changes: Readonly<Record<string, unknown>>;
}

/**
 * MutationAt is where step 7 runs: the reconcile (the default), or admission; `external` is the
 * `mutation.external` answers the rules read (at reconcile those of the calls made there, ADR 0114).
 */
export type MutationAt = {
  readonly at: 'reconcile' | 'admission';
  readonly external?: Readonly<Record<string, unknown>> | undefined;
};

/**
 * planMutation is step 7 without the write: rules run in order; each gate sees the spec as the
 * rules before it left it; a `default` rule fills only an absent or empty field; values are
 * rendered from the normalized CR and converted to `valueType`. Undefined when nothing changes.
 * `only` keeps the rules whose `mutation.rules` index it holds (the mutating admission webhook's,
 * ADR 0092); default all. At `reconcile` (the default) the rules applied at admission only are
 * skipped; the rules read the `mutation.external` answers of `where` as `external` (at admission
 * every call's, ADR 0112; at reconcile those not marked `fires.reconcile: false`, ADR 0114).
 */
export function planMutation(
  crd: CompiledCrd,
  view: KubeObject,
  conditions: EvaluateConditionsOptions,
  only?: ReadonlySet<number>,
  where: MutationAt = { at: 'reconcile' },
): MutationPlan | undefined {
  const rules = crd.mutation.filter(
    (r, i) => (only == null || only.has(i)) && (where.at === 'admission' || r.atReconcile),
  );
  if (rules.length === 0) return undefined;
  const withCalls = (cr: KubeObject): TemplateContext =>
    where.external != null ? { ...crContext(cr), external: where.external } : crContext(cr);
  const context = withCalls(view);
  const changes: Record<string, unknown> = {};
  const spec = structuredClone((view['spec'] ?? {}) as Record<string, unknown>);
  for (const rule of rules) {
    if (!evaluateConditions(rule.rule, withCalls({ ...view, spec }), conditions).passed) continue;
    const path = rule.rule.field.replace(/^\./, '').slice('spec.'.length);
    const current = getPath(spec, path);
    if (rule.mode === 'default' && current != null && current !== '') continue;
    let value = rule.value.render(context);
    value = convertValue(value, rule.rule.valueType, rule.katalogPath);
    if (value === undefined || JSON.stringify(value) === JSON.stringify(current)) continue;
    setPath(spec, path, value);
    setPath(changes, path, value);
  }
  return Object.keys(changes).length === 0 ? undefined : { changes };
}

/** ValidationOutcome is step 8's verdict. */
export interface ValidationOutcome {
  /** Messages of failed deny rules; non-empty means the CR is rejected. */
  readonly denied: readonly string[];
  /** Messages of failed warn rules; undefined when the entry has no warn rules. */
  readonly warnings: string[] | undefined;
}

/**
 * validateCr is step 8: every rule whose gate passes is checked against the normalized CR (and, in
 * `context`, the results of `validation.external`; default the CR's own fields);
 * `unique` compares the field with the other CRs of the entry (`others`). `only` keeps the rules
 * whose `validation.rules` index it holds (the admission webhook's, ADR 0089); default all. At
 * `reconcile` (the default) the rules judged at admission only are skipped (ADR 0104).
 */
export function validateCr(
  crd: CompiledCrd,
  view: KubeObject,
  conditions: EvaluateConditionsOptions,
  others: () => readonly KubeObject[],
  context: TemplateContext = crContext(view),
  only?: ReadonlySet<number>,
  at: 'reconcile' | 'admission' = 'reconcile',
): ValidationOutcome {
  const rules = crd.validation.filter(
    (r) => (only == null || only.has(r.index)) && (at === 'admission' || r.atReconcile),
  );
  const hasWarn = rules.some((r) => r.rule.action === 'warn');
  const denied: string[] = [];
  const warned: string[] = [];
  for (const rule of rules) {
    if (!evaluateConditions(rule.rule, context, conditions).passed) continue;
    const condition = rule.rule.condition as Condition;
    const passed =
      'operator' in condition && condition.operator === 'unique'
        ? isUnique(view, condition, others())
        : evaluateCondition(condition, context, conditions).passed;
    if (passed) continue;
    const message = stringForm(rule.message.render(context));
    (rule.rule.action === 'warn' ? warned : denied).push(message);
  }
  return { denied, warnings: hasWarn ? warned : undefined };
}

/** validationError is the terminal ValidationFailed error of denied messages. */
export function validationError(crd: CompiledCrd, denied: readonly string[]): TerminalError {
  return new TerminalError(formatReasonMessage(`${crd.katalogPath}.validation`, denied.join('; ')), {
    code: ConditionReason.ValidationFailed,
    katalogPath: `${crd.katalogPath}.validation`,
  });
}

function isUnique(view: KubeObject, condition: Condition, others: readonly KubeObject[]): boolean {
  const field = 'field' in condition ? String(condition.field).replace(/^\./, '') : '';
  const mine = getPath(view, field);
  if (mine == null || mine === '') return true;
  const text = stringForm(mine);
  const uid = view.metadata.uid;
  return !others.some((other) => {
    if (other.metadata.uid === uid) return false;
    const value = getPath(other, field);
    return value != null && value !== '' && stringForm(value) === text;
  });
}

/** convertValue converts a rendered mutation value to the rule's `valueType`; failures are TemplateErrors naming the rule. */
function convertValue(value: unknown, type: string | undefined, katalogPath: string): unknown {
  if (type == null || value == null) return value;
  const text = stringForm(value);
  switch (type) {
    case 'string':
      return text;
    case 'int': {
      if (typeof value === 'number' && Number.isInteger(value)) return value;
      if (/^-?\d+$/.test(text.trim())) return Number.parseInt(text, 10);
      break;
    }
    case 'float': {
      const n = Number(text);
      if (text.trim() !== '' && Number.isFinite(n)) return n;
      break;
    }
    case 'bool': {
      if (typeof value === 'boolean') return value;
      if (/^(true|false)$/i.test(text.trim())) return text.trim().toLowerCase() === 'true';
      break;
    }
    default:
      return value;
  }
  throw new OrkestraError(`${katalogPath}: cannot convert ${JSON.stringify(value)} to ${type}`, {
    code: ConditionReason.TemplateError,
    katalogPath,
  });
}

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let node = target;
  for (const part of parts.slice(0, -1)) {
    const next = node[part];
    if (next == null || typeof next !== 'object' || Array.isArray(next)) node[part] = {};
    node = node[part] as Record<string, unknown>;
  }
  const last = parts[parts.length - 1];
  if (last != null) node[last] = value;
}

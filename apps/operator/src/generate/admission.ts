/**
 * Admission-time validation and defaults (docs/reference/katalog.md §11–§12, ADR 0049): which validation and
 * mutation rules of an entry the API server applies itself, and how. A `deny` rule whose fields
 * are declared in the entry's schema becomes an `x-kubernetes-validations` rule of the CRD's
 * `spec`; another `deny` rule becomes a ValidatingAdmissionPolicy validation with `Deny`, a `warn`
 * rule one with `Warn`; an ungated literal `default` on a declared field becomes the schema's
 * `default`. A validation rule CEL cannot decide as the reconcile does goes to the operator's
 * admission webhook (ADR 0089), or stays reconcile-time only when it reads what admission does not
 * have; either with the reason. Reconcile-time validation and mutation are unchanged: admission is
 * an earlier copy.
 */
import { PROTOCOL_ROOT } from '@orkestra/reconciler/offline';
import { admissionOnlyReason, evaluateCondition, evaluateConditions, readsCalls } from '@orkestra/types';
import type { Condition, CrdEntry, Katalog, MutationRule, ValidationRule } from '@orkestra/types';
import { dynamicResolver, translateCondition, translateGate, typedResolver } from './admission-cel.js';
import type { Translation } from './admission-cel.js';
import { crdVersionsOf, fieldMap } from './admission-versions.js';
import { manifestMetadata } from './manifest-meta.js';
import type { Manifest } from './manifest-meta.js';

type Schema = Record<string, unknown>;
const isSchema = (value: unknown): value is Schema =>
  value != null && typeof value === 'object' && !Array.isArray(value);

/** Mechanism is how one rule is applied at admission. */
export type Mechanism =
  | 'crd-rule'
  | 'policy-deny'
  | 'policy-warn'
  | 'webhook-deny'
  | 'webhook-warn'
  | 'webhook-mutate'
  | 'schema-default'
  | 'reconcile-only';

/** RulePlan is the admission mechanism of one validation or mutation rule. */
export interface RulePlan {
  /** The rule's place in the Katalog: `validation.rules[0]` or `mutation.rules[1]`. */
  readonly rule: string;
  readonly mechanism: Mechanism;
  /** Why a rule is reconcile-time only. */
  readonly reason?: string;
  /** CEL that is true when the object is admitted (validation rules). */
  readonly cel?: string;
  readonly message?: string;
  /**
   * For a CRD rule: how requests made at each other served version are judged (ADR 0102), the
   * rule copied into that version's schema with its fields translated, or the admission webhook
   * on the object converted back (the reason says why no copy).
   */
  readonly atVersions?: readonly VersionJudge[];
  /** Why the reconcile skips a validation rule judged, or a mutation rule applied, at admission only (ADR 0104, ADR 0112). */
  readonly admissionOnly?: string;
}

/** VersionJudge is how a CRD rule judges requests made at another served version (ADR 0102). */
export interface VersionJudge {
  readonly version: string;
  readonly mechanism: 'crd-rule' | 'webhook-deny';
  readonly cel?: string;
  readonly reason?: string;
}

/** CRD rules of one version's schema (`spec` and root), as `withAdmission` and `crdSchema` add them. */
export interface VersionRules {
  readonly crdRules: readonly { rule: string; message: string }[];
  readonly rootRules: readonly { rule: string; message: string }[];
}

/** AdmissionPlan is what the API server applies for one entry. */
export interface AdmissionPlan {
  readonly rules: readonly RulePlan[];
  /** `x-kubernetes-validations` of the CRD's `spec`. */
  readonly crdRules: readonly { rule: string; message: string }[];
  /**
   * `x-kubernetes-validations` of the CRD's root, for a CR without `spec`: rules on `spec` do not
   * run then, and the reconcile reads the absent spec as {}, so a rule that fails on {} is `has(self.spec)`.
   */
  readonly rootRules: readonly { rule: string; message: string }[];
  /** Schema defaults: a `spec`-relative path and its value. */
  readonly defaults: readonly { path: readonly string[]; value: unknown }[];
  readonly deny: readonly { expression: string; message: string }[];
  readonly warn: readonly { expression: string; message: string }[];
  /**
   * Indexes in `validation.rules` the operator's admission webhook judges (ADR 0089), by action,
   * and in `mutation.rules` its mutating webhook applies (ADR 0092): empty when no rule needs it,
   * else every rule but the reconcile-only ones (a schema default is then already set, or an
   * empty string filled as the reconcile does).
   */
  readonly webhook: {
    readonly deny: readonly number[];
    readonly warn: readonly number[];
    readonly mutate: readonly number[];
    /**
     * CRD rules no other version's schema can carry (ADR 0102): the webhook judges them on
     * requests made at `denyAtVersions` only, converted to the rule's version.
     */
    readonly denyAt: readonly number[];
    readonly denyAtVersions: readonly string[];
  };
  /** CRD rules translated into each other served version's schema (ADR 0102). */
  readonly atVersions: ReadonlyMap<string, VersionRules>;
}

const overlaps = (a: readonly string[], b: readonly string[]): boolean =>
  a.slice(0, Math.min(a.length, b.length)).every((segment, i) => segment === b[i]);

const specPath = (field: string): string[] | undefined => {
  const segments = field.replace(/^\./, '').split('.');
  return segments[0] === 'spec' && segments.length > 1 ? segments.slice(1) : undefined;
};

/** declaredLeaf is the schema node of a `spec`-relative path when every step is a declared property. */
function declaredLeaf(spec: Schema | undefined, path: readonly string[]): Schema | undefined {
  let node = spec;
  for (const segment of path) {
    const props = node?.['properties'];
    const child = isSchema(props) ? props[segment] : undefined;
    if (node?.['type'] !== 'object' || !isSchema(child) || typeof child['type'] !== 'string')
      return undefined;
    node = child;
  }
  return node;
}

/** defaultValue converts a literal default as the reconcile's `valueType` does, or undefined when it does not fit the declared type. */
function defaultValue(value: unknown, valueType: string | undefined, declared: string): unknown {
  let v = value;
  const text = typeof v === 'string' ? v : JSON.stringify(v);
  if (valueType === 'string') v = typeof v === 'string' ? v : String(v);
  else if (valueType === 'int' && typeof v !== 'number' && /^-?\d+$/.test(String(text).trim()))
    v = Number.parseInt(String(text), 10);
  else if (valueType === 'float' && typeof v !== 'number' && Number.isFinite(Number(text))) v = Number(text);
  else if (valueType === 'bool' && typeof v === 'string' && /^(true|false)$/i.test(v.trim()))
    v = v.trim().toLowerCase() === 'true';
  const fits =
    (declared === 'string' && typeof v === 'string') ||
    (declared === 'integer' && typeof v === 'number' && Number.isSafeInteger(v)) ||
    (declared === 'number' && typeof v === 'number' && Number.isFinite(v)) ||
    (declared === 'boolean' && typeof v === 'boolean');
  return fits ? v : undefined;
}

const hasTemplate = (value: unknown): boolean =>
  typeof value === 'string'
    ? value.includes('{{')
    : Array.isArray(value)
      ? value.some(hasTemplate)
      : isSchema(value) && Object.values(value).some(hasTemplate);

/** specSchemaOf is the `spec` node of a version's declared schema (default: the one the runtime reads). */
function specSchemaOf(entry: CrdEntry, version: string): Schema | undefined {
  const declared = entry.versions?.find((v) => v.name === version)?.schema?.openAPIV3Schema;
  const root = (declared ??
    (version === entry.apiTypes.version ? entry.schema?.openAPIV3Schema : undefined)) as Schema | undefined;
  const props = root?.['properties'];
  const spec = isSchema(props) ? props['spec'] : undefined;
  return isSchema(spec) ? spec : undefined;
}

/** ruleVersion is the served version whose requests a validation rule judges. */
function ruleVersion(entry: CrdEntry, rule: ValidationRule): string {
  return rule.version ?? entry.apiTypes.version;
}

/**
 * scopedVersions lists the versions other than `apiTypes.version` that some validation rule is
 * scoped to (ADR 0069), in the order of the rules.
 */
export function scopedVersions(entry: CrdEntry): string[] {
  const out = new Set<string>();
  for (const rule of entry.validation?.rules ?? [])
    if (ruleVersion(entry, rule) !== entry.apiTypes.version) out.add(ruleVersion(entry, rule));
  return [...out];
}

/**
 * planAdmission decides, for each validation and mutation rule of an entry, the mechanism the API
 * server applies it with (ADR 0049), in the order of the Katalog. `version` (default: the one the
 * runtime reads) plans the rules scoped to another served version against its schema (ADR 0069):
 * mutation applies at the runtime's version only, and such a rule is judged at admission only.
 */
export function planAdmission(entry: CrdEntry, version = entry.apiTypes.version): AdmissionPlan {
  const read = version === entry.apiTypes.version;
  const spec = specSchemaOf(entry, version);
  const rules: RulePlan[] = [];
  const defaults: { path: string[]; value: unknown }[] = [];
  const normalized =
    read &&
    Object.keys(entry.normalize?.spec ?? {}).length + Object.keys(entry.normalize?.types ?? {}).length > 0;
  const mutations = read ? (entry.mutation?.rules ?? []) : [];
  /** Paths mutation sets before validation, and whether admission sets them the same way (a schema default on a non-string field). */
  const mutated: { path: string[]; index: number; same: boolean }[] = [];
  const applied: number[] = [];
  let needsMutate = false;
  /** The first mutation rule applied at reconcile time only: the rules after it may read what it sets. */
  let firstReconcileOnly: number | undefined;
  mutations.forEach((m, index) => {
    const rule = `mutation.rules[${index}]`;
    const path = specPath(m.field) ?? [];
    const earlier = mutated.find((other) => overlaps(other.path, path));
    const leaf = declaredLeaf(spec, path);
    const literal = m.default ?? m.override;
    let reason: string | undefined;
    let value: unknown;
    if (m.override !== undefined)
      reason =
        'override replaces what the client sent, which a schema default does not (a MutatingAdmissionPolicy could; the API server does not serve one by default)';
    else if (m.when.length + m.anyOf.length > 0) reason = 'a gated default is decided by the runtime';
    else if (hasTemplate(literal)) reason = 'a template is rendered with the reconcile’s context';
    else if (normalized) reason = 'normalize rewrites the spec before mutation';
    else if (earlier !== undefined) reason = `mutation.rules[${earlier.index}] sets ${m.field} first`;
    else if (leaf === undefined) reason = `${m.field} has no declared type in the entry's schema`;
    else {
      value = defaultValue(literal, m.valueType, String(leaf['type']));
      if (value === undefined) reason = `the default does not fit the declared type ${String(leaf['type'])}`;
    }
    const blocker =
      reason === undefined
        ? undefined
        : (mutationBlocker(m) ??
          (firstReconcileOnly === undefined
            ? undefined
            : `mutation.rules[${firstReconcileOnly}], before it, is applied at reconcile time only`));
    if (reason === undefined) {
      defaults.push({ path, value });
      rules.push({ rule, mechanism: 'schema-default' });
      applied.push(index);
    } else if (blocker === undefined) {
      // The operator's mutating webhook applies it with the reconcile's own step 7 (ADR 0092).
      rules.push({ rule, mechanism: 'webhook-mutate', reason });
      applied.push(index);
      needsMutate = true;
    } else {
      rules.push({ rule, mechanism: 'reconcile-only', reason: `${reason}, and ${blocker}` });
      firstReconcileOnly ??= index;
    }
    mutated.push({ path, index, same: reason === undefined && leaf?.['type'] !== 'string' });
  });

  const crdRules: { rule: string; message: string }[] = [];
  const rootRules: { rule: string; message: string }[] = [];
  const deny: { expression: string; message: string }[] = [];
  const warn: { expression: string; message: string }[] = [];
  const webhook = {
    deny: [] as number[],
    warn: [] as number[],
    mutate: needsMutate ? applied : [],
    denyAt: [] as number[],
    denyAtVersions: [] as string[],
  };
  const atVersions = new Map<
    string,
    { crdRules: VersionRules['crdRules'][number][]; rootRules: VersionRules['rootRules'][number][] }
  >();
  // The API server judges a version's CRD rules only on requests made at that version: a rule of
  // the runtime's version reaches the others translated, or through the webhook (ADR 0102).
  const others = read
    ? crdVersionsOf(entry)
        .filter((v) => v.served && v.name !== version)
        .map((v) => v.name)
    : [];
  /**
   * A rule CEL cannot express goes to the operator's admission webhook, which judges it with the
   * reconcile's own code (ADR 0089), unless it reads what admission has not yet: the runtime's
   * version only (the reconcile does not judge a scoped rule), and no status or hook results.
   */
  const fallBack = (v: ValidationRule, index: number, rule: string, reason: string): void => {
    const blocker = read ? webhookBlocker(v) : `${reason} (the webhook judges the runtime's version only)`;
    if (blocker !== undefined) {
      rules.push({ rule, mechanism: 'reconcile-only', reason: read ? `${reason}, and ${blocker}` : blocker });
      return;
    }
    webhook[v.action === 'deny' ? 'deny' : 'warn'].push(index);
    rules.push({
      rule,
      mechanism: v.action === 'deny' ? 'webhook-deny' : 'webhook-warn',
      reason: readsExternal(v)
        ? `${reason}; the webhook makes the validation.external calls first (3 s bound)`
        : reason,
      message: v.message,
    });
  };
  (entry.validation?.rules ?? []).forEach((v, index) => {
    if (ruleVersion(entry, v) !== version) return;
    const rule = `validation.rules[${index}]`;
    const fields = [v.condition, ...v.when, ...v.anyOf].flatMap((c) => ('field' in c ? [c.field] : []));
    const blocked = fields
      .map((field) => ({ field, path: specPath(field) }))
      .map(({ field, path }) => ({
        field,
        m: path && mutated.find((m) => !m.same && overlaps(m.path, path)),
      }))
      .find(({ m }) => m != null);
    let reason: string | undefined;
    if (hasTemplate(v.message)) reason = 'the message is a template rendered with the reconcile’s context';
    else if (normalized) reason = 'normalize rewrites the spec before validation';
    else if (blocked?.m != null)
      reason = `mutation.rules[${blocked.m.index}] sets ${blocked.field} before validation, which admission does not do the same way`;
    if (reason !== undefined) {
      fallBack(v, index, rule, reason);
      return;
    }
    const both = (resolve: ReturnType<typeof typedResolver>): Translation => {
      const gate = translateGate(v, resolve);
      if ('reason' in gate) return gate;
      const condition = translateCondition(v.condition, resolve);
      if ('reason' in condition) return condition;
      return { cel: gate.cel === 'true' ? condition.cel : `!(${gate.cel}) || (${condition.cel})` };
    };
    const typed = v.action === 'deny' && spec !== undefined ? both(typedResolver(spec)) : undefined;
    if (typed !== undefined && 'cel' in typed) {
      const emptyFails = failsOnEmptySpec(v);
      crdRules.push({ rule: typed.cel, message: v.message });
      if (emptyFails) rootRules.push({ rule: 'has(self.spec)', message: v.message });
      // A schema default sits in this version's schema only: a request at another version reaches
      // the rule without it, so the webhook (which applies the mutation first) judges it there.
      const defaulted = fields.find((field) => {
        const path = specPath(field);
        return path !== undefined && mutated.some((m) => overlaps(m.path, path));
      });
      const judges = others.map((other): VersionJudge => {
        const there = specSchemaOf(entry, other);
        const map = fieldMap(entry, version, other);
        const resolve = typedResolver(there ?? {});
        const at =
          defaulted !== undefined
            ? { reason: `${defaulted} is defaulted in ${version}'s schema only` }
            : there === undefined
              ? { reason: `${other} declares no spec schema` }
              : both((segments) => {
                  const mapped = map(segments);
                  return 'reason' in mapped ? mapped : resolve(mapped);
                });
        if ('cel' in at) {
          const into = atVersions.get(other) ?? { crdRules: [], rootRules: [] };
          into.crdRules.push({ rule: at.cel, message: v.message });
          if (emptyFails) into.rootRules.push({ rule: 'has(self.spec)', message: v.message });
          atVersions.set(other, into);
          return { version: other, mechanism: 'crd-rule', cel: at.cel };
        }
        if (!webhook.denyAt.includes(index)) webhook.denyAt.push(index);
        if (!webhook.denyAtVersions.includes(other)) webhook.denyAtVersions.push(other);
        return { version: other, mechanism: 'webhook-deny', reason: at.reason };
      });
      rules.push({
        rule,
        mechanism: 'crd-rule',
        cel: typed.cel,
        message: v.message,
        ...(judges.length === 0 ? {} : { atVersions: judges }),
      });
      return;
    }
    const dynamic = both(dynamicResolver());
    if ('reason' in dynamic) {
      fallBack(v, index, rule, dynamic.reason);
      return;
    }
    (v.action === 'deny' ? deny : warn).push({ expression: dynamic.cel, message: v.message });
    rules.push({
      rule,
      mechanism: v.action === 'deny' ? 'policy-deny' : 'policy-warn',
      cel: dynamic.cel,
      message: v.message,
    });
  });
  // Upstream's admission-only rules (ADR 0104): the reconcile skips them, so admission is where
  // they are judged, or nowhere.
  // Mutation rules alike (ADR 0112): the mutating webhook applies them, or nothing does.
  const judged = rules.map((plan): RulePlan => {
    const [, list, index] = /^(validation|mutation)\.rules\[(\d+)\]$/.exec(plan.rule) ?? [];
    const only =
      list === 'validation'
        ? ruleAt(entry.validation?.rules, index, (v) => admissionOnlyReason(v, entry.validation))
        : list === 'mutation'
          ? ruleAt(entry.mutation?.rules, index, (m) => admissionOnlyReason(m, entry.mutation))
          : undefined;
    return only === undefined ? plan : { ...plan, admissionOnly: only };
  });
  return { rules: judged, crdRules, rootRules, defaults, deny, warn, webhook, atVersions };
}

/** ruleAt applies `f` to the rule at `index` of `rules`, if there is one. */
function ruleAt<R, T>(
  rules: readonly R[] | undefined,
  index: string | undefined,
  f: (rule: R) => T,
): T | undefined {
  const rule = index === undefined ? undefined : rules?.[Number(index)];
  return rule === undefined ? undefined : f(rule);
}

/** ruleReads tells whether a validation rule reads a root of the template context (`status`, `external`, `metadata.uid`). */
function ruleReads(rule: ValidationRule, root: string): boolean {
  const fields = [rule.condition, ...rule.when, ...rule.anyOf].flatMap((c) =>
    'field' in c ? [String(c.field).replace(/^\./, '')] : [],
  );
  const text = JSON.stringify([rule.message, rule.condition, rule.when, rule.anyOf]);
  // A root of the template context: `.status` read as such, not a key deeper in a path.
  return (
    fields.some((f) => f === root || f.startsWith(`${root}.`)) ||
    new RegExp(`(?<![\\w.$])\\.${root.replaceAll('.', '\\.')}\\b`).test(text)
  );
}

/**
 * readsExternal tells whether a validation rule reads `validation.external` results: the
 * admission webhook then makes the entry's calls before judging it (ADR 0093).
 */
export function readsExternal(rule: ValidationRule): boolean {
  return ruleReads(rule, PROTOCOL_ROOT);
}

/**
 * webhookBlocker says why the admission webhook cannot judge a rule as the reconcile does: it
 * reads the CR's status (the runtime writes it after admission), or metadata the API server or the
 * runtime set later. A rule reading `validation.external` results is judged after the webhook made
 * the calls (ADR 0093).
 */
function webhookBlocker(rule: ValidationRule): string | undefined {
  const reads = (root: string): boolean => ruleReads(rule, root);
  if (reads('status')) return 'it reads status, which the runtime writes after admission';
  const late = ['resourceVersion', 'finalizers', 'managedFields', 'deletionTimestamp'];
  if (late.some((key) => reads(`metadata.${key}`))) return 'it reads metadata set after admission';
  return undefined;
}

/**
 * mutationBlocker says why the mutating webhook cannot apply a mutation rule as the reconcile
 * does: its gate or value reads the CR's status (written by the runtime after admission) or
 * metadata the API server sets after mutating admission (a CREATE has no uid, creation time or
 * generation yet) or the runtime sets later.
 */
function mutationBlocker(rule: MutationRule): string | undefined {
  const reads = (root: string): boolean => mutationReads(rule, root);
  if (reads('status')) return 'it reads status, which the runtime writes after admission';
  const late = [
    'uid',
    'creationTimestamp',
    'generation',
    'resourceVersion',
    'finalizers',
    'managedFields',
    'deletionTimestamp',
  ];
  if (late.some((key) => reads(`metadata.${key}`)))
    return 'it reads metadata the API server sets after mutating admission';
  return undefined;
}

/**
 * mutationReads tells whether a mutation rule's value or gate reads a root of the template context
 * (`status`, `metadata.uid`), written `.root` or `root` (both template dialects): a word that only
 * looks like one counts too, which errs toward the reconcile.
 */
export function mutationReads(rule: MutationRule, root: string): boolean {
  const fields = [...rule.when, ...rule.anyOf].flatMap((c) =>
    'field' in c ? [String(c.field).replace(/^\./, '')] : [],
  );
  const text = JSON.stringify([rule.default, rule.override, rule.when, rule.anyOf]);
  return (
    fields.some((f) => f === root || f.startsWith(`${root}.`)) ||
    new RegExp(`(?<![\\w.$])\\.?${root.replaceAll('.', '\\.')}\\b`).test(text)
  );
}

/** failsOnEmptySpec is the reconcile's verdict on a CR whose spec is {} (absent). */
function failsOnEmptySpec(rule: ValidationRule): boolean {
  const context = { spec: {}, status: {}, metadata: {} };
  return (
    evaluateConditions(rule, context).passed &&
    !evaluateCondition(rule.condition as Condition, context).passed
  );
}

/** withAdmission adds the plan's rules and defaults to a CRD's `spec` schema node (a copy). */
export function withAdmission(
  specSchema: Schema,
  plan: Pick<AdmissionPlan, 'crdRules' | 'defaults'>,
): Schema {
  if (plan.crdRules.length === 0 && plan.defaults.length === 0) return specSchema;
  const out = structuredClone(specSchema);
  // The rules sit on `spec`, so an update that leaves spec alone (status, finalizers, labels) is
  // not re-judged (validation ratcheting). `default: {}` lets nested defaults apply to a CR without
  // spec; the API server checks a default against the node's rules, so not beside them (a CR
  // without spec then gets its defaults from the reconcile's mutation).
  if (plan.crdRules.length === 0) out['default'] ??= {};
  if (plan.crdRules.length > 0)
    out['x-kubernetes-validations'] = [
      ...((out['x-kubernetes-validations'] as unknown[] | undefined) ?? []),
      ...plan.crdRules,
    ];
  for (const { path, value } of plan.defaults) {
    let node = out;
    path.forEach((segment, i) => {
      const child = (node['properties'] as Schema)[segment] as Schema;
      if (i === path.length - 1) child['default'] = value;
      else child['default'] ??= {};
      node = child;
    });
  }
  return out;
}

/** The name of an entry's policy of one action (and of a version a rule is scoped to). */
function policyName(entry: CrdEntry, action: 'deny' | 'warn', version = entry.apiTypes.version): string {
  const suffix = version === entry.apiTypes.version ? '' : `-${version}`;
  return `${entry.apiTypes.plural}.${entry.apiTypes.group}.orkestra-${action}${suffix}`;
}

/**
 * An UPDATE that leaves `spec` as it was is not judged again: the runtime's own writes
 * (finalizers, labels, the finalizer's removal on delete) must pass for a CR stored before a rule
 * existed, as CRD rules on `spec` are ratcheted.
 */
export const SPEC_CHANGED =
  "request.operation != 'UPDATE' || !has(oldObject.spec) || !has(object.spec) || oldObject.spec != object.spec";

/** admissionPolicies returns the ValidatingAdmissionPolicies and bindings of every entry's deny and warn rules. */
export function admissionPolicies(katalog: Katalog): Manifest[] {
  const out: Manifest[] = [];
  for (const entry of Object.values(katalog.spec.crds))
    for (const version of [entry.apiTypes.version, ...scopedVersions(entry)])
      out.push(...policiesOf(katalog, entry, version));
  return out;
}

/**
 * policiesOf returns the policies of one entry's rules for one version. The runtime's version
 * matches requests at every version, converted (`matchPolicy: Equivalent`, the default); a scoped
 * version matches requests made at it only (`Exact`).
 */
function policiesOf(katalog: Katalog, entry: CrdEntry, version: string): Manifest[] {
  const out: Manifest[] = [];
  const plan = planAdmission(entry, version);
  const scoped = version !== entry.apiTypes.version;
  for (const action of ['deny', 'warn'] as const) {
    const validations = action === 'deny' ? plan.deny : plan.warn;
    if (validations.length === 0) continue;
    const name = policyName(entry, action, version);
    out.push(
      {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingAdmissionPolicy',
        metadata: manifestMetadata(katalog, name),
        spec: {
          failurePolicy: 'Fail',
          matchConstraints: {
            ...(scoped ? { matchPolicy: 'Exact' } : {}),
            resourceRules: [
              {
                apiGroups: [entry.apiTypes.group],
                apiVersions: [version],
                resources: [entry.apiTypes.plural],
                operations: ['CREATE', 'UPDATE'],
              },
            ],
          },
          matchConditions: [{ name: 'spec-changed', expression: SPEC_CHANGED }],
          validations: validations.map((v) => ({ expression: v.expression, message: v.message })),
        },
      },
      {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingAdmissionPolicyBinding',
        metadata: manifestMetadata(katalog, name),
        spec: { policyName: name, validationActions: action === 'deny' ? ['Deny'] : ['Warn'] },
      },
    );
  }
  return out;
}

/**
 * webhookPath is the endpoint path that judges an entry's webhook rules of one action (ADR 0089),
 * its CRD rules on requests at the versions no translation reaches (`deny-versions`, ADR 0102), or
 * applies its mutations (ADR 0092).
 */
export function webhookPath(entry: CrdEntry, action: WebhookAction): string {
  const resource = `${entry.apiTypes.plural}.${entry.apiTypes.group}`;
  return action === 'mutate' ? `/mutate/${resource}` : `/validate/${resource}/${action}`;
}

/** WebhookAction names one webhook of an entry. */
export type WebhookAction = 'deny' | 'warn' | 'mutate' | 'deny-versions';

/** versionsText says where a CRD rule is judged on requests at the other served versions (ADR 0102). */
export function versionsText(entry: CrdEntry, judge: VersionJudge): string {
  return judge.mechanism === 'crd-rule'
    ? `${judge.version} requests: CRD x-kubernetes-validations of ${judge.version}, fields translated through the conversion`
    : `${judge.version} requests: operator admission webhook ${webhookPath(entry, 'deny-versions')} on the object converted to ${entry.apiTypes.version} (${judge.reason ?? ''})`;
}

/**
 * mechanismText says in a few words how a rule is applied (for `ork validate`); of a mutation rule
 * also that the reconcile applies it again, after the `mutation.external` calls it reads that are
 * made there too (ADR 0114).
 */
export function mechanismText(entry: CrdEntry, plan: RulePlan, version = entry.apiTypes.version): string {
  const text = admissionText(entry, plan, version);
  if (plan.admissionOnly === undefined)
    return plan.rule.startsWith('mutation.') ? `${text}${reconcileText(entry, plan)}` : text;
  const [nowhere, only] = plan.rule.startsWith('mutation.')
    ? ['applied nowhere', 'applied at admission only']
    : ['judged nowhere', 'judged at admission only'];
  return plan.mechanism === 'reconcile-only'
    ? `${nowhere}: ${only} (${plan.admissionOnly}), and ${text}`
    : `${text}; at admission only, the reconcile skips it (${plan.admissionOnly})`;
}

/** reconcileText says where the reconcile applies a mutation rule it does not skip: at every reconcile, after the calls it reads. */
function reconcileText(entry: CrdEntry, plan: RulePlan): string {
  const calls = (entry.mutation?.external ?? []).filter((call) => call.fires?.reconcile !== false);
  const reads =
    ruleAt(entry.mutation?.rules, /\[(\d+)\]$/.exec(plan.rule)?.[1], (m) => readsCalls(m, calls)) ?? [];
  const after =
    reads.length === 0
      ? ''
      : ` after the mutation.external ${reads.length === 1 ? 'call' : 'calls'} ${reads.join(', ')}, made there too`;
  return plan.mechanism === 'reconcile-only'
    ? after === ''
      ? ''
      : ` (at every reconcile,${after})`
    : `; and again at every reconcile${after}`;
}

function admissionText(entry: CrdEntry, plan: RulePlan, version: string): string {
  const at = version === entry.apiTypes.version ? '' : ` on ${version} requests only`;
  switch (plan.mechanism) {
    case 'crd-rule':
      return at === ''
        ? `CRD x-kubernetes-validations${plan.atVersions === undefined ? '' : ` of ${version}`} (denied at admission)`
        : `CRD x-kubernetes-validations of ${version} (denied at admission${at})`;
    case 'policy-deny':
      return `ValidatingAdmissionPolicy ${policyName(entry, 'deny', version)} (Deny${at})`;
    case 'policy-warn':
      return `ValidatingAdmissionPolicy ${policyName(entry, 'warn', version)} (Warn: kubectl prints a warning${at})`;
    case 'webhook-deny':
      return `operator admission webhook ${webhookPath(entry, 'deny')} (denied at admission: ${plan.reason ?? ''})`;
    case 'webhook-warn':
      return `operator admission webhook ${webhookPath(entry, 'warn')} (warning at admission: ${plan.reason ?? ''})`;
    case 'webhook-mutate':
      return `operator mutating webhook ${webhookPath(entry, 'mutate')} (set at admission: ${plan.reason ?? ''})`;
    case 'schema-default':
      return 'CRD schema default (set at admission)';
    case 'reconcile-only':
      return version === entry.apiTypes.version
        ? `reconcile time only: ${plan.reason ?? ''}`
        : `judged nowhere: a rule scoped to ${version} is judged at admission only, and ${plan.reason ?? ''}`;
  }
}

/** UnmadeCall is an admission-only call (`fires.reconcile: false`) that no admission path makes. */
export interface UnmadeCall {
  /** The call's place in the entry: `validation.external[0]`, `operatorBox.external[1]`. */
  readonly path: string;
  /** The call's node, for its source position. */
  readonly node: object;
  readonly message: string;
}

/**
 * unmadeAdmissionCalls lists an entry's calls marked `fires: {reconcile: false}` that are made
 * nowhere (ADR 0112): the reconcile leaves them out, and admission makes a `validation.external`
 * call only when a rule the validating webhook judges reads `external`, a `mutation.external` call
 * only when a rule the mutating webhook applies reads one of them, and a call of any other list
 * never. `ork validate` warns of each.
 */
export function unmadeAdmissionCalls(entry: CrdEntry): UnmadeCall[] {
  const out: UnmadeCall[] = [];
  const plan = planAdmission(entry);
  const validationRules = entry.validation?.rules ?? [];
  const validating = [...plan.webhook.deny, ...plan.webhook.warn, ...plan.webhook.denyAt].some((i) => {
    const rule = validationRules[i];
    return rule !== undefined && readsExternal(rule);
  });
  const mutationRules = entry.mutation?.rules ?? [];
  const mutating = plan.webhook.mutate.some((i) => {
    const rule = mutationRules[i];
    return rule !== undefined && readsCalls(rule, entry.mutation?.external).length > 0;
  });
  const visit = (node: unknown, path: string): void => {
    if (Array.isArray(node)) {
      node.forEach((item, i) => visit(item, `${path}[${i}]`));
      return;
    }
    if (!isSchema(node)) return;
    for (const [key, value] of Object.entries(node)) {
      const at = path === '' ? key : `${path}.${key}`;
      // A list of calls, wherever the entry declares one (its key is the protocol hook's).
      if (key === PROTOCOL_ROOT && Array.isArray(value))
        value.forEach((call: unknown, i) => {
          if (!isSchema(call) || !isSchema(call['fires']) || call['fires']['reconcile'] !== false) return;
          const name = String(call['name']);
          const message =
            at === 'validation.external'
              ? validating
                ? undefined
                : `${name} is made at admission only (fires.reconcile: false), and no rule the admission webhook judges reads \`external\`, so it is never made: read external.${name} in a validation rule, or drop the call`
              : at === 'mutation.external'
                ? mutating
                  ? undefined
                  : `${name} is made at admission only (fires.reconcile: false), and no mutation rule the mutating webhook applies reads a mutation.external answer, so it is never made: read external.${name} in a mutation rule's value or gate, or drop the call`
                : `${name} is made at admission only (fires.reconcile: false), and admission makes only validation.external and mutation.external calls, so it is never made: move it to one of those, or drop \`fires\``;
          if (message !== undefined) out.push({ path: `${at}[${i}]`, node: call, message });
        });
      else visit(value, at);
    }
  };
  visit(entry, '');
  return out;
}

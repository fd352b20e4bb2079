import { z } from 'zod';
import { Duration, isDuration, parseDuration } from '../duration.js';
import {
  conditionShape,
  gated,
  normalizeCondition,
  refineCondition,
  checkGate,
  normalizeGate,
  gateShape,
} from './condition.js';
import type { Condition, GateInput } from './condition.js';
import {
  autoscaleProfileName,
  autoscaleProfileTiming,
  unknownAutoscaleProfileMessage,
} from './autoscale-profiles.js';
import { BearerAuth, ExternalCall } from './hooks.js';
import { DotPath, Identifier, Literal, TemplateValue, Tpl, isSafeDotPath, isTemplate } from './primitives.js';

// ---- normalize, mutation, validation (docs/reference/katalog.md §10-12) -------------------------------------------

const ValueType = z.enum(['string', 'int', 'float', 'bool']);

/** Normalize rewrites spec values of an in-memory copy of the CR before anything else (docs/reference/katalog.md §10). */
const NormalizePath = z.string().refine(isSafeDotPath, {
  error: 'a path must not contain a `__proto__` segment',
});
const NormalizeSchema = z.strictObject({
  spec: z.record(NormalizePath, TemplateValue).default({}),
  types: z.record(NormalizePath, ValueType).default({}),
});
/** Normalize is a normalize block. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface Normalize extends z.output<typeof NormalizeSchema> {}
/** Normalize rewrites spec values of an in-memory copy of the CR before anything else (docs/reference/katalog.md §10). */
export const Normalize: z.ZodType<Normalize> = NormalizeSchema.meta({ id: 'Normalize' });

const VALUE_TYPE_ALIASES = {
  string: 'string',
  str: 'string',
  int: 'int',
  integer: 'int',
  float: 'float',
  number: 'float',
  bool: 'bool',
  boolean: 'bool',
} as const;

/** MutationRule writes a default or override into the stored CR (docs/reference/katalog.md §11); `valueType` aliases are normalized. */
const MutationRuleSchema = gated({
  field: DotPath.refine((path) => path.replace(/^\./, '').startsWith('spec.'), {
    error: 'a mutation field must start with spec.',
  }),
  default: TemplateValue.optional(),
  override: TemplateValue.optional(),
  valueType: z
    .enum(['string', 'int', 'integer', 'float', 'number', 'bool', 'boolean'])
    .transform((t) => VALUE_TYPE_ALIASES[t])
    .optional(),
  /**
   * Upstream's `fires.reconcile: false`: the rule is applied by the mutating admission webhook
   * only, the reconcile skips it (docs/reference/katalog.md §11, ADR 0112).
   */
  fires: z.strictObject({ reconcile: z.boolean().default(true) }).optional(),
}).superRefine((rule, ctx) => {
  if ((rule.default === undefined) === (rule.override === undefined)) {
    ctx.addIssue({
      code: 'custom',
      message: 'a mutation rule needs exactly one of `default` and `override`',
      path: rule.default === undefined ? [] : ['override'],
      input: rule,
    });
  }
});
/** MutationRule is a mutation rule. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface MutationRule extends z.output<typeof MutationRuleSchema> {}
/** MutationRule writes a default or override into the stored CR (docs/reference/katalog.md §11); `valueType` aliases are normalized. */
export const MutationRule: z.ZodType<MutationRule> = MutationRuleSchema.meta({ id: 'MutationRule' });

/**
 * Mutation is the mutation block. `external` (upstream's `mutation.external`, ADR 0112, ADR 0114):
 * calls made before the rules, whose answers the rules read as `external.<name>`: by the mutating
 * admission webhook, and — unless a call says `fires: {reconcile: false}` — again at every
 * reconcile before step 7.
 */
const MutationSchema = z.strictObject({
  rules: z.array(MutationRule).default([]),
  external: z.array(ExternalCall).default([]),
});
/** Mutation is a mutation block. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface Mutation extends z.output<typeof MutationSchema> {}
/** Mutation is the mutation block. */
export const Mutation: z.ZodType<Mutation> = MutationSchema.meta({ id: 'Mutation' });

/**
 * ValidationRule asserts a comparison on the CR (docs/reference/katalog.md §12). The comparison is written like a
 * condition (default `exists`, `unique` allowed) and normalized into `condition`.
 */
const ValidationRuleSchema = z
  .strictObject({
    ...conditionShape,
    message: Tpl,
    action: z.enum(['deny', 'warn']).default('deny'),
    /** The served version whose requests the rule judges, at admission only (docs/reference/katalog.md §12, ADR 0069). */
    version: Literal.regex(/^v\d+((alpha|beta)\d+)?$/, {
      error: 'version must look like v1, v1beta1 or v1alpha1',
    }).optional(),
    /**
     * Upstream's `fires.reconcile: false`: the rule is judged at admission only, the reconcile
     * skips it (docs/reference/katalog.md §12, ADR 0104).
     */
    fires: z.strictObject({ reconcile: z.boolean().default(true) }).optional(),
    ...gateShape,
  })
  .superRefine((rule, ctx) => {
    const {
      message: _m,
      action: _a,
      version: _v,
      fires: _f,
      when: _w,
      anyOf: _y,
      or: _o,
      ...condition
    } = rule;
    refineCondition(condition, ctx, { allowUnique: true, requireField: true });
    if (rule.time !== undefined || rule.dayOfWeek !== undefined || rule.cron !== undefined) {
      ctx.addIssue({
        code: 'custom',
        message: 'validation rules compare a field; time conditions belong in `when`',
        input: rule,
      });
    }
    checkGate(rule as GateInput, ctx);
  })
  .transform((rule) => {
    const { message, action, version, fires, when, anyOf, or, ...condition } = rule;
    const gate = normalizeGate({ when, anyOf, or });
    return {
      condition: normalizeCondition(condition),
      message,
      action,
      ...(version === undefined ? {} : { version }),
      ...(fires === undefined ? {} : { fires }),
      when: gate.when,
      anyOf: gate.anyOf,
    };
  });
/** ValidationRule is a validation rule. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface ValidationRule extends z.output<typeof ValidationRuleSchema> {}
/**
 * ValidationRule asserts a comparison on the CR (docs/reference/katalog.md §12). The comparison is written like a
 * condition (default `exists`, `unique` allowed) and normalized into `condition`.
 */
export const ValidationRule: z.ZodType<ValidationRule> = ValidationRuleSchema.meta({ id: 'ValidationRule' });

/** Validation is the validation block. */
const ValidationSchema = z.strictObject({
  rules: z.array(ValidationRule).default([]),
  // Calls made in step 8 before the rules, whose results the rules (and everything after) read
  // as `external.<name>` (docs/reference/katalog.md §12, ADR 0026).
  external: z.array(ExternalCall).default([]),
});
/** Validation is a validation block. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface Validation extends z.output<typeof ValidationSchema> {}
/** Validation is the validation block. */
export const Validation: z.ZodType<Validation> = ValidationSchema.meta({ id: 'Validation' });

// ---- status (docs/reference/katalog.md §13.2) -------------------------------------------------------------------------

const RESERVED_STATUS_KEYS = [
  'conditions',
  'observedGeneration',
  'inventory',
  'providers',
  'katalogRevision',
];
const STATUS_TYPE_ALIASES = { ...VALUE_TYPE_ALIASES, auto: 'auto' } as const;

/** StatusField declares one status field; `type` aliases (`str`, `integer`, `number`, `boolean`) are normalized. */
const StatusFieldSchema = gated({
  path: DotPath.refine(
    (path) => !RESERVED_STATUS_KEYS.includes(path.replace(/^\./, '').split('.')[0] ?? ''),
    {
      error:
        `a status field path must not start with a reserved key (${RESERVED_STATUS_KEYS.join(', ')}): ` +
        'Orkestra writes status.observedGeneration (the generation it last reconciled), conditions and the rest ' +
        'itself (docs/reference/katalog.md §13.2); write the field under another name',
    },
  ),
  value: TemplateValue,
  type: z
    .enum(['string', 'str', 'int', 'integer', 'float', 'number', 'bool', 'boolean', 'auto'])
    .transform((t) => STATUS_TYPE_ALIASES[t])
    .optional(),
  clearOnFalse: z.boolean().default(false),
}).superRefine((field, ctx) => {
  if (field.value === undefined)
    ctx.addIssue({ code: 'custom', message: 'missing required key `value`', input: field });
});
/** StatusField is a declared status field. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface StatusField extends z.output<typeof StatusFieldSchema> {}
/** StatusField declares one status field; `type` aliases (`str`, `integer`, `number`, `boolean`) are normalized. */
export const StatusField: z.ZodType<StatusField> = StatusFieldSchema.meta({ id: 'StatusField' });

/** StatusBlock is `operatorBox.status`. */
const StatusBlockSchema = z.strictObject({ fields: z.array(StatusField).default([]) });
/** StatusBlock is a status block. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface StatusBlock extends z.output<typeof StatusBlockSchema> {}
/** StatusBlock is `operatorBox.status`. */
export const StatusBlock: z.ZodType<StatusBlock> = StatusBlockSchema.meta({ id: 'StatusBlock' });

// ---- providers (docs/reference/katalog.md §14) -------------------------------------------------------------------------

/** ProviderRef is an item of the Katalog-level `spec.providers` list (docs/reference/katalog.md §14.1). */
const ProviderRefSchema = z.strictObject({
  name: Literal.min(1),
  package: Literal.min(1),
  config: z.record(z.string(), z.unknown()).default({}),
  required: z.boolean().default(true),
  version: Literal.optional(),
});
/** ProviderRef is a provider package to load. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface ProviderRef extends z.output<typeof ProviderRefSchema> {}
/** ProviderRef is an item of the Katalog-level `spec.providers` list (docs/reference/katalog.md §14.1). */
export const ProviderRef: z.ZodType<ProviderRef> = ProviderRefSchema.meta({ id: 'ProviderRef' });

const DECLARATION_RESERVED = new Set(['name', 'when', 'anyOf', 'or', 'deletionPolicy', 'timeout']);

/**
 * ProviderDeclarationEntry is one item of `operatorBox.providers.<provider>` (docs/reference/katalog.md §14.2):
 * exactly one kind key whose value is the spec, plus reserved keys. The output names the kind and
 * spec explicitly: `{ name, kind, spec, when, anyOf, deletionPolicy, timeout }`. `name` defaults to
 * the kind key. (The rendered, runtime form is the `ProviderDeclaration` interface.)
 */
const ProviderDeclarationEntrySchema = z
  .object({
    name: Identifier.optional(),
    ...gateShape,
    deletionPolicy: z.enum(['Delete', 'Retain']).default('Delete'),
    timeout: Duration.default('60s'),
  })
  .catchall(TemplateValue)
  .superRefine((decl, ctx) => {
    const kinds = Object.keys(decl).filter((key) => !DECLARATION_RESERVED.has(key));
    if (kinds.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        message: `a provider declaration has exactly one kind key (such as s3 or database) besides name, when, anyOf, deletionPolicy, timeout; found ${kinds.length === 0 ? 'none' : kinds.join(', ')}`,
        ...(kinds[1] === undefined ? {} : { path: [kinds[1]] }),
        input: decl,
      });
    }
    checkGate(decl as GateInput, ctx);
  })
  .transform((decl) => {
    const kind = Object.keys(decl).find((key) => !DECLARATION_RESERVED.has(key)) ?? '';
    const gate = normalizeGate({ when: decl.when, anyOf: decl.anyOf, or: decl.or });
    return {
      name: decl.name ?? kind,
      kind,
      spec: decl[kind] as unknown,
      when: gate.when,
      anyOf: gate.anyOf,
      deletionPolicy: decl.deletionPolicy,
      timeout: decl.timeout,
    };
  });
/** ProviderDeclarationEntry is a per-CRD provider declaration as written in the Katalog. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface ProviderDeclarationEntry extends z.output<typeof ProviderDeclarationEntrySchema> {}
/**
 * ProviderDeclarationEntry is one item of `operatorBox.providers.<provider>` (docs/reference/katalog.md §14.2):
 * exactly one kind key whose value is the spec, plus reserved keys. The output names the kind and
 * spec explicitly: `{ name, kind, spec, when, anyOf, deletionPolicy, timeout }`. `name` defaults to
 * the kind key. (The rendered, runtime form is the `ProviderDeclaration` interface.)
 */
export const ProviderDeclarationEntry: z.ZodType<ProviderDeclarationEntry> =
  ProviderDeclarationEntrySchema.meta({ id: 'ProviderDeclarationEntry' });

/** ProviderDeclarationList is one provider's declarations; names (explicit or defaulted) are unique. */
export const ProviderDeclarationList = z.array(ProviderDeclarationEntry).superRefine((list, ctx) => {
  const seen = new Map<string, number>();
  list.forEach((decl, index) => {
    const first = seen.get(decl.name);
    if (first !== undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `declaration name ${decl.name} is already used by item ${first}; give each declaration a unique \`name\``,
        path: [index],
        input: decl,
      });
    } else seen.set(decl.name, index);
  });
});

/** ProviderBlocks maps a provider name (from `spec.providers`) to its declarations. */
export const ProviderBlocks = z.record(z.string(), ProviderDeclarationList);
/** ProviderBlocks is `operatorBox.providers`. */
export type ProviderBlocks = z.infer<typeof ProviderBlocks>;

// ---- autoscale, queue, dependsOn (docs/reference/katalog.md §18, §20, §21) ------------------------------------------

const Bounds = z.strictObject({ min: z.int().min(1).optional(), max: z.int().min(1).optional() });
const DurationBounds = z.strictObject({ min: Duration.optional(), max: Duration.optional() });
const AutoscaleDo = z.strictObject({
  workers: z.int().min(1).max(50).optional(),
  queueDepth: z.int().min(0).optional(),
  resync: Duration.optional(),
});

/** AutoscaleRule overrides computed values while its gate passes. */
const AutoscaleRuleSchema = gated({ name: Literal, do: AutoscaleDo });
/** AutoscaleRule is an autoscale rule. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface AutoscaleRule extends z.output<typeof AutoscaleRuleSchema> {}
/** AutoscaleRule overrides computed values while its gate passes. */
export const AutoscaleRule: z.ZodType<AutoscaleRule> = AutoscaleRuleSchema.meta({ id: 'AutoscaleRule' });

/**
 * AutoscaleSource is a peer an autoscale condition reads as `cross.<as>.…` (docs/reference/katalog.md §18.2):
 * another operator's Live API (`endpoint` + `protocol`) or any JSON answer (`url`), read once per
 * interval for the entry through the cross read's HTTP client (address guard, timeout, cache).
 */
const AutoscaleSourceSchema = z
  .strictObject({
    /** The name conditions read: `cross.<as>.metrics.queueDepth`. */
    as: z.string().regex(/^[A-Za-z_][A-Za-z0-9_-]*$/, { error: 'expected a name: letters, digits, _ and -' }),
    /** The entry name in the peer's Katalog (its Live API path). Default `as`. */
    crd: Literal.optional(),
    endpoint: Literal.optional(),
    protocol: z.enum(['info', 'metrics', 'health']).optional(),
    url: Literal.optional(),
    timeout: Duration.default('5s'),
    cacheFor: Duration.default('30s'),
    /**
     * The bearer token sent (upstream's `auth.token`/`auth.secretRef`): from the operator's
     * environment, or a Secret of the operator's namespace unless `secretRef.namespace` names
     * another (katalog.md §18.2, ADR 0079): the autoscaler reads for the entry, so there is no CR namespace.
     */
    auth: BearerAuth.optional(),
  })
  .superRefine((source, ctx) => {
    const issue = (path: string, message: string, input: unknown): void =>
      ctx.addIssue({ code: 'custom', message, path: [path], input });
    if ((source.endpoint === undefined) === (source.url === undefined))
      issue(
        'endpoint',
        "an autoscale source needs exactly one of `endpoint` (a peer's Live API) and `url`",
        source,
      );
    for (const key of ['endpoint', 'url'] as const) {
      const value = source[key];
      if (value !== undefined && isTemplate(value))
        issue(key, `\`${key}\` must be literal: the autoscaler reads it for the entry, not for a CR`, value);
    }
    if (source.protocol !== undefined && source.endpoint === undefined)
      issue('protocol', '`protocol` applies only with `endpoint`', source.protocol);
    const ref = source.auth?.secretRef;
    for (const field of ['name', 'key'] as const)
      if (ref !== undefined && isTemplate(ref[field]))
        ctx.addIssue({
          code: 'custom',
          message: `\`auth.secretRef.${field}\` must be literal: the autoscaler reads it for the entry, not for a CR`,
          path: ['auth', 'secretRef', field],
          input: ref[field],
        });
  })
  .transform((source) => ({
    ...source,
    crd: source.crd ?? source.as,
    ...(source.endpoint === undefined ? {} : { protocol: source.protocol ?? ('info' as const) }),
  }));
/** AutoscaleSource is a peer an autoscale condition reads. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface AutoscaleSource extends z.output<typeof AutoscaleSourceSchema> {}
/** AutoscaleSource is a peer an autoscale condition reads as `cross.<as>.…` (docs/reference/katalog.md §18.2). */
export const AutoscaleSource: z.ZodType<AutoscaleSource> = AutoscaleSourceSchema.meta({
  id: 'AutoscaleSource',
});

/**
 * Autoscale adjusts workers, queue depth and resync for one CRD entry (docs/reference/katalog.md §18). Upstream's
 * single-rule form (`conditions` + `do`) is read as one rule named `default`, appended to `rules`.
 */
const AutoscaleSchema = z
  .strictObject({
    enabled: z.boolean().default(true),
    /** A preset (katalog.md §18.1): the whole autoscale input, expanded from the entry's workers and queue depth. */
    profile: Literal.optional(),
    /** Default `15s` (a profile's own with `profile`). */
    interval: Duration.optional(),
    /** Default `2m` (a profile's own with `profile`). */
    cooldown: Duration.optional(),
    workers: Bounds.optional(),
    queueDepth: z.strictObject({ min: z.int().min(0).optional(), max: z.int().min(0).optional() }).optional(),
    resync: DurationBounds.optional(),
    targets: z
      .strictObject({
        busyPercent: z.number().min(1).max(100).default(80),
        queuePerWorker: z.number().min(0).default(5),
        p95Ms: z.number().min(0).default(5000),
        errorRatePercent: z.number().min(0).max(100).default(20),
      })
      .prefault({}),
    rules: z.array(AutoscaleRule).default([]),
    /** Peers read by conditions on `cross.<as>.…` (katalog.md §18.2; upstream's condition `source`). */
    sources: z.array(AutoscaleSource).default([]),
    conditions: gated({}).optional(),
    do: AutoscaleDo.optional(),
  })
  .superRefine((value, ctx) => {
    if (value.profile !== undefined) {
      const manual: string[] = (['interval', 'cooldown', 'conditions', 'do'] as const).filter(
        (k) => value[k] !== undefined,
      );
      if (value.sources.length > 0) manual.push('sources');
      if (manual.length > 0 || value.rules.length > 0)
        ctx.addIssue({
          code: 'custom',
          message: `autoscale.profile ${JSON.stringify(value.profile)} cannot be combined with manual autoscale fields; remove ${[...manual, ...(value.rules.length > 0 ? ['rules'] : [])].join('/')} when using a profile`,
          path: ['profile'],
          input: value.profile,
        });
      else if (autoscaleProfileName(value.profile) === undefined)
        ctx.addIssue({
          code: 'custom',
          message: unknownAutoscaleProfileMessage(value.profile),
          path: ['profile'],
          input: value.profile,
        });
    }
    if ((value.conditions === undefined) !== (value.do === undefined)) {
      ctx.addIssue({
        code: 'custom',
        message: 'upstream single-rule form needs both `conditions` and `do`',
        path: [value.do === undefined ? 'conditions' : 'do'],
        input: value,
      });
    }
    const { min, max } = value.workers ?? {};
    if (max !== undefined && max > 50)
      ctx.addIssue({
        code: 'custom',
        message: 'workers.max is at most 50',
        path: ['workers', 'max'],
        input: max,
      });
    if (min !== undefined && max !== undefined && min > max)
      ctx.addIssue({
        code: 'custom',
        message: 'workers.min must not exceed workers.max',
        path: ['workers', 'min'],
        input: min,
      });
  })
  .transform(({ conditions, do: single, profile, interval, cooldown, ...rest }) => {
    const preset = profile === undefined ? undefined : autoscaleProfileName(profile);
    return {
      ...rest,
      ...(preset === undefined ? {} : { profile: preset }),
      interval: interval ?? (preset === undefined ? '15s' : autoscaleProfileTiming(preset).interval),
      cooldown: cooldown ?? (preset === undefined ? '2m' : autoscaleProfileTiming(preset).cooldown),
      rules:
        conditions !== undefined && single !== undefined
          ? [...rest.rules, { name: 'default', do: single, when: conditions.when, anyOf: conditions.anyOf }]
          : rest.rules,
    };
  });
/** Autoscale is an autoscale block. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface Autoscale extends z.output<typeof AutoscaleSchema> {}
/**
 * Autoscale adjusts workers, queue depth and resync for one CRD entry (docs/reference/katalog.md §18). Upstream's
 * single-rule form (`conditions` + `do`) is read as one rule named `default`, appended to `rules`.
 */
export const Autoscale: z.ZodType<Autoscale> = AutoscaleSchema.meta({ id: 'Autoscale' });

/**
 * RetryBackoff is the retry policy of a failed reconcile or external call (docs/reference/katalog.md §20.1):
 * the n-th retry waits `min(initial × multiplier^(n-1), max)`; after `maxAttempts` attempts
 * (0 = unlimited) no retry is scheduled.
 */
const RetryBackoffSchema = z
  .strictObject({
    initial: Duration.default('5ms'),
    max: Duration.default('1000s'),
    multiplier: z.number().min(1, { error: 'multiplier must be at least 1' }).max(100).default(2),
    maxAttempts: z.int().min(0, { error: 'maxAttempts must be 0 (unlimited) or more' }).default(0),
  })
  .superRefine((value, ctx) => {
    if (!isDuration(value.initial) || !isDuration(value.max)) return;
    if (parseDuration(value.initial) <= 0)
      ctx.addIssue({
        code: 'custom',
        message: 'initial must be more than 0',
        path: ['initial'],
        input: value,
      });
    else if (parseDuration(value.max) < parseDuration(value.initial))
      ctx.addIssue({
        code: 'custom',
        message: 'max must not be less than initial',
        path: ['max'],
        input: value,
      });
  });
/** RetryBackoff is a retry policy after loading. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface RetryBackoff extends z.output<typeof RetryBackoffSchema> {}
/** RetryBackoff is the retry policy of a failed reconcile or external call (docs/reference/katalog.md §20.1). */
export const RetryBackoff: z.ZodType<RetryBackoff> = RetryBackoffSchema.meta({ id: 'RetryBackoff' });

/**
 * QueueBehaviour (docs/reference/katalog.md §20.7, upstream's `queue.behaviour`) makes the drop of
 * new keys conditional: `onThreshold` drops them from `value`% of `maxDepth` while its gate passes;
 * `onLimit` at `maxDepth` drops them when `drop` (default true) and its gate pass, else accepts them.
 */
const QueueBehaviourSchema = z.strictObject({
  onThreshold: gated({
    value: z
      .int()
      .min(1, { error: 'onThreshold.value is a percentage of maxDepth, 1–99' })
      .max(99, { error: 'onThreshold.value is a percentage of maxDepth, 1–99' }),
  }).optional(),
  onLimit: gated({ drop: z.boolean().default(true) }).optional(),
});
/** QueueBehaviour is a `queue.behaviour` block after loading. */
export type QueueBehaviour = z.output<typeof QueueBehaviourSchema>;

/** Queue configures the entry's work queue (docs/reference/katalog.md §20). */
const QueueSchema = z
  .strictObject({
    maxDepth: z.int().min(0).default(0),
    /**
     * Failed reconciles of the entry in a row before its health state is `degraded` (the Live API's
     * `/health`, docs/reference/runtime.md); upstream's key. Absent or 0 means 1: the first failure
     * degrades it. No default is written in: a loaded Katalog without it is the same as before the
     * key existed, so its revision (docs/reference/runtime.md §24.1) does not change on upgrade.
     */
    degradeThreshold: z
      .int({
        error:
          'queue.degradeThreshold counts failed reconciles in a row: a whole number, 0 or more (upstream refuses a fraction too: its field is an integer)',
      })
      .min(0, { error: 'queue.degradeThreshold counts failed reconciles in a row: 0 or more' })
      .optional(),
    retryBackoff: RetryBackoffSchema.prefault({}),
    behaviour: QueueBehaviourSchema.optional(),
  })
  .refine((queue) => queue.behaviour == null || queue.maxDepth > 0, {
    error: 'queue.behaviour needs a maxDepth above 0',
    path: ['behaviour'],
  });
/** Queue is a queue block. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface Queue extends z.output<typeof QueueSchema> {}
/** Queue configures the entry's work queue (docs/reference/katalog.md §20). */
export const Queue: z.ZodType<Queue> = QueueSchema.meta({ id: 'Queue' });

/** ENRICH_TARGETS are the `enrich` targets Orkestra adds (docs/reference/katalog.md §3.5). */
export const ENRICH_TARGETS = [
  'pods',
  'endpoints',
  'owner',
  'backingpods',
  'replicasets',
  'pvcs',
  'cronjob',
  'node',
  'pvc',
  'storageclass',
  'events',
] as const;
/** EnrichTargetName is one `enrich` target. */
export type EnrichTargetName = (typeof ENRICH_TARGETS)[number];

/** EnrichGate is the gate of a conditional target: `when` and `anyOf` (or its alias `or`), normalized. */
type EnrichGate = z.output<typeof gatedEnrich>;
const gatedEnrich = gated({});

/**
 * EnrichItem is one `enrich` item: a target name, or upstream's conditional form `{<target>: {when,
 * or}}` (one key), which adds the target only while its conditions hold (docs/reference/katalog.md §3.5).
 */
export type EnrichItem = EnrichTargetName | Readonly<Partial<Record<EnrichTargetName, EnrichGate>>>;
export const EnrichItem: z.ZodType<EnrichItem> = z
  .union([
    z.enum(ENRICH_TARGETS),
    z.partialRecord(z.enum(ENRICH_TARGETS), gatedEnrich).refine((item) => Object.keys(item).length === 1, {
      error: 'a conditional enrich item names one target: `- <target>: {when, or}`',
    }),
  ])
  .meta({ id: 'EnrichItem' });

/** EnrichRule is an `enrich` item read: its target and, for the conditional form, its gate. */
export interface EnrichRule {
  readonly target: EnrichTargetName;
  readonly gate?: { readonly when: readonly Condition[]; readonly anyOf: readonly Condition[] };
}

/** enrichRules reads an entry's `enrich` items in order (docs/reference/katalog.md §3.5). */
export function enrichRules(enrich: readonly EnrichItem[] | undefined): EnrichRule[] {
  return (enrich ?? []).map((item) => {
    if (typeof item === 'string') return { target: item };
    const [target, gate] = Object.entries(item)[0] as [EnrichTargetName, EnrichGate];
    return { target, gate };
  });
}

const enrichWatch = (apiVersion: string, kind: string): EnrichWatchItem => ({
  apiVersion,
  kind,
  on: ['create', 'update', 'delete'],
  enrich: true,
});
const POD_WATCH = enrichWatch('v1', 'Pod');

/**
 * ENRICH_WATCHES is the kind each `enrich` target reads (docs/reference/katalog.md §3.5), watched
 * like a `watch` item (`node`, `pvc` and `storageclass` read cluster-scoped kinds, so their watch is
 * cluster-wide); `owner` reads the child's own owner references and watches nothing, and
 * `backingpods` shares the Pod watch of `pods`.
 */
const ENRICH_WATCHES: Readonly<Record<EnrichTargetName, EnrichWatchItem | undefined>> = {
  pods: POD_WATCH,
  endpoints: enrichWatch('discovery.k8s.io/v1', 'EndpointSlice'),
  owner: undefined,
  backingpods: POD_WATCH,
  replicasets: enrichWatch('apps/v1', 'ReplicaSet'),
  pvcs: enrichWatch('v1', 'PersistentVolumeClaim'),
  cronjob: enrichWatch('batch/v1', 'Job'),
  node: enrichWatch('v1', 'Node'),
  pvc: enrichWatch('v1', 'PersistentVolume'),
  storageclass: enrichWatch('storage.k8s.io/v1', 'StorageClass'),
  // Only Warning events, and none re-queues a CR: they are read at the next reconcile.
  events: { apiVersion: 'v1', kind: 'Event', on: [], enrich: true, fieldSelector: 'type=Warning' },
};

/**
 * EnrichWatchItem is the watch of an `enrich` target: a change re-queues the CR named by the
 * object's owner-uid label (a Job's pods carry it from the pod template, a Service's
 * EndpointSlices from the Service), and nothing for an object without it.
 */
export type EnrichWatchItem = WatchItem & {
  readonly enrich: true;
  /** A field selector the informer lists and watches with (`type=Warning` for `events`). */
  readonly fieldSelector?: string;
};

/**
 * enrichWatchItems is the watch an entry's `enrich` needs: one item per target, so the runtime's
 * informers, re-queues and `ork generate rbac` treat it as any `watch` item.
 */
export function enrichWatchItems(entry: { readonly enrich?: readonly EnrichItem[] }): WatchItem[] {
  // A conditional target is watched too: its conditions may hold at any reconcile.
  const items = new Set(enrichRules(entry.enrich).map((rule) => ENRICH_WATCHES[rule.target]));
  return [...items].filter((item): item is EnrichWatchItem => item != null);
}

const DependencyCondition = z.enum(['started', 'healthy']);

/** DependsOn lists the entries whose workers must be started or healthy first; every written form becomes `[{name, condition}]`. */
export const DependsOn = z
  .union(
    [
      z.array(Literal),
      z.record(
        z.string(),
        z.union([DependencyCondition, z.strictObject({ condition: DependencyCondition })], {
          error: 'expected started, healthy or {condition: started|healthy}',
        }),
      ),
    ],
    { error: 'dependsOn is a list of entry names or a map of entry name to started/healthy' },
  )
  .transform((value) =>
    Array.isArray(value)
      ? value.map((name) => ({ name, condition: 'started' as const }))
      : Object.entries(value).map(([name, c]) => ({
          name,
          condition: typeof c === 'string' ? c : c.condition,
        })),
  );
/** DependsOn is a normalized dependency list. */
export type DependsOn = z.infer<typeof DependsOn>;

/** RequeueAfter is a duration, or a template that renders one (e.g. `{{ timeUntil .status.expiresAt }}`). */
const RequeueAfter = Tpl.refine((after) => isTemplate(after) || isDuration(after), {
  error: 'requeue `after` must be a duration such as "30s" or "1h30m", or a template that renders one',
});

/** RequeueRuleSchema is one rule of `requeue`: re-queue after `after` when its gate passes. */
const RequeueRuleSchema = gated({ after: RequeueAfter });

/**
 * Requeue schedules a CR's next reconcile after a successful one (docs/reference/katalog.md §20.2): a
 * duration or template (`requeue: 30s`), one rule `{after, when, anyOf}`, or a list of rules of
 * which the first whose gate passes applies. Every written form becomes a list of rules.
 */
const RequeueSchema = z.preprocess(
  (value) => (typeof value === 'string' || typeof value === 'number' ? { after: value } : value),
  z
    .union([RequeueRuleSchema, z.array(RequeueRuleSchema).min(1)], {
      error: 'requeue is a duration, a template, {after, when, anyOf} or a list of those',
    })
    .transform((value) => (Array.isArray(value) ? value : [value])),
);
/** RequeueRule is one requeue rule after loading. */
export type RequeueRule = z.output<typeof RequeueRuleSchema>;
/** Requeue is the list of requeue rules (docs/reference/katalog.md §20.2). */
export const Requeue: z.ZodType<RequeueRule[], unknown> = RequeueSchema.meta({ id: 'Requeue' });

/**
 * SENTINELS are the event-time booleans a pre-reconcile gate can read (docs/reference/katalog.md §20.3),
 * each comparing a CR with its previous version: `generationChanged` (the spec changed),
 * `labelsChanged`, `annotationsChanged`, `finalizersChanged` and `deletionStarted` (the deletion
 * timestamp was just set).
 */
export const SENTINELS = [
  'generationChanged',
  'labelsChanged',
  'annotationsChanged',
  'deletionStarted',
  'finalizersChanged',
] as const;
/** Sentinel is one sentinel name. */
export type Sentinel = (typeof SENTINELS)[number];

const SentinelName = z.enum(SENTINELS, {
  error: `a sentinel is one of ${SENTINELS.join(', ')}`,
});

/**
 * PreReconcileGateSchema is one pre-reconcile gate: it passes when one of its `sentinels` is true, or
 * else when its `when`/`anyOf` conditions pass (a gate with neither always passes). `failPolicy`
 * decides a gate whose conditions cannot be evaluated (a template that fails to render): `open`
 * (default) passes it, `closed` holds it. `eventAware` evaluates each event of a CR on its own
 * instead of the events merged since the last reconcile. `external` calls (katalog.md §15.1, the same fields)
 * are made before the conditions, which read them as `external.<name>`; a failed call holds the
 * gate under `failPolicy: closed` and passes it under `open`.
 */
const PreReconcileGateSchema = gated({
  sentinels: z.array(SentinelName).default([]),
  external: z.array(ExternalCall).default([]),
  failPolicy: z.enum(['open', 'closed']).default('open'),
  eventAware: z.boolean().default(false),
});
/** PreReconcileGate is one gate after loading. */
export type PreReconcileGate = z.output<typeof PreReconcileGateSchema>;

/** WatchEvent is a change of a watched object: created, updated or deleted. */
const WatchEvent = z.enum(['create', 'update', 'delete'], {
  error: 'expected create, update or delete',
});

const WatchKeyFromSchema = z
  .strictObject({
    /** A label of the watched object whose value is the CR's key: `namespace/name`, or `name`. */
    label: Literal.min(1).optional(),
    /** A fixed CR name to re-queue, whichever watched object changed. */
    name: Literal.min(1).optional(),
    /** The fixed CR's namespace (with `name`). */
    namespace: Literal.min(1).optional(),
  })
  .refine((k) => (k.label == null) !== (k.name == null), {
    error: 'keyFrom takes exactly one of label or name',
  })
  .refine((k) => k.label == null || k.namespace == null, {
    error: 'keyFrom.namespace qualifies name; with label the key comes from the label',
    path: ['namespace'],
  });

/**
 * WatchItemSchema is one object kind an entry watches besides its children (docs/reference/katalog.md §3.2,
 * upstream's `operatorBox.watch`): a change to a matching object re-queues CRs of the entry.
 */
const WatchItemSchema = z.strictObject({
  apiVersion: Literal.regex(/^([a-z0-9.-]+\/)?v\d+((alpha|beta)\d+)?$/, {
    error: 'apiVersion must look like v1, apps/v1 or example.org/v1alpha1',
  }),
  kind: Literal.regex(/^[A-Z][A-Za-z0-9]*$/, { error: 'kind must be PascalCase, e.g. ConfigMap' }),
  /** Watch this namespace only (default: every namespace the operator watches). */
  namespace: Literal.min(1).optional(),
  /** Watch the object of this name only. */
  name: Literal.min(1).optional(),
  /** The changes that re-queue (default: all three). */
  on: z.array(WatchEvent).min(1).default(['create', 'update', 'delete']),
  /** Which CR a change re-queues (default: the owner CR by ownerReference, else every CR of the entry). */
  keyFrom: WatchKeyFromSchema.optional(),
  /**
   * A gate on this watch's events (upstream's `watch[].enqueueGate`): decided with the watched
   * object and its sentinels before the CRs it routes to are queued; a deleted object always passes.
   */
  enqueueGate: PreReconcileGateSchema.refine((gate) => gate.external.length === 0, {
    error:
      'a watch gate makes no external calls: it is decided in the informer for the watched object, not for a CR; put the call in preReconcile.enqueueGate or reconcileGate',
    path: ['external'],
  }).optional(),
});
/** WatchItem is a watch item after loading. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface WatchItem extends z.output<typeof WatchItemSchema> {}
/** WatchItem is one object kind an entry watches besides its children (docs/reference/katalog.md §3.2). */
export const WatchItem: z.ZodType<WatchItem> = WatchItemSchema.meta({ id: 'WatchItem' });

const PreReconcileSchema = z
  .strictObject({
    sentinels: z.array(SentinelName).optional(),
    external: z.array(ExternalCall).default([]),
    enqueueGate: PreReconcileGateSchema.optional(),
    reconcileGate: PreReconcileGateSchema.optional(),
  })
  .superRefine((pre, ctx) => {
    for (const gate of ['enqueueGate', 'reconcileGate'] as const) {
      const names = new Set(pre.external.map((call) => call.name));
      (pre[gate]?.external ?? []).forEach((call, index) => {
        if (names.has(call.name))
          ctx.addIssue({
            code: 'custom',
            message: `external call ${call.name} is declared twice (preReconcile.external and ${gate}.external share the names they read as external.<name>)`,
            path: [gate, 'external', index, 'name'],
            input: call.name,
          });
        names.add(call.name);
      });
    }
    if (pre.sentinels == null) return;
    const declared = new Set<string>(pre.sentinels);
    for (const gate of ['enqueueGate', 'reconcileGate'] as const)
      (pre[gate]?.sentinels ?? []).forEach((name, index) => {
        if (!declared.has(name))
          ctx.addIssue({
            code: 'custom',
            message: `sentinel ${name} is not declared in preReconcile.sentinels (${[...declared].join(', ') || 'none'})`,
            path: [gate, 'sentinels', index],
            input: name,
          });
      });
  });
/** PreReconcile is a `preReconcile` block after loading. */
export type PreReconcile = z.output<typeof PreReconcileSchema>;
/**
 * PreReconcile gates a CR's reconciles (docs/reference/katalog.md §20.3): `enqueueGate` is decided when an
 * event for the CR arrives, before its key is queued; `reconcileGate` when a worker takes the key.
 * `sentinels` declares the sentinels the gates read (optional; every gate sentinel must be in it
 * when it is given). `external` calls are made before either gate's own calls and read by both as
 * `external.<name>`; a failed one passes the gate (always fail-open, as upstream). A CR being
 * deleted is never gated.
 */
export const PreReconcile: z.ZodType<PreReconcile, unknown> = PreReconcileSchema.meta({
  id: 'PreReconcile',
});

/** RollbackTrigger is `rollback.trigger` (docs/reference/katalog.md §20.4); the Rollback schema is in katalog.ts. */
export const RollbackTrigger = z
  .strictObject({
    consecutiveFailures: z.int().min(1, { error: 'consecutiveFailures must be at least 1' }).default(3),
    withinDuration: Duration.optional(),
  })
  .prefault({});

/** EmitTrigger is a reconcile outcome a declared Event fires on (docs/reference/katalog.md §20.5). */
const EmitTrigger = z.enum(['always', 'success', 'failure'], {
  error: 'on is a list of always, success and failure',
});

const EmitEventSchema = gated({
  type: z.enum(['Normal', 'Warning'], { error: 'type must be Normal or Warning' }),
  reason: Tpl.refine((reason) => reason.trim() !== '', { error: 'reason must not be empty' }),
  message: Tpl,
  on: z.array(EmitTrigger).default([]),
});
/** EmitEvent is one declared Event after loading. */
export type EmitEvent = z.output<typeof EmitEventSchema>;
/**
 * EmitEvents (docs/reference/katalog.md §20.5, upstream's `emit.events`) names the Kubernetes Events
 * the runtime records about a CR after a reconcile: each with a `type`, a templated `reason` and
 * `message`, the outcomes it fires `on` (`always` when empty) and an optional gate.
 */
export const EmitEvents: z.ZodType<Record<string, EmitEvent>, unknown> = z
  .record(Literal.min(1, { error: 'an event name must not be empty' }), EmitEventSchema)
  .meta({ id: 'EmitEvents' });

const CleanupSchema = gated({ deleteAfter: Duration.default('0s') }).refine(
  (cleanup) => cleanup.when.length + cleanup.anyOf.length > 0,
  { error: 'cleanup needs a condition (when or or) naming the terminal state' },
);
/** Cleanup is a `cleanup` block after loading. */
export type Cleanup = z.output<typeof CleanupSchema>;
/**
 * Cleanup (docs/reference/katalog.md §20.6, upstream's `runtime.cleanup`) deletes a CR once its
 * conditions (its terminal state) have held for `deleteAfter` (default 0s: at once).
 */
export const Cleanup: z.ZodType<Cleanup, unknown> = CleanupSchema.meta({ id: 'Cleanup' });

import { z } from 'zod';
import { Duration } from '../duration.js';
import { RESOURCE_KINDS } from '../kinds/index.js';
import { gated } from './condition.js';
import { parseMongoQuery } from './mongo-query.js';
import {
  BoolLike,
  Identifier,
  JsonMap,
  Literal,
  LiteralNamespace,
  TemplateValue,
  Tpl,
  TplMap,
  isTemplate,
} from './primitives.js';

/**
 * EXTERNAL_PROTOCOLS are the protocols an external call speaks (docs/reference/katalog.md §15.1.1,
 * docs/adr/0053-external-protocols-are-units.md), each with the URL schemes it accepts. The
 * reconciler's protocol table has one unit per name.
 */
export const EXTERNAL_PROTOCOLS = {
  http: ['http', 'https'],
  prometheus: ['http', 'https'],
  postgres: ['postgres', 'postgresql'],
  redis: ['redis', 'rediss'],
  mongo: ['mongodb'],
  kafka: ['kafka'],
} as const satisfies Record<string, readonly string[]>;

/**
 * KAFKA_SASL_MECHANISMS are the `?sasl=` values of a `protocol: kafka` URL (docs/reference/katalog.md
 * §15.1.1, ADR 0074): the mechanisms @orkestra/protocol-kafka logs in with.
 */
export const KAFKA_SASL_MECHANISMS = ['plain', 'scram-sha-256', 'scram-sha-512'] as const;

/** KAFKA_URL_OPTIONS are the query options a `protocol: kafka` URL takes. */
const KAFKA_URL_OPTIONS = ['tls', 'sasl'];

/** ExternalProtocolName is one of EXTERNAL_PROTOCOLS. */
export type ExternalProtocolName = keyof typeof EXTERNAL_PROTOCOLS;

const PROTOCOL_NAMES = Object.keys(EXTERNAL_PROTOCOLS) as [ExternalProtocolName, ...ExternalProtocolName[]];

/** ExternalCall is one call of `operatorBox.external` (docs/reference/katalog.md §15.1). */
const ExternalCallSchema = gated({
  name: Identifier,
  protocol: z
    .enum(PROTOCOL_NAMES, { error: `expected a protocol: ${PROTOCOL_NAMES.join(', ')}` })
    .default('http'),
  url: Tpl,
  /**
   * The protocol's query (`prometheus`: PromQL; `postgres`: one literal SQL statement; `redis`: a
   * read command; `mongo`: `<database>.<collection> [filter JSON]`, literal; `kafka`: `@<topic>` or
   * `<group>/<topic>`).
   */
  query: Tpl.optional(),
  /**
   * `postgres`, `mongo`: the bind parameters `$1`, `$2`, … (templates; sent as values, never spliced
   * into the SQL or the filter's keys).
   */
  params: z.array(Tpl).max(64).optional(),
  /** `prometheus`: a range query over the last `duration`, one sample every `step`. */
  range: z.strictObject({ duration: Duration, step: Duration.default('1m') }).optional(),
  method: Literal.default('GET'),
  headers: TplMap.default({}),
  body: TemplateValue.optional(),
  timeout: Duration.default('10s'),
  expectedStatus: z
    .union([z.int(), z.array(z.int())], { error: 'expected an HTTP status code or a list of them' })
    .optional(),
  continueOnError: z.boolean().default(false),
  /**
   * Retries of a failed call within one reconcile (docs/reference/katalog.md §15.1): the n-th retry
   * waits `min(initial × multiplier^(n-1), max)`, at most `maxAttempts` attempts in all. Default: one attempt.
   */
  retryBackoff: z
    .strictObject({
      initial: Duration.default('1s'),
      max: Duration.default('30s'),
      multiplier: z.number().min(1, { error: 'multiplier must be at least 1' }).max(100).default(2),
      maxAttempts: z.int().min(1, { error: 'maxAttempts must be at least 1' }).max(10).default(3),
    })
    .optional(),
  auth: z
    .strictObject({
      secretRef: z
        .strictObject({
          name: Tpl,
          key: Tpl,
          // A Secret of another namespace: a literal, so the Katalog's author, not a CR, picks the
          // namespace the operator reads credentials from (docs/reference/katalog.md §15.1).
          namespace: LiteralNamespace.optional(),
        })
        .optional(),
      env: z
        .string()
        .regex(/^\$\{?[A-Za-z_][A-Za-z0-9_]*\}?$/, { error: 'expected $NAME' })
        .optional(),
      header: Literal.default('Authorization'),
      scheme: Literal.default('Bearer'),
    })
    .superRefine((auth, ctx) => {
      if (auth.secretRef !== undefined && auth.env !== undefined)
        ctx.addIssue({
          code: 'custom',
          message: '`secretRef` and `env` are exclusive',
          path: ['env'],
          input: auth,
        });
      if (auth.secretRef === undefined && auth.env === undefined)
        ctx.addIssue({ code: 'custom', message: 'auth needs `secretRef` or `env`', input: auth });
    })
    .optional(),
  cacheFor: Duration.default('0'),
  // Upstream's `fires.reconcile: false` marks a call made only at admission: in `validation.external`
  // the admission webhook makes it and the reconcile does not; elsewhere it is never made
  // (docs/reference/katalog.md §15.1, ADR 0104). Its name stays declared, absent at reconcile time.
  fires: z.strictObject({ reconcile: z.boolean().default(true) }).optional(),
})
  .superRefine((call, ctx) => checkProtocol(call, ctx))
  .superRefine((call, ctx) => checkCredentialTarget(call, ctx));

const URL_SCHEME = /^([a-z][a-z0-9+.-]*):\/\//i;

/**
 * checkProtocol holds the fields of a call to its protocol (docs/reference/katalog.md §15.1.1): the
 * URL scheme, `query` where one is needed, `params` and `range` only where they mean something, and
 * a literal SQL statement: a CR value reaches PostgreSQL only as a bind parameter.
 */
function checkProtocol(
  call: {
    protocol: ExternalProtocolName;
    url: string;
    query?: string | undefined;
    params?: readonly string[] | undefined;
    range?: unknown;
    body?: unknown;
  },
  ctx: z.RefinementCtx,
): void {
  const issue = (path: string, message: string, input: unknown): void =>
    ctx.addIssue({ code: 'custom', message, path: [path], input });
  const schemes: readonly string[] = EXTERNAL_PROTOCOLS[call.protocol];
  const scheme = URL_SCHEME.exec(call.url)?.[1]?.toLowerCase();
  if (!isTemplate(call.url) || scheme != null) {
    if (scheme == null || !schemes.includes(scheme))
      issue('url', `url must start with ${schemes.map((s) => `${s}://`).join(' or ')}`, call.url);
  }
  if (call.protocol !== 'http' && /^[a-z][a-z0-9+.-]*:\/\/[^/@]*:[^/@]*@/i.test(call.url))
    issue(
      'url',
      'a password in the URL is refused: put it in a Secret and name it in `auth.secretRef`',
      '[redacted]',
    );
  if (call.protocol === 'http') {
    for (const field of ['query', 'params', 'range'] as const)
      if (call[field] !== undefined)
        issue(field, `\`${field}\` belongs to another protocol (set \`protocol\`)`, call[field]);
    return;
  }
  if (call.query === undefined || call.query === '')
    issue('query', `protocol ${call.protocol} needs a \`query\``, call.query);
  if (call.body !== undefined) issue('body', `protocol ${call.protocol} sends no body`, call.body);
  if (call.protocol === 'kafka') checkKafkaOptions(call.url, issue);
  if (call.protocol === 'prometheus' || call.protocol === 'redis' || call.protocol === 'kafka') {
    if (call.params !== undefined)
      issue(
        'params',
        `bind parameters are for protocols postgres and mongo; template the ${call.protocol === 'redis' ? 'command' : call.protocol === 'kafka' ? 'topic' : 'PromQL'} instead`,
        call.params,
      );
    if (call.protocol !== 'prometheus' && call.range !== undefined)
      issue('range', '`range` is for protocol prometheus', call.range);
    return;
  }
  if (call.range !== undefined) issue('range', '`range` is for protocol prometheus', call.range);
  if (call.protocol === 'mongo') {
    if (call.query === undefined || call.query === '') return;
    if (isTemplate(call.query)) {
      issue(
        'query',
        'the mongo query must be literal: pass CR values as bind parameters (`params`, written "$1", "$2", … as filter values), never inside the query',
        call.query,
      );
      return;
    }
    const parsed = parseMongoQuery(call.query);
    if (!parsed.ok) issue('query', parsed.error, call.query);
    else if ((call.params?.length ?? 0) < parsed.query.placeholders)
      issue(
        'params',
        `the filter reads $${parsed.query.placeholders}: \`params\` needs that many values`,
        call.params,
      );
    return;
  }
  if (call.query !== undefined && isTemplate(call.query))
    issue(
      'query',
      'the SQL statement must be literal: pass CR values as bind parameters (`params`, read as $1, $2, …), never inside the SQL',
      call.query,
    );
}

/**
 * checkKafkaOptions refuses, at `url`, a `protocol: kafka` URL option the protocol does not take and a
 * `?sasl=` mechanism it does not speak (ADR 0074, ADR 0086); a templated option is checked at the call.
 */
function checkKafkaOptions(
  url: string,
  issue: (path: string, message: string, input: unknown) => void,
): void {
  const q = url.indexOf('?');
  if (q === -1) return;
  const options = new URLSearchParams(url.slice(q + 1));
  for (const [key, value] of options) {
    if (key.includes('{{') || value.includes('{{')) continue;
    if (!KAFKA_URL_OPTIONS.includes(key))
      issue('url', `URL option ${key} is not supported (${KAFKA_URL_OPTIONS.join(', ')})`, url);
    else if (key === 'sasl' && !(KAFKA_SASL_MECHANISMS as readonly string[]).includes(value.toLowerCase()))
      issue(
        'url',
        `sasl=${JSON.stringify(value)} is not a SASL mechanism protocol kafka speaks (${KAFKA_SASL_MECHANISMS.join(', ')})`,
        url,
      );
  }
}

/** URL_ORIGIN is the scheme and authority (userinfo, host, port) of a URL as written. */
const URL_ORIGIN = /^([a-z][a-z0-9+.-]*):\/\/([^/?#]*)/i;

/**
 * checkCredentialTarget keeps a CR from choosing both a credential and where it is sent
 * (docs/reference/katalog.md §15.1, ADR 0033): with `auth.secretRef.namespace` set, the Secret's
 * `name` and `key` are literal (as `copyFrom` requires); with any `auth`, the URL's scheme, host and
 * port are literal, so the Katalog's author picks the credential's recipient. Only the path and
 * query may be templates.
 */
function checkCredentialTarget(
  call: {
    url: string;
    auth?:
      { secretRef?: { name: string; key: string; namespace?: string | undefined } | undefined } | undefined;
  },
  ctx: z.RefinementCtx,
): void {
  const auth = call.auth;
  if (auth == null) return;
  const ref = auth.secretRef;
  if (ref?.namespace != null) {
    for (const field of ['name', 'key'] as const) {
      if (!isTemplate(ref[field])) continue;
      ctx.addIssue({
        code: 'custom',
        message: `must be a literal, not a template, when auth.secretRef.namespace is set: a CR must not choose which credential of another namespace the operator sends`,
        path: ['auth', 'secretRef', field],
        input: ref[field],
      });
    }
  }
  const origin = URL_ORIGIN.exec(call.url);
  if (origin == null || origin[0].includes('{{') || origin[0].includes('}}')) {
    ctx.addIssue({
      code: 'custom',
      message:
        "with `auth`, the URL's scheme, host and port must be literal (only the path and query may be templates): a CR must not choose where the credential is sent",
      path: ['url'],
      input: call.url,
    });
  }
}
/** ExternalCall is an external call (HTTP or another protocol). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface ExternalCall extends z.output<typeof ExternalCallSchema> {}
/** ExternalCall is one HTTP call of `operatorBox.external` (docs/reference/katalog.md §15.1). */
export const ExternalCall: z.ZodType<ExternalCall> = ExternalCallSchema.meta({ id: 'ExternalCall' });

/**
 * BearerAuth is the bearer token a read sends (upstream's `auth.token`/`auth.secretRef`): from the
 * operator's environment (`$NAME`) or a Secret, never a literal. Cross reads and autoscale sources
 * share it; where the Secret is read differs per path (katalog.md §15.2, §18.2).
 */
export const BearerAuth = z
  .strictObject({
    env: z
      .string()
      .regex(/^\$\{?[A-Za-z_][A-Za-z0-9_]*\}?$/, { error: 'expected $NAME' })
      .optional(),
    secretRef: z
      .strictObject({ name: Literal, key: Literal, namespace: LiteralNamespace.optional() })
      .optional(),
  })
  .superRefine((auth, ctx) => {
    if ((auth.env === undefined) === (auth.secretRef === undefined))
      ctx.addIssue({
        code: 'custom',
        message: 'auth needs exactly one of `env` and `secretRef`',
        input: auth,
      });
  });

/**
 * CROSS_PROTOCOLS are the Live API answers a cross read may ask a peer for (docs/reference/katalog.md
 * §15.2, runtime.md §18.6): `cr` one CR, `events` its events, `health` the entry's health,
 * `metrics` and `info` the entry's summary (with its `metrics` map).
 */
const CROSS_PROTOCOLS = ['cr', 'health', 'metrics', 'info', 'events'] as const;
/** Protocols that read one CR, and so need `selector.name`. */
const PER_CR_PROTOCOLS: ReadonlySet<string> = new Set(['cr', 'events']);

/** CrossRead reads another CRD entry's CR (docs/reference/katalog.md §15.2); `as` defaults to `crd`. */
const CrossReadSchema = z
  .strictObject({
    crd: Literal,
    selector: z
      .strictObject({ name: Tpl.optional(), namespace: Tpl.optional(), matchLabels: TplMap.optional() })
      .superRefine((selector, ctx) => {
        if (selector.name !== undefined && selector.matchLabels !== undefined) {
          ctx.addIssue({
            code: 'custom',
            message: 'a selector needs exactly one of `name` and `matchLabels`',
            input: selector,
          });
        }
      })
      .default({}),
    as: Identifier.optional(),
    /**
     * Which matches `cross.<as>` holds (upstream's key): `first` (default) the oldest match, one
     * object; `all` every match, a list, oldest first. Over HTTP, only with `endpoint` and
     * `protocol: cr` (or none): the peer's Live API lists them (ADR 0101), or, for a `name`, its
     * one CR is read and answered as a list of one (ADR 0108).
     */
    strategy: z.enum(['first', 'all']).optional(),
    /** Base URL of the peer operator (its cross-read port); the path follows from `protocol`. */
    endpoint: Tpl.optional(),
    /** Which Live API answer to read from `endpoint`; without it, the object path of runtime.md §18.5. */
    protocol: z.enum(CROSS_PROTOCOLS).optional(),
    /** A full URL whose JSON object answer is the result (any service; upstream's `source.endpoint`). */
    url: Tpl.optional(),
    timeout: Duration.optional(),
    cacheFor: Duration.optional(),
    /** The bearer token to send: from the operator's environment or a Secret (never a literal). */
    auth: BearerAuth.optional(),
  })
  .superRefine((cross, ctx) => checkCrossRead(cross, ctx))
  .transform((cross) => ({
    ...cross,
    as: cross.as ?? cross.crd,
    ...(cross.endpoint === undefined && cross.url === undefined
      ? {}
      : { timeout: cross.timeout ?? '5s', cacheFor: cross.cacheFor ?? '30s' }),
  }));

/** checkCrossRead checks the keys that depend on each other in one cross read. */
function checkCrossRead(
  cross: {
    selector: { name?: string | undefined; matchLabels?: unknown };
    strategy?: 'first' | 'all' | undefined;
    endpoint?: string | undefined;
    url?: string | undefined;
    protocol?: string | undefined;
    timeout?: string | undefined;
    cacheFor?: string | undefined;
    auth?: unknown;
  },
  ctx: z.RefinementCtx,
): void {
  const issue = (path: (string | number)[], message: string, input: unknown): void =>
    ctx.addIssue({ code: 'custom', message, path, input });
  const remote = cross.endpoint ?? cross.url;
  if (cross.endpoint !== undefined && cross.url !== undefined)
    issue(
      ['url'],
      '`url` and `endpoint` are exclusive (`url` is a whole URL, `endpoint` a base URL)',
      cross.url,
    );
  if (cross.protocol !== undefined && cross.endpoint === undefined)
    issue(['protocol'], '`protocol` applies only with `endpoint`', cross.protocol);
  if (remote === undefined) {
    for (const key of ['timeout', 'cacheFor', 'auth'] as const)
      if (cross[key] !== undefined)
        issue([key], `\`${key}\` applies only with \`endpoint\` or \`url\``, cross[key]);
  }
  const perCr =
    cross.url === undefined && (cross.protocol === undefined || PER_CR_PROTOCOLS.has(cross.protocol));
  if (remote === undefined || perCr) {
    if ((cross.selector.name === undefined) === (cross.selector.matchLabels === undefined))
      issue(['selector'], 'a selector needs exactly one of `name` and `matchLabels`', cross.selector);
  }
  // Over HTTP, a label selector and `strategy: all` list the peer's CRs on its Live API
  // (`/katalog/<crd>/cr?labelSelector=`, runtime.md §18.6, ADR 0101): only `endpoint` with `protocol: cr`
  // (or none) lists; a whole `url` and the other protocols answer one object. `all` with a `name`
  // reads that one CR and answers a list of it, or an empty list (ADR 0108).
  const lists = cross.url === undefined && (cross.protocol === undefined || cross.protocol === 'cr');
  const oneAnswer =
    cross.url === undefined
      ? `\`protocol: ${cross.protocol ?? ''}\` answers one object`
      : 'a whole `url` answers one object';
  if (cross.strategy === 'all' && remote !== undefined && !lists)
    issue(
      ['strategy'],
      `\`strategy: all\` lists the matching CRs in process, or over HTTP from a peer with \`endpoint\` and \`protocol: cr\`; ${oneAnswer}`,
      cross.strategy,
    );
  if (remote !== undefined && cross.selector.matchLabels !== undefined && !lists)
    issue(
      ['selector', 'matchLabels'],
      `\`selector.matchLabels\` over HTTP lists the peer's CRs with \`endpoint\` and \`protocol: cr\`; ${oneAnswer} — use \`selector.name\``,
      cross.selector,
    );
  if (cross.auth !== undefined && remote !== undefined) {
    const origin = URL_ORIGIN.exec(remote);
    if (origin == null || origin[0].includes('{{') || origin[0].includes('}}'))
      issue(
        [cross.url === undefined ? 'endpoint' : 'url'],
        "with `auth`, the URL's scheme, host and port must be literal (only the path may be a template): a CR must not choose where the credential is sent",
        remote,
      );
  }
}
/** CrossRead is a cross read. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface CrossRead extends z.output<typeof CrossReadSchema> {}
/** CrossRead reads another CRD entry's CR (docs/reference/katalog.md §15.2); `as` defaults to `crd`. */
export const CrossRead: z.ZodType<CrossRead> = CrossReadSchema.meta({ id: 'CrossRead' });

/** GitHook fetches a repository before the external calls (docs/reference/katalog.md §16.1). */
const GitHookSchema = gated({
  repo: Tpl,
  branch: Tpl.default('main'),
  path: Tpl.default(''),
  pollInterval: Duration.default('5m'),
  timeout: Duration.default('2m'),
  continueOnError: z.boolean().default(false),
  /** Accepted for compatibility; no effect. */
  reconcile: BoolLike.optional(),
});
/** GitHook is a git hook. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface GitHook extends z.output<typeof GitHookSchema> {}
/** GitHook fetches a repository before the external calls (docs/reference/katalog.md §16.1). */
export const GitHook: z.ZodType<GitHook> = GitHookSchema.meta({ id: 'GitHook' });

/** DockerHook builds (and optionally pushes) an image (docs/reference/katalog.md §16.2). `builder` stays absent when not written, so `OCI_BUILDER` can override the default `docker`. */
const DockerHookSchema = gated({
  image: Tpl,
  workingDirectory: Tpl.optional(),
  dockerfile: Tpl.default('Dockerfile'),
  buildArgs: TplMap.default({}),
  push: z.boolean().default(false),
  builder: z.enum(['docker', 'podman', 'buildah']).optional(),
  timeout: Duration.default('30m'),
  continueOnError: z.boolean().default(false),
  /** Accepted for compatibility; no effect. */
  reconcile: BoolLike.optional(),
});
/** DockerHook is a docker hook. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface DockerHook extends z.output<typeof DockerHookSchema> {}
/** DockerHook builds (and optionally pushes) an image (docs/reference/katalog.md §16.2). `builder` stays absent when not written, so `OCI_BUILDER` can override the default `docker`. */
export const DockerHook: z.ZodType<DockerHook> = DockerHookSchema.meta({ id: 'DockerHook' });

/**
 * HOISTED_HOOKS are the hook fields that may also be declared under `onCreate`/`onReconcile`; the
 * loader hoists them to `operatorBox` (docs/reference/katalog.md §15, §16): `lists` append their
 * items in order (onReconcile, onCreate, operatorBox), `blocks` may be declared in one place only.
 * The reconciler's hook table reads it (which hooks `--strict` finds under a group).
 */
export const HOISTED_HOOKS = { lists: ['external'], blocks: ['git', 'docker'] } as const;

/** A managed resource of a remote reconciler: `group` + `plural` (upstream's form); `version` and `kind` name a kind outside the kind table. */
const ManagedResourceSchema = z.strictObject({
  group: Literal,
  plural: Literal.regex(/^[a-z][a-z0-9]*$/, {
    error: 'plural must be a lowercase resource name, e.g. deployments',
  }),
  version: Literal.regex(/^v\d+((alpha|beta)\d+)?$/, {
    error: 'version must look like v1 or v1beta1',
  }).optional(),
  kind: Literal.regex(/^[A-Z][A-Za-z0-9]*$/, { error: 'kind must be PascalCase, e.g. Database' }).optional(),
});

/** Dot paths stripped from an object before it is sent (`metadata.managedFields`). */
const ExcludePaths = z
  .array(Literal.regex(/^[A-Za-z0-9_.-]+$/, { error: 'expected a dot path' }))
  .default([]);

/**
 * RemoteReconciler hands each CR to an HTTP service that decides its children and status
 * (docs/reference/katalog.md §15.3, docs/adr/0046-remote-reconciler-is-a-hook.md): upstream's
 * `reconcile.remote` fields.
 */
const RemoteReconcilerSchema = z
  .strictObject({
    /** The service's URL; or `module` + `function` for an in-process module reconciler (ADR 0064). */
    endpoint: Tpl.optional(),
    /** An npm package whose export `function` is made with `defineReconciler`, optionally `@<range>` (ADR 0064). */
    module: Literal.min(1).optional(),
    function: Identifier.optional(),
    version: Literal.min(1).optional(),
    /** `http` only; upstream reserves `grpc`. */
    type: z
      .enum(['http'], { error: 'type must be http (upstream reserves grpc for a later release)' })
      .default('http'),
    timeout: Duration.default('30s'),
    /** Attempts of one call within a reconcile (network errors, timeouts and 5xx are retried with backoff). */
    attempts: z.int().min(1).max(10).default(3),
    args: TplMap.default({}),
    payload: z
      .strictObject({
        object: z.strictObject({ exclude: ExcludePaths }).prefault({}),
        children: z
          .strictObject({
            enabled: z.boolean().default(false),
            exclude: ExcludePaths,
          })
          .prefault({}),
      })
      .prefault({}),
    managedResources: z.array(ManagedResourceSchema).default([]),
    auth: z
      .strictObject({
        secretRef: z
          .strictObject({ name: Literal, key: Literal, namespace: LiteralNamespace.optional() })
          .optional(),
        env: z
          .string()
          .regex(/^\$?\{?[A-Za-z_][A-Za-z0-9_]*\}?$/, { error: 'expected an environment variable name' })
          .optional(),
        header: Literal.default('Authorization'),
      })
      .superRefine((auth, ctx) => {
        if ((auth.secretRef === undefined) === (auth.env === undefined))
          ctx.addIssue({
            code: 'custom',
            message: 'auth needs exactly one of `secretRef` or `env`',
            input: auth,
          });
      })
      .optional(),
  })
  .superRefine((remote, ctx) => {
    remote.managedResources.forEach((resource, i) => {
      const known = RESOURCE_KINDS.some((k) => k.group === resource.group && k.plural === resource.plural);
      if (!known && (resource.version === undefined || resource.kind === undefined))
        ctx.addIssue({
          code: 'custom',
          message: `${resource.group === '' ? '' : `${resource.group}/`}${resource.plural} is not a built-in kind: give its \`version\` and \`kind\` so the operator can watch and write it`,
          path: ['managedResources', i],
          input: resource,
        });
    });
    // A CR must not choose where a credential goes (ADR 0033): with `auth`, the endpoint is literal.
    if (remote.auth !== undefined && isTemplate(remote.endpoint))
      ctx.addIssue({
        code: 'custom',
        message:
          'endpoint must be literal when `auth` sends a credential: a CR must not choose where it goes',
        path: ['endpoint'],
        input: remote.endpoint,
      });
    if (remote.module !== undefined) {
      checkModuleReconciler(remote, ctx);
      return;
    }
    if (remote.endpoint === undefined) {
      ctx.addIssue({
        code: 'custom',
        message:
          'remote needs `endpoint` (an HTTP service) or `module` + `function` (a defineReconciler export of an npm package)',
        input: remote,
      });
      return;
    }
    for (const key of ['function', 'version'] as const)
      if (remote[key] !== undefined)
        ctx.addIssue({
          code: 'custom',
          message: `\`${key}\` names a module reconciler's export: it goes with \`module\`, not \`endpoint\``,
          path: [key],
          input: remote[key],
        });
    if (!URL_SCHEME.test(remote.endpoint) && !isTemplate(remote.endpoint))
      ctx.addIssue({
        code: 'custom',
        message: 'endpoint must be an http(s) URL',
        path: ['endpoint'],
        input: remote.endpoint,
      });
  })
  .transform((remote) => {
    if (remote.module === undefined) return remote;
    const { name, range } = splitModuleReference(remote.module);
    const version = remote.version ?? (range === '' ? undefined : range);
    return { ...remote, module: name, ...(version == null ? {} : { version }) };
  });

/** checkModuleReconciler checks a `remote` that names a module reconciler (ADR 0064): a package and an export, no HTTP keys. */
function checkModuleReconciler(
  remote: {
    module?: string | undefined;
    function?: string | undefined;
    version?: string | undefined;
    endpoint?: string | undefined;
    auth?: unknown;
  },
  ctx: z.RefinementCtx,
): void {
  const reference = remote.module ?? '';
  const { name, range } = splitModuleReference(reference);
  if (!NPM_NAME.test(name))
    ctx.addIssue({
      code: 'custom',
      path: ['module'],
      input: reference,
      message: `expected an npm package name (\`name\` or \`@scope/name\`), optionally with a version range after \`@\`; got "${reference}"`,
    });
  if (range === '')
    ctx.addIssue({
      code: 'custom',
      path: ['module'],
      input: reference,
      message: 'expected a version range after `@`',
    });
  if (range != null && range !== '' && remote.version != null && remote.version !== range)
    ctx.addIssue({
      code: 'custom',
      path: ['version'],
      input: remote.version,
      message: `\`module\` already pins ${range}; write the range in one place`,
    });
  if (remote.function === undefined)
    ctx.addIssue({
      code: 'custom',
      path: ['module'],
      input: reference,
      message: '`module` needs `function`: the name of the defineReconciler export',
    });
  for (const key of ['endpoint', 'auth'] as const)
    if (remote[key] !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: [key],
        input: remote[key],
        message: `\`${key}\` is for an HTTP service; a module reconciler runs in the operator's process`,
      });
}
/** RemoteReconciler is a `remote` block. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface RemoteReconciler extends z.output<typeof RemoteReconcilerSchema> {}
/** RemoteReconciler hands each CR to an HTTP service (docs/reference/katalog.md §15.3). */
export const RemoteReconciler: z.ZodType<RemoteReconciler> = RemoteReconcilerSchema.meta({
  id: 'RemoteReconciler',
});

// ---- module hooks (docs/reference/katalog.md §14.5, docs/adr/0052-custom-logic-as-typescript-modules.md) ----

/** NPM_NAME is an npm package name: `name` or `@scope/name` (lower case, URL-safe). */
const NPM_NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/;

/**
 * splitModuleReference splits `@acme/hooks@^1.2.0` into the package name and the version range
 * written after its last `@` (upstream's `location: …@v1.2.3` shorthand); no range gives none.
 */
function splitModuleReference(reference: string): { readonly name: string; readonly range?: string } {
  const at = reference.lastIndexOf('@');
  if (at <= 0) return { name: reference };
  return { name: reference.slice(0, at), range: reference.slice(at + 1) };
}

/**
 * ModuleHook is one item of `operatorBox.hooks` (docs/reference/katalog.md §14.5): the export
 * `function` of the npm package `module` (a `defineHook` from @orkestra/provider-kit), run at step 12
 * with the CR, `args` and the context; its outputs are `hooks.<name>` in the template context.
 * `module` may carry the version range after `@` (`@acme/hooks@^1.2.0`), or `version` holds it.
 */
const ModuleHookSchema = gated({
  name: Identifier.optional(),
  module: Literal.min(1),
  function: Identifier.default('default'),
  version: Literal.min(1).optional(),
  args: JsonMap.default({}),
  timeout: Duration.default('30s'),
  continueOnError: z.boolean().default(false),
})
  .superRefine((hook, ctx) => {
    const { name, range } = splitModuleReference(hook.module);
    if (!NPM_NAME.test(name)) {
      ctx.addIssue({
        code: 'custom',
        path: ['module'],
        input: hook.module,
        message: `expected an npm package name (\`name\` or \`@scope/name\`), optionally with a version range after \`@\`; got "${hook.module}"${/^(github\.com|gitlab\.com|bitbucket\.org)\//.test(hook.module) ? ' — a Go module path names Go code, which Orkestra does not run; publish the logic as an npm package built with defineHook (@orkestra/provider-kit)' : ''}`,
      });
    }
    if (range === '') {
      ctx.addIssue({
        code: 'custom',
        path: ['module'],
        input: hook.module,
        message: 'expected a version range after `@`',
      });
    }
    if (range != null && range !== '' && hook.version != null && hook.version !== range) {
      ctx.addIssue({
        code: 'custom',
        path: ['version'],
        input: hook.version,
        message: `\`module\` already pins ${range}; write the range in one place`,
      });
    }
  })
  .transform((hook) => {
    const { name, range } = splitModuleReference(hook.module);
    const version = hook.version ?? (range === '' ? undefined : range);
    return {
      ...hook,
      name: hook.name ?? hook.function,
      module: name,
      ...(version == null ? {} : { version }),
    };
  });
/** ModuleHook is a module hook after loading: `name` defaulted to `function`, `module` the bare package name, `version` the range. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface ModuleHook extends z.output<typeof ModuleHookSchema> {}
/** ModuleHook runs an exported `defineHook` of an npm package (docs/reference/katalog.md §14.5). */
export const ModuleHook: z.ZodType<ModuleHook> = ModuleHookSchema.meta({ id: 'ModuleHook' });

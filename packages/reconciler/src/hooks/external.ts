/**
 * External calls (docs/reference/katalog.md §15.1, docs/reference/runtime.md §14.4): one call per
 * declaration, already rendered by the pipeline, in its protocol (the protocol table,
 * external/protocols/table.ts; HTTP by default), with auth from a Secret or the environment, a
 * timeout combined with the reconcile's signal, a 1 MiB answer limit, up to 5 redirects, a
 * process-wide LRU result cache and the link-local/metadata address guard. A call never throws:
 * failures are in the result's `error`.
 */
import { parseDuration } from '@orkestra/types';
import type { ExternalProtocolName } from '@orkestra/types';
import { systemClock } from '../clock.js';
import type { Clock } from '../clock.js';
import { redactUrlCredentials } from '../redact-url.js';
import { AddressGuard, BlockedAddressError } from './address-guard.js';
import type { ResolveHost } from './address-guard.js';
import { createDeadline } from './deadline.js';
import { MIB, TimeoutError, describeError, sendHttpRequest } from './http-request.js';
import type { HttpResponse } from './http-request.js';
import { bodyText } from './external/protocols/http/index.js';
import type {
  GuardedHttpRequest,
  ProtocolServices,
  ProtocolSession,
} from './external/protocols/protocol-unit.js';
import { PROTOCOL_TABLE } from './external/protocols/table.js';
import { LruCache } from './lru-cache.js';

/**
 * ExternalCallDeclaration is one `operatorBox.external` item with `url`, `headers` and `body`
 * already rendered; `ExternalCall` from `@orkestra/types` with rendered values fits it.
 */
export interface ExternalCallDeclaration {
  /** The result key. */
  readonly name: string;
  /** Default `http`. */
  readonly protocol?: ExternalProtocolName;
  /** The rendered URL (`http` or `https`; the protocol's scheme for the others). */
  readonly url: string;
  /** The protocol's query (PromQL, rendered; SQL and the mongo query, literal). */
  readonly query?: string;
  /** Protocols postgres and mongo: the rendered bind parameters. */
  readonly params?: readonly string[];
  /** Protocol prometheus: a range query. */
  readonly range?: { readonly duration: string; readonly step: string };
  /** Default `GET`. */
  readonly method?: string;
  /** Rendered headers. */
  readonly headers?: Readonly<Record<string, string>>;
  /** The rendered body: a string is sent as is; a map or list is sent as JSON; absent sends none. */
  readonly body?: unknown;
  /** A duration (`10s`). Default `10s`. */
  readonly timeout?: string;
  /** Accepted statuses. Default: any 2xx. */
  readonly expectedStatus?: number | readonly number[];
  /**
   * Credential from a Secret (`secretRef`, rendered; of the CR's namespace unless `namespace` names another) or
   * the environment (`env: $NAME`).
   */
  readonly auth?: {
    readonly secretRef?: { readonly name: string; readonly key: string; readonly namespace?: string };
    readonly env?: string;
    /** Default `Authorization`. */
    readonly header?: string;
    /** Prefix before the credential; `""` sends it raw. Default `Bearer`. */
    readonly scheme?: string;
  };
  /** Reuse a successful result this long (a duration). Default `0` (no caching). */
  readonly cacheFor?: string;
}

/** ExternalCallResult is `external.<name>` in the template context (docs/reference/katalog.md §15.1). */
export interface ExternalCallResult {
  /** False when the gate failed; every other key is then empty. */
  readonly called: boolean;
  /** The status matched `expectedStatus` and no transport error occurred. */
  readonly ok: boolean;
  /** 0 without a response. */
  readonly status: number;
  readonly body: string;
  /** The parsed body when it is valid JSON, else null. */
  readonly json: unknown;
  /** Response headers with lowercase names. */
  readonly headers: Readonly<Record<string, string>>;
  /** `""` on success, else why the call failed. */
  readonly error: string;
  readonly durationMs: number;
  /** Protocols other than HTTP: upstream's canonical scalar (docs/reference/katalog.md §15.1.1). */
  readonly result?: string;
  /** Protocols other than HTTP: upstream's full answer. */
  readonly raw?: unknown;
  /** Protocol postgres: the rows. */
  readonly rows?: readonly Readonly<Record<string, unknown>>[];
  /** Protocol mongo: the number of matching documents, as text. */
  readonly count?: string;
  /** Protocol mongo: the matching documents (at most the row limit). */
  readonly documents?: readonly Readonly<Record<string, unknown>>[];
  /** Protocol kafka (`@topic`): the partition count, as text. */
  readonly partitionCount?: string;
  /** Protocol kafka (`group/topic`): the partition count, as text. */
  readonly partitions?: string;
  /** Protocol kafka (`group/topic`): the group's total lag, as text. */
  readonly lag?: string;
}

/** ExternalCallContext says where a call is made from. */
export interface ExternalCallContext {
  /** The CRD entry name (part of the cache key). */
  readonly entry: string;
  /** The CR's namespace, where `auth.secretRef` is read. */
  readonly namespace: string;
  /** The CR's name: a made call's last outcome is kept for this CR too (`crOutcomes`). */
  readonly cr?: string;
  /** The reconcile's abort signal. */
  readonly signal?: AbortSignal;
}

/** ReadSecret returns one decoded key of a Secret, or undefined when the Secret or the key is absent. */
export type ReadSecret = (namespace: string, name: string, key: string) => Promise<string | undefined>;

/** ExternalCallerOptions configures an ExternalCaller; every field has a default. */
export interface ExternalCallerOptions {
  /** Told of every call that ended, made or answered from the cache (the `orkestra_external_calls_total` metric). Default none. */
  readonly onCall?: (entry: string, call: string, result: ExternalCallMetricResult, seconds: number) => void;
  /** Reads `auth.secretRef` credentials (an API `GET`); results are kept `secretCacheMs`. Default: none (secretRef calls fail). */
  readonly readSecret?: ReadSecret;
  /** The operator's environment for `auth.env`. Default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Source of time and timers. Default `systemClock`. */
  readonly clock?: Clock;
  /** Allow link-local and cloud metadata addresses. Default false. */
  readonly allowLinkLocal?: boolean;
  /** CIDRs let through the address guard (`--allow-private-addresses`). Default none. */
  readonly allowAddresses?: readonly string[];
  /** Resolves hostnames for the address guard. Default `dns.lookup`. */
  readonly resolve?: ResolveHost;
  /** Result cache size. Default 1000. */
  readonly cacheEntries?: number;
  /** How long a Secret value is kept. Default 30 000 ms. */
  readonly secretCacheMs?: number;
  /** Response body limit. Default 1 MiB. */
  readonly maxBodyBytes?: number;
  /** Redirects followed per call. Default 5. */
  readonly maxRedirects?: number;
  /** Rows a SQL answer keeps. Default 1000. */
  readonly maxRows?: number;
  /** Imports a protocol's client package (`@orkestra/protocol-postgres`). Default a dynamic `import()`. */
  readonly importModule?: (specifier: string) => Promise<unknown>;
}

/** CallRetryBackoff is an external call's `retryBackoff` (docs/reference/katalog.md §15.1). */
export interface CallRetryBackoff {
  readonly initial: string;
  readonly max: string;
  readonly multiplier: number;
  readonly maxAttempts: number;
}

/** ExternalRunResult is the outcome of `runAll`: every result so far, and the call that stopped the run. */
export interface ExternalRunResult {
  readonly results: Readonly<Record<string, ExternalCallResult>>;
  /**
   * Set when a call without `continueOnError` failed; later calls were not made. `address` is the
   * server the call went to (`callAddress`), so a failure names the source that did not answer.
   */
  readonly failed?: { readonly name: string; readonly error: string; readonly address?: string };
}

// The scheme and authority of a URL (a kafka broker list too); the user-info is skipped.
/**
 * callAddress is the server a rendered call goes to, as a condition may show it: the URL's scheme
 * and host (with port), without user-info, path or query (which may carry credentials or CR
 * values); `""` when the URL does not start with a scheme.
 *
 * @example
 * callAddress('postgres://reader@db.shop:5432/orders'); // 'postgres://db.shop:5432'
 */
export function callAddress(url: string | undefined): string {
  // The same credential-free reading as the Control Center's target (callTarget): a password
  // written with a raw `/` must not leak into a condition either.
  return url != null && /^[a-z][a-z0-9+.-]*:\/\//i.test(url.trim()) ? callTarget(url) : '';
}

/** ExternalCallMetricResult is how a call ended, the `result` label of `orkestra_external_calls_total`. */
export type ExternalCallMetricResult = 'success' | 'error' | 'timeout' | 'cached';

/** ExternalCallStats counts what an ExternalCaller did, cumulative. */
export interface ExternalCallStats {
  readonly requests: number;
  readonly cacheHits: number;
  readonly secretReads: number;
}

/**
 * CallErrorClass says why a call failed, as a fixed word (never the server's text, which may echo
 * a credential or a body): `config` (its timeout or cacheFor), `credential` (its Secret or
 * variable is missing), `address` (the address guard refused the target), `connection` (the server
 * could not be reached or broke the connection), `answer` (the server answered with a failure: an
 * HTTP status, a failed query), `refused` (the protocol refused the call: a command or statement
 * it does not run, a missing client package), `aborted` (the reconcile was cancelled).
 */
export type CallErrorClass =
  'config' | 'credential' | 'address' | 'connection' | 'answer' | 'refused' | 'aborted';

/**
 * ExternalCallOutcome is the last outcome of one external call of one entry (docs/reference/runtime.md
 * §23.2, ADR 0066): what the Control Center shows. It never holds a credential, an error text or
 * a response body.
 */
export interface ExternalCallOutcome {
  readonly entry: string;
  readonly call: string;
  readonly protocol: ExternalProtocolName;
  /** Where the call went, without a credential: `scheme://host:port` (`callTarget`). */
  readonly target: string;
  readonly outcome: 'ok' | 'error' | 'timeout';
  /** Why it failed (outcome `error`). */
  readonly errorClass?: CallErrorClass;
  /** The HTTP status of an `http` or `prometheus` answer. */
  readonly status?: number;
  /** When the call ended, in milliseconds since the epoch (the caller's clock). */
  readonly atMs: number;
  readonly durationMs: number;
  /** Calls made (cache hits not counted) and how many failed, since the caller started. */
  readonly calls: number;
  readonly failures: number;
}

/**
 * CrCallOutcome is the last outcome of one external call for one CR (docs/reference/runtime.md
 * §23.2): what the Control Center's CR page shows. Like ExternalCallOutcome it holds no credential,
 * error text or body.
 */
export type CrCallOutcome = Omit<ExternalCallOutcome, 'calls' | 'failures'> & {
  readonly namespace: string;
  readonly cr: string;
};

/**
 * callTarget is where a call goes without anything secret: the URL's scheme and host list
 * (`postgres://db.data:5432`, `kafka://k-0:9092,k-1:9092`). The user, password, path, query and
 * fragment are dropped (a path or query may hold a token, a DSN its password). The host is what
 * follows the last `@`, so a password written with a raw `/` is dropped too; when a `?` or `#`
 * comes before that `@` (a raw one in a password, or an address in a query) the host cannot be
 * told from a secret and reads `…`, as does a host that is not plainly a host list.
 */
export function callTarget(url: string): string {
  const text = url.trim();
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(text)?.[0] ?? '';
  const rest = text.slice(scheme.length);
  const at = rest.lastIndexOf('@');
  const host = /[?#]/.test(rest.slice(0, Math.max(at, 0))) ? '' : rest.slice(at + 1).replace(/[/?#].*$/s, '');
  return `${scheme.toLowerCase()}${host !== '' && /^[A-Za-z0-9._~%,:[\]-]+$/.test(host) ? host : '…'}`;
}

/** MAX_CR_OUTCOMES bounds the per-CR outcomes kept (one per entry, CR and call); the oldest go first. */
const MAX_CR_OUTCOMES = 5000;

/** CallFailure is how a made call failed: a timeout, or an error of a class. */
type CallFailure =
  { readonly outcome: 'timeout' } | { readonly outcome: 'error'; readonly errorClass: CallErrorClass };

/** MAX_OUTCOMES bounds the outcomes kept (one per entry, call and protocol); the oldest go first. */
const MAX_OUTCOMES = 1000;

/** notCalledExternalResult is the result of a call whose gate failed: `called: false`, everything else empty. */
export function notCalledExternalResult(): ExternalCallResult {
  return { called: false, ok: false, status: 0, body: '', json: null, headers: {}, error: '', durationMs: 0 };
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * ExternalCaller makes the external calls of all entries; share one per process so the `cacheFor`
 * cache and the Secret cache are process-wide.
 *
 * @example
 * const caller = new ExternalCaller({ readSecret });
 * const result = await caller.call(renderedDecl, { entry: 'website', namespace: 'shop', signal });
 * if (!result.ok && !decl.continueOnError) throw new OrkestraError(result.error, { code: 'ExternalCallFailed' });
 */
export class ExternalCaller {
  readonly #readSecret: ReadSecret | undefined;
  readonly #onCall: ExternalCallerOptions['onCall'];
  readonly #env: Readonly<Record<string, string | undefined>>;
  readonly #clock: Clock;
  readonly #guard: AddressGuard;
  readonly #cache: LruCache<ExternalCallResult>;
  readonly #secrets = new Map<string, { readonly value: string | undefined; readonly expiresAt: number }>();
  readonly #secretCacheMs: number;
  readonly #maxBodyBytes: number;
  readonly #maxRedirects: number;
  readonly #services: ProtocolServices;
  readonly #sessions = new Map<ExternalProtocolName, ProtocolSession>();
  /** Failed results a retry will not fix (the protocol said so). */
  readonly #final = new WeakSet<ExternalCallResult>();
  /** The last outcome per entry, call and protocol, least recently called first. */
  readonly #outcomes = new Map<string, ExternalCallOutcome>();
  /** The last outcome per entry, CR and call, least recently called first. */
  readonly #crOutcomes = new Map<string, CrCallOutcome>();
  #requests = 0;
  #cacheHits = 0;
  #secretReads = 0;

  constructor(options: ExternalCallerOptions = {}) {
    this.#readSecret = options.readSecret;
    this.#onCall = options.onCall;
    this.#env = options.env ?? process.env;
    this.#clock = options.clock ?? systemClock;
    this.#guard = new AddressGuard({
      allowLinkLocal: options.allowLinkLocal ?? false,
      ...(options.allowAddresses == null ? {} : { allowAddresses: options.allowAddresses }),
      ...(options.resolve == null ? {} : { resolve: options.resolve }),
    });
    this.#cache = new LruCache(options.cacheEntries ?? 1000);
    this.#secretCacheMs = options.secretCacheMs ?? 30_000;
    this.#maxBodyBytes = options.maxBodyBytes ?? MIB;
    this.#maxRedirects = options.maxRedirects ?? 5;
    const importModule = options.importModule ?? ((specifier: string) => import(specifier));
    this.#services = {
      guard: this.#guard,
      http: (request, signal) => this.#send(request, signal),
      maxBodyBytes: this.#maxBodyBytes,
      maxRows: options.maxRows ?? 1000,
      clock: this.#clock,
      importModule,
    };
  }

  /** close ends what the protocols hold (pooled connections); on reload and shutdown. */
  async close(): Promise<void> {
    const sessions = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.allSettled(sessions.map((session) => session.close?.()));
  }

  #session(protocol: ExternalProtocolName): ProtocolSession {
    let session = this.#sessions.get(protocol);
    if (session == null) {
      session = PROTOCOL_TABLE[protocol].open(this.#services);
      this.#sessions.set(protocol, session);
    }
    return session;
  }

  /** outcomes lists each call's last outcome (entry, call, protocol), sorted by entry and call. */
  outcomes(): ExternalCallOutcome[] {
    return [...this.#outcomes.values()].sort(
      (a, b) =>
        a.entry.localeCompare(b.entry) ||
        a.call.localeCompare(b.call) ||
        a.protocol.localeCompare(b.protocol),
    );
  }

  /** crOutcomes lists the last outcome of each call made for the CR `namespace/name` of `entry`, by call name. */
  crOutcomes(entry: string, namespace: string, name: string): CrCallOutcome[] {
    return [...this.#crOutcomes.values()]
      .filter((o) => o.entry === entry && o.namespace === namespace && o.cr === name)
      .sort((a, b) => a.call.localeCompare(b.call) || a.protocol.localeCompare(b.protocol));
  }

  #record(
    declaration: ExternalCallDeclaration,
    context: ExternalCallContext,
    result: ExternalCallResult,
    failed: CallFailure | undefined,
  ): void {
    const protocol = declaration.protocol ?? 'http';
    const key = JSON.stringify([context.entry, declaration.name, protocol]);
    const before = this.#outcomes.get(key);
    this.#outcomes.delete(key);
    const http = protocol === 'http' || protocol === 'prometheus';
    const last = {
      entry: context.entry,
      call: declaration.name,
      protocol,
      target: callTarget(declaration.url),
      ...(result.ok
        ? { outcome: 'ok' as const }
        : (failed ?? { outcome: 'error' as const, errorClass: 'answer' as const })),
      ...(http && result.status > 0 ? { status: result.status } : {}),
      atMs: this.#clock.now(),
      durationMs: result.durationMs,
    };
    this.#outcomes.set(key, {
      ...last,
      calls: (before?.calls ?? 0) + 1,
      failures: (before?.failures ?? 0) + (result.ok ? 0 : 1),
    });
    if (this.#outcomes.size > MAX_OUTCOMES) {
      const oldest = this.#outcomes.keys().next().value;
      if (oldest != null) this.#outcomes.delete(oldest);
    }
    if (context.cr == null) return;
    const crKey = JSON.stringify([context.entry, context.namespace, context.cr, declaration.name, protocol]);
    this.#crOutcomes.delete(crKey);
    this.#crOutcomes.set(crKey, { ...last, namespace: context.namespace, cr: context.cr });
    if (this.#crOutcomes.size > MAX_CR_OUTCOMES) {
      const oldest = this.#crOutcomes.keys().next().value;
      if (oldest != null) this.#crOutcomes.delete(oldest);
    }
  }

  /** stats returns the counters. */
  stats(): ExternalCallStats {
    return { requests: this.#requests, cacheHits: this.#cacheHits, secretReads: this.#secretReads };
  }

  /**
   * runAll runs declarations one after another in order. `prepare` renders a declaration against
   * the results so far and returns it, or undefined when its gate failed (the result is then
   * `called: false`); it may throw (a template error), which ends the run with that exception. The
   * run stops at the first failed call whose `continueOnError` is not true. A call with
   * `retryBackoff` (docs/reference/katalog.md §15.1, §20.1) is made again after a failure, waiting on the
   * clock `min(initial × multiplier^(n-1), max)` before the n-th retry, up to `maxAttempts` in all.
   */
  async runAll<
    D extends {
      readonly name: string;
      readonly continueOnError?: boolean;
      readonly retryBackoff?: CallRetryBackoff | undefined;
    },
  >(
    declarations: readonly D[],
    prepare: (
      declaration: D,
      results: Readonly<Record<string, ExternalCallResult>>,
    ) => ExternalCallDeclaration | undefined,
    context: ExternalCallContext,
  ): Promise<ExternalRunResult> {
    const results: Record<string, ExternalCallResult> = {};
    for (const declaration of declarations) {
      const rendered = prepare(declaration, results);
      let result = rendered == null ? notCalledExternalResult() : await this.call(rendered, context);
      const retry = declaration.retryBackoff;
      for (let attempt = 1; rendered != null && retry != null && attempt < retry.maxAttempts; attempt++) {
        if (!result.called || result.ok || this.#final.has(result) || context.signal?.aborted === true) break;
        const delay = Math.min(
          parseDuration(retry.initial) * retry.multiplier ** (attempt - 1),
          parseDuration(retry.max),
        );
        if (!(await this.#sleep(delay, context.signal))) break;
        result = await this.call(rendered, context);
      }
      results[declaration.name] = result;
      if (result.called && !result.ok && declaration.continueOnError !== true) {
        return {
          results,
          failed: { name: declaration.name, error: result.error, address: callAddress(rendered?.url) },
        };
      }
    }
    return { results };
  }

  /** #sleep waits `ms` on the clock; false when the signal aborted first. */
  #sleep(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
    return new Promise((resolve) => {
      if (signal?.aborted === true) {
        resolve(false);
        return;
      }
      const onAbort = (): void => {
        this.#clock.clearTimeout(handle);
        resolve(false);
      };
      const handle = this.#clock.setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve(true);
      }, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** call makes one rendered call (or answers it from the cache) and never throws; a made call's outcome is kept (`outcomes`). */
  async call(
    declaration: ExternalCallDeclaration,
    context: ExternalCallContext,
  ): Promise<ExternalCallResult> {
    const made: { cached?: boolean; failed?: CallFailure } = {};
    const result = await this.#call(declaration, context, made);
    if (made.cached !== true) this.#record(declaration, context, result, made.failed);
    this.#onCall?.(
      context.entry,
      declaration.name,
      made.cached === true
        ? 'cached'
        : result.ok
          ? 'success'
          : made.failed?.outcome === 'timeout'
            ? 'timeout'
            : 'error',
      made.cached === true ? 0 : result.durationMs / 1000,
    );
    return result;
  }

  async #call(
    declaration: ExternalCallDeclaration,
    context: ExternalCallContext,
    made: { cached?: boolean; failed?: CallFailure },
  ): Promise<ExternalCallResult> {
    const started = this.#clock.now();
    const protocol = declaration.protocol ?? 'http';
    const method = (declaration.method ?? 'GET').toUpperCase();
    let cacheFor: number;
    let timeoutMs: number;
    try {
      cacheFor = parseDuration(declaration.cacheFor ?? '0');
      timeoutMs = parseDuration(declaration.timeout ?? '10s');
    } catch (error) {
      made.failed = { outcome: 'error', errorClass: 'config' };
      return failure(0, describeError(error), this.#clock.now() - started);
    }
    const cacheKey = JSON.stringify([
      context.entry,
      declaration.name,
      protocol,
      method,
      declaration.url,
      bodyText(declaration.body) ?? null,
      declaration.query ?? null,
      declaration.params ?? null,
      declaration.range ?? null,
    ]);
    if (cacheFor > 0) {
      const cached = this.#cache.get(cacheKey, started);
      if (cached != null) {
        this.#cacheHits++;
        made.cached = true;
        return cached;
      }
    }
    const deadline = createDeadline(
      this.#clock,
      timeoutMs,
      `timed out after ${declaration.timeout ?? '10s'}`,
      context.signal,
    );
    let credential: string | undefined;
    try {
      const resolved = await this.#credential(declaration, context);
      if (typeof resolved === 'object') {
        made.failed = { outcome: 'error', errorClass: 'credential' };
        return failure(0, resolved.error, this.#clock.now() - started);
      }
      credential = resolved;
      const answer = await this.#session(protocol).call({
        declaration,
        credential,
        signal: deadline.signal,
        timeoutMs,
      });
      const { retryable, ...fields } = answer;
      const result: ExternalCallResult = {
        called: true,
        status: 0,
        body: '',
        json: null,
        headers: {},
        error: '',
        ...fields,
        durationMs: this.#clock.now() - started,
      };
      if (!result.ok && retryable === false) this.#final.add(result);
      if (!result.ok)
        made.failed = {
          outcome: 'error',
          errorClass: result.status > 0 || retryable !== false ? 'answer' : 'refused',
        };
      if (result.ok && cacheFor > 0) this.#cache.set(cacheKey, result, this.#clock.now() + cacheFor);
      return result;
    } catch (error) {
      const reason = deadline.signal.aborted ? deadline.signal.reason : error;
      const message =
        reason instanceof TimeoutError
          ? reason.message
          : deadline.signal.aborted
            ? `aborted: ${describeError(reason)}`
            : describeError(error);
      made.failed =
        reason instanceof TimeoutError
          ? { outcome: 'timeout' }
          : { outcome: 'error', errorClass: deadline.signal.aborted ? 'aborted' : errorClassOf(error) };
      const result = failure(0, withoutSecret(message, credential), this.#clock.now() - started);
      if (!deadline.signal.aborted && (error as { retryable?: unknown } | null)?.retryable === false)
        this.#final.add(result);
      return result;
    } finally {
      deadline.clear();
    }
  }

  /** #send is the guarded HTTP path of the HTTP-based protocols. */
  async #send(request: GuardedHttpRequest, signal: AbortSignal): Promise<HttpResponse> {
    let url = parseHttpUrl(request.url);
    let method = request.method;
    let body = request.body;
    let headers = request.headers;
    for (let redirects = 0; ; redirects++) {
      this.#guard.precheck(url);
      this.#requests++;
      const response = await sendHttpRequest({
        url,
        method,
        headers,
        ...(body == null ? {} : { body }),
        signal,
        maxBodyBytes: this.#maxBodyBytes,
        lookup: this.#guard.lookup,
      });
      const location = response.headers['location'];
      if (!REDIRECTS.has(response.status) || location == null) return response;
      if (redirects >= this.#maxRedirects)
        throw new Error(`too many redirects (more than ${this.#maxRedirects})`);
      const next = parseHttpUrl(new URL(location, url).toString());
      if (
        response.status === 303 ||
        ((response.status === 301 || response.status === 302) && method === 'POST')
      ) {
        method = 'GET';
        body = undefined;
        headers = withoutHeaders(headers, ['content-type', 'content-length']);
      }
      // Credentials never follow a redirect to another origin, and neither does any header the
      // Katalog declared (a custom `X-Api-Key` is a credential too).
      if (next.origin !== url.origin) {
        headers = withoutHeaders(headers, [
          'authorization',
          'cookie',
          request.authHeader ?? 'authorization',
          ...request.declared,
        ]);
      }
      url = next;
    }
  }

  /** #credential is the call's `auth` credential, undefined without one, or why it is missing. */
  async #credential(
    declaration: ExternalCallDeclaration,
    context: ExternalCallContext,
  ): Promise<string | undefined | { readonly error: string }> {
    const auth = declaration.auth;
    if (auth == null) return undefined;
    if (auth.secretRef != null) {
      const { name, key } = auth.secretRef;
      const namespace = auth.secretRef.namespace ?? context.namespace;
      const credential = await this.#secret(namespace, name, key);
      return credential ?? { error: `auth secret ${namespace}/${name} has no key ${key}` };
    }
    if (auth.env != null) {
      const variable = auth.env.replace(/^\$\{?/, '').replace(/\}$/, '');
      const credential = this.#env[variable];
      return credential == null || credential === ''
        ? { error: `auth environment variable ${variable} is not set` }
        : credential;
    }
    return undefined;
  }

  async #secret(namespace: string, name: string, key: string): Promise<string | undefined> {
    const cacheKey = `${namespace}/${name}/${key}`;
    const now = this.#clock.now();
    const cached = this.#secrets.get(cacheKey);
    if (cached != null && cached.expiresAt > now) return cached.value;
    if (this.#readSecret == null) return undefined;
    this.#secretReads++;
    const value = await this.#readSecret(namespace, name, key);
    this.#secrets.set(cacheKey, { value, expiresAt: this.#clock.now() + this.#secretCacheMs });
    return value;
  }
}

function withoutHeaders(headers: Record<string, string>, names: readonly string[]): Record<string, string> {
  const drop = new Set(names);
  const next: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (!drop.has(name.toLowerCase())) next[name] = value;
  return next;
}

function parseHttpUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`invalid URL ${JSON.stringify(text)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`unsupported URL scheme ${url.protocol} (http or https only)`);
  }
  return url;
}

/** withoutSecret masks a credential wherever a message repeats it (a driver quoting its connection). */
function withoutSecret(message: string, credential: string | undefined): string {
  return credential == null || credential.length < 4 ? message : message.split(credential).join('***');
}

/** errorClassOf classifies a thrown failure: the guard's refusal, the protocol's, or the connection. */
function errorClassOf(error: unknown): CallErrorClass {
  for (let e: unknown = error, depth = 0; e != null && depth < 5; depth++) {
    if (e instanceof BlockedAddressError) return 'address';
    if ((e as { retryable?: unknown }).retryable === false) return 'refused';
    e = (e as { cause?: unknown }).cause;
  }
  return 'connection';
}

function failure(status: number, error: string, durationMs: number): ExternalCallResult {
  const redacted = redactUrlCredentials(error);
  return { called: true, ok: false, status, body: '', json: null, headers: {}, error: redacted, durationMs };
}

/**
 * Cross reads over HTTP from another Orkestra process (docs/reference/katalog.md §15.2, docs/reference/runtime.md §14.2):
 * `GET <endpoint>/katalog/crds/<crd>/objects/<namespace>/<name>`, one request per distinct URL per
 * `cacheFor` window, a timeout, a 1 MiB body limit, and the address guard of external calls (no
 * link-local or cloud metadata address, checked on the address actually connected to). Never
 * throws: failures are `found: false` plus `error`, with credentials in the URL redacted.
 */
import { parseDuration } from '@orkestra/types';
import { systemClock } from '../clock.js';
import { redactUrlCredentials } from '../redact-url.js';
import { AddressGuard } from './address-guard.js';
import type { ResolveHost } from './address-guard.js';
import type { Clock } from '../clock.js';
import { notFoundCrossResult } from './cross.js';
import type { CrossResult } from './cross.js';
import { createDeadline } from './deadline.js';
import { MIB, TimeoutError, describeError, sendHttpRequest } from './http-request.js';
import { LruCache } from './lru-cache.js';

/** CrossHttpDeclaration is a rendered `cross` item with `endpoint` (`CrossRead` with rendered values fits it). */
export interface CrossHttpDeclaration {
  /** The entry name in the other operator's Katalog. */
  readonly crd: string;
  /** Base URL of the other operator's HTTP server. */
  readonly endpoint: string;
  readonly selector: { readonly name?: string; readonly namespace?: string };
  /** Per request (a duration). Default `5s`. */
  readonly timeout?: string;
  /** How long an answer is reused (a duration). Default `30s`. */
  readonly cacheFor?: string;
  /**
   * Send the client's bearer token (docs/adr/0030). Only for an `endpoint` written literally in the
   * Katalog: a templated endpoint is chosen by CR data, and the token must not go where a CR points.
   */
  readonly sendToken?: boolean;
}

/** CrossHttpResult is a CrossResult plus when the cached answer expires (for the timed re-queue). */
export interface CrossHttpResult {
  readonly result: CrossResult;
  /** Clock time when the answer stops being reused; the pipeline re-queues the reader then. Undefined for failures. */
  readonly expiresAt?: number;
  /** The URL that was (or would have been) requested, with credentials redacted. */
  readonly url: string;
}

/** CrossHttpClientOptions configures a CrossHttpClient; every field has a default. */
export interface CrossHttpClientOptions {
  /** Source of time and timers. Default `systemClock`. */
  readonly clock?: Clock;
  /** Response body limit. Default 1 MiB. */
  readonly maxBodyBytes?: number;
  /** Answer cache size. Default 1000. */
  readonly cacheEntries?: number;
  /** Allow link-local and cloud metadata addresses (`--allow-link-local`). Default false. */
  readonly allowLinkLocal?: boolean;
  /** CIDRs let through the address guard (`--allow-private-addresses`). Default none. */
  readonly allowAddresses?: readonly string[];
  /** Resolves hostnames for the address guard; tests inject a fake. Default `dns.lookup`. */
  readonly resolve?: ResolveHost;
  /**
   * The bearer token sent when a declaration has `sendToken` (the operator's projected,
   * audience-bound ServiceAccount token). Undefined or a rejection sends no token. Default none.
   */
  readonly token?: () => Promise<string | undefined>;
}

/** CrossHttpClientStats counts requests and cache hits, cumulative. */
export interface CrossHttpClientStats {
  readonly requests: number;
  readonly cacheHits: number;
}

/** crossObjectUrl builds `<endpoint>/katalog/crds/<crd>/objects/<namespace or _>/<name>`. */
export function crossObjectUrl(
  endpoint: string,
  crd: string,
  namespace: string | undefined,
  name: string,
): string {
  const base = endpoint.replace(/\/+$/, '');
  const ns = namespace == null || namespace === '' ? '_' : namespace;
  return `${base}/katalog/crds/${encodeURIComponent(crd)}/objects/${encodeURIComponent(ns)}/${encodeURIComponent(name)}`;
}

/**
 * CrossHttpClient reads CRs served by other Orkestra processes. Share one per process: answers
 * (200 and 404) are cached per URL for `cacheFor`, and concurrent reads of one URL share a request.
 *
 * @example
 * const client = new CrossHttpClient();
 * const { result, expiresAt } = await client.read(decl, { namespace: 'shop', signal });
 */
export class CrossHttpClient {
  readonly #clock: Clock;
  readonly #maxBodyBytes: number;
  readonly #cache: LruCache<CrossResult>;
  readonly #inFlight = new Map<string, Promise<CrossHttpResult>>();
  readonly #guard: AddressGuard;
  readonly #token: (() => Promise<string | undefined>) | undefined;
  #requests = 0;
  #cacheHits = 0;

  constructor(options: CrossHttpClientOptions = {}) {
    this.#clock = options.clock ?? systemClock;
    this.#maxBodyBytes = options.maxBodyBytes ?? MIB;
    this.#cache = new LruCache(options.cacheEntries ?? 1000);
    this.#token = options.token;
    this.#guard = new AddressGuard({
      allowLinkLocal: options.allowLinkLocal ?? false,
      ...(options.allowAddresses == null ? {} : { allowAddresses: options.allowAddresses }),
      ...(options.resolve == null ? {} : { resolve: options.resolve }),
    });
  }

  /** stats returns the counters. */
  stats(): CrossHttpClientStats {
    return { requests: this.#requests, cacheHits: this.#cacheHits };
  }

  /**
   * read answers one declaration: `namespace` is the reading CR's namespace (the default
   * `selector.namespace`; `_` is sent when both are empty). The reconcile's `signal` only stops this
   * reconcile's wait, not a request other readers share.
   */
  async read(
    declaration: CrossHttpDeclaration,
    context: { readonly namespace: string | undefined; readonly signal?: AbortSignal },
  ): Promise<CrossHttpResult> {
    const name = declaration.selector.name ?? '';
    const namespace = nonEmpty(declaration.selector.namespace) ?? nonEmpty(context.namespace);
    let url: string;
    let timeoutMs: number;
    let cacheForMs: number;
    try {
      // A query or fragment in the endpoint would choose the path that is read (`…?x=/katalog/…`).
      if (/[?#]/.test(declaration.endpoint))
        throw new Error('endpoint must not hold a query (?) or a fragment (#)');
      url = crossObjectUrl(declaration.endpoint, declaration.crd, namespace, name);
      new URL(url);
      timeoutMs = parseDuration(declaration.timeout ?? '5s');
      cacheForMs = parseDuration(declaration.cacheFor ?? '30s');
    } catch (error) {
      return {
        url: redactUrlCredentials(declaration.endpoint),
        result: notFoundCrossResult(name, namespace ?? '', describeError(error)),
      };
    }
    const shown = redactUrlCredentials(url);
    if (name === '')
      return { url: shown, result: notFoundCrossResult(name, namespace ?? '', 'selector.name is empty') };
    const sendToken = declaration.sendToken === true && this.#token != null;
    // An answer read with the operator's token is never shared with a read that sends none.
    const key = `${sendToken ? 't' : '-'} ${url}`;
    const cached = this.#cache.entry(key, this.#clock.now());
    if (cached != null) {
      this.#cacheHits++;
      return { url: shown, result: cached.value, expiresAt: cached.expiresAt };
    }
    let shared = this.#inFlight.get(key);
    if (shared == null) {
      shared = this.#fetch(
        url,
        key,
        sendToken,
        name,
        namespace ?? '',
        timeoutMs,
        cacheForMs,
        declaration.timeout ?? '5s',
      );
      this.#inFlight.set(key, shared);
      const pending = shared;
      void pending.finally(() => {
        if (this.#inFlight.get(key) === pending) this.#inFlight.delete(key);
      });
    }
    return context.signal == null ? shared : raceAbort(shared, context.signal, shown, name, namespace ?? '');
  }

  async #fetch(
    url: string,
    key: string,
    sendToken: boolean,
    name: string,
    namespace: string,
    timeoutMs: number,
    cacheForMs: number,
    timeoutText: string,
  ): Promise<CrossHttpResult> {
    const deadline = createDeadline(this.#clock, timeoutMs, `timed out after ${timeoutText}`);
    const shown = redactUrlCredentials(url);
    try {
      const target = new URL(url);
      if (target.protocol !== 'http:' && target.protocol !== 'https:')
        throw new Error(`unsupported URL scheme ${target.protocol} (http or https only)`);
      // IP literals are not looked up, so they are checked here; names at connect time (lookup).
      this.#guard.precheck(target);
      const token = sendToken ? await this.#token?.().catch(() => undefined) : undefined;
      this.#requests++;
      const response = await sendHttpRequest({
        url: target,
        lookup: this.#guard.lookup,
        method: 'GET',
        headers: {
          accept: 'application/json',
          'user-agent': 'orkestra',
          ...(token == null || token === '' ? {} : { authorization: `Bearer ${token}` }),
        },
        signal: deadline.signal,
        maxBodyBytes: this.#maxBodyBytes,
      });
      if (response.status === 404)
        return this.#remember(url, key, notFoundCrossResult(name, namespace), cacheForMs);
      if (response.status !== 200) {
        return {
          url,
          result: notFoundCrossResult(name, namespace, `unexpected status ${response.status} from ${shown}`),
        };
      }
      const parsed = parseAnswer(response.body);
      if (parsed == null) {
        return {
          url,
          result: notFoundCrossResult(
            name,
            namespace,
            `answer from ${shown} is not a cross-read JSON object`,
          ),
        };
      }
      return this.#remember(url, key, parsed, cacheForMs);
    } catch (error) {
      const reason = deadline.signal.aborted ? deadline.signal.reason : error;
      const message = reason instanceof TimeoutError ? reason.message : describeError(reason);
      return { url: shown, result: notFoundCrossResult(name, namespace, `${message} (GET ${shown})`) };
    } finally {
      deadline.clear();
    }
  }

  #remember(url: string, key: string, result: CrossResult, cacheForMs: number): CrossHttpResult {
    const shown = redactUrlCredentials(url);
    if (cacheForMs <= 0) return { url: shown, result };
    const expiresAt = this.#clock.now() + cacheForMs;
    this.#cache.set(key, result, expiresAt);
    return { url: shown, result, expiresAt };
  }
}

function parseAnswer(body: string): CrossResult | undefined {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (value == null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const answer = value as Record<string, unknown>;
  if (typeof answer['found'] !== 'boolean') return undefined;
  return {
    found: answer['found'],
    name: typeof answer['name'] === 'string' ? answer['name'] : '',
    namespace: typeof answer['namespace'] === 'string' ? answer['namespace'] : '',
    labels: stringMap(answer['labels']),
    annotations: stringMap(answer['annotations']),
    spec: objectMap(answer['spec']),
    status: objectMap(answer['status']),
  };
}

function objectMap(value: unknown): Record<string, unknown> {
  return value != null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

function stringMap(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(objectMap(value))) if (typeof v === 'string') out[k] = v;
  return out;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value == null || value === '' ? undefined : value;
}

/** raceAbort answers when the reconcile's signal aborts first; `shown` is the URL with credentials redacted. */
function raceAbort(
  shared: Promise<CrossHttpResult>,
  signal: AbortSignal,
  shown: string,
  name: string,
  namespace: string,
): Promise<CrossHttpResult> {
  const aborted = (): CrossHttpResult => ({
    url: shown,
    result: notFoundCrossResult(name, namespace, `aborted: ${describeError(signal.reason)} (GET ${shown})`),
  });
  if (signal.aborted) return Promise.resolve(aborted());
  return new Promise((resolve) => {
    const onAbort = (): void => resolve(aborted());
    signal.addEventListener('abort', onAbort, { once: true });
    void shared.then((result) => {
      signal.removeEventListener('abort', onAbort);
      resolve(result);
    });
  });
}

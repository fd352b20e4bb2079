/**
 * Cross reads over HTTP from another process (docs/reference/katalog.md §15.2, docs/reference/runtime.md §14.2,
 * ADR 0043): `GET <endpoint>/katalog/crds/<crd>/objects/<namespace>/<name>` (Orkestra's object
 * path), `<endpoint>` + a Live API path chosen by `protocol` (upstream's paths, runtime.md §18.6), or
 * a whole `url`. One request per distinct URL per `cacheFor` window (concurrent readers share it), a
 * timeout, a 1 MiB body limit, and the address guard of external calls (no link-local or cloud
 * metadata address, checked on the address actually connected to). Never throws: failures are
 * `found: false` plus `error`, with credentials in the URL redacted. A peer that does not answer
 * is reported as `unavailable` (the reader's `CrossSourceUnavailable` condition) and its last good
 * answer is used for another `cacheFor`; the failure itself is reused for up to 5 s, so a down
 * peer is not asked once per reading CR.
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
import { labelsMatch } from '../labels.js';

/** CrossProtocol is a Live API answer (`CrossRead.protocol`). */
export type CrossProtocol = 'cr' | 'health' | 'metrics' | 'info' | 'events';

/** CrossHttpDeclaration is a rendered `cross` item with `endpoint` or `url` (`CrossRead` with rendered values fits it). */
export interface CrossHttpDeclaration {
  /** The entry name in the other operator's Katalog. */
  readonly crd: string;
  /** Base URL of the other operator's HTTP server (with `protocol`: its Live API). */
  readonly endpoint?: string | undefined;
  /** Which Live API answer to read under `endpoint`; undefined reads Orkestra's object path. */
  readonly protocol?: CrossProtocol | undefined;
  /** A whole URL whose JSON object answer is the result; replaces `endpoint`. */
  readonly url?: string | undefined;
  /** A bearer credential from `auth` (resolved by the caller); `id` names it in the answer cache. Replaces `sendToken`. */
  readonly credential?: { readonly id: string; readonly value: string } | undefined;
  readonly selector: {
    readonly name?: string;
    readonly namespace?: string;
    /** Lists the peer's CRs with these labels (`protocol: cr` or none; ADR 0101). */
    readonly matchLabels?: Readonly<Record<string, string>>;
  };
  /**
   * `first` (default) the oldest match, `all` every match, oldest first (`results`): with
   * `matchLabels` from the peer's list, with a `name` as a list of that CR or none (ADR 0108).
   */
  readonly strategy?: 'first' | 'all' | undefined;
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
  /** Set when the peer did not answer (a network error, a timeout, a status other than 200/404, an answer that is not JSON): why, naming the URL. */
  readonly unavailable?: string;
  /**
   * Set with `unavailable` when the read has no answer to give — the peer failed and no last good
   * answer is left — so the reader waits instead of rendering from nothing (ADR 0043, amended).
   */
  readonly noAnswer?: true;
  /** A `strategy: all` read: every match, oldest first (`result` is the first, or not found); by name, that CR or none. */
  readonly results?: readonly CrossResult[];
  /**
   * Set when the declaration cannot be read as rendered (nothing is requested): the field at fault,
   * relative to the `cross` item (`selector.name`), and why. Also in `unavailable`.
   */
  readonly unusable?: { readonly field: string; readonly message: string };
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

/** FAILURE_REUSE_MS bounds how long a failed read is reused before the peer is asked again. */
export const FAILURE_REUSE_MS = 5000;

/**
 * liveApiListUrl builds the Live API's CR list filtered by labels (runtime.md §18.6, ADR 0101):
 * `/katalog/<crd>/cr?labelSelector=<k=v,…>&detail=true[&namespace=<ns>]`, keys sorted so one
 * selector is one URL (and one cached answer) however its map was written.
 */
function liveApiListUrl(
  endpoint: string,
  crd: string,
  matchLabels: Readonly<Record<string, string>>,
  namespace: string | undefined,
): string {
  const selector = Object.keys(matchLabels)
    .sort()
    .map((key) => `${key}=${matchLabels[key] ?? ''}`)
    .join(',');
  const query = new URLSearchParams({ labelSelector: selector, detail: 'true' });
  if (namespace != null && namespace !== '') query.set('namespace', namespace);
  return `${endpoint.replace(/\/+$/, '')}/katalog/${encodeURIComponent(crd)}/cr?${query.toString()}`;
}

/** LABEL_KEY and LABEL_VALUE are what Kubernetes accepts in a label (so a selector term is unambiguous). */
const LABEL_KEY =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const LABEL_VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/;

/** checkMatchLabels names the first label a selector cannot carry, or undefined when all can. */
function checkMatchLabels(matchLabels: Readonly<Record<string, string>>): string | undefined {
  for (const [key, value] of Object.entries(matchLabels)) {
    if (!LABEL_KEY.test(key)) return `selector.matchLabels: "${key}" is not a label key`;
    if (!LABEL_VALUE.test(value))
      return `selector.matchLabels.${key}: "${value}" is not a label value (63 characters: letters, digits, '-', '_', '.')`;
  }
  return undefined;
}

/**
 * liveApiUrl builds upstream's Live API path for a protocol (runtime.md §18.6): `cr` →
 * `/katalog/<crd>/cr/[<ns>/]<name>`, `events` → the same plus `/events`, `health` →
 * `/katalog/<crd>/health`, `metrics` and `info` → `/katalog/<crd>`. Those last three are reviewed
 * as a `list` by the peer; `listNamespace` (a `selector.namespace` the Katalog gives) is sent as
 * `?namespace=`, so the review is in that namespace rather than cluster-wide (runtime.md §14.2).
 */
export function liveApiUrl(
  endpoint: string,
  crd: string,
  protocol: CrossProtocol,
  namespace: string | undefined,
  name: string,
  listNamespace?: string,
): string {
  const base = `${endpoint.replace(/\/+$/, '')}/katalog/${encodeURIComponent(crd)}`;
  const scope =
    listNamespace == null || listNamespace === '' ? '' : `?namespace=${encodeURIComponent(listNamespace)}`;
  const one = `${base}/cr/${namespace == null || namespace === '' ? '' : `${encodeURIComponent(namespace)}/`}${encodeURIComponent(name)}`;
  switch (protocol) {
    case 'cr':
      return one;
    case 'events':
      return `${one}/events`;
    case 'health':
      return `${base}/health${scope}`;
    default:
      return `${base}${scope}`;
  }
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
  readonly #cache: LruCache<CrossHttpResult>;
  /** The last good answer per read, and since when its peer fails (for `CrossSourceUnavailable`). */
  readonly #lastGood = new Map<
    string,
    { result: CrossResult; results: readonly CrossResult[] | undefined; failingSince: number | undefined }
  >();
  readonly #maxLastGood: number;
  readonly #inFlight = new Map<string, Promise<CrossHttpResult>>();
  readonly #guard: AddressGuard;
  readonly #token: (() => Promise<string | undefined>) | undefined;
  #requests = 0;
  #cacheHits = 0;

  constructor(options: CrossHttpClientOptions = {}) {
    this.#clock = options.clock ?? systemClock;
    this.#maxBodyBytes = options.maxBodyBytes ?? MIB;
    this.#cache = new LruCache(options.cacheEntries ?? 1000);
    this.#maxLastGood = options.cacheEntries ?? 1000;
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
    const matchLabels = declaration.selector.matchLabels;
    // A label selector lists the peer's CRs on its Live API (`protocol: cr`, or none: the same port).
    const lists =
      matchLabels != null &&
      declaration.url == null &&
      (declaration.protocol == null || declaration.protocol === 'cr');
    const shape: AnswerShape = lists
      ? 'list'
      : declaration.url == null && declaration.protocol == null
        ? 'object'
        : 'live';
    const perCr =
      declaration.url == null &&
      (declaration.protocol == null || declaration.protocol === 'cr' || declaration.protocol === 'events');
    // `strategy: all` with a `name` (ADR 0108): the one CR is read at its own URL — the answer a
    // `first` read of that name shares — and answered as a list of it, or an empty list.
    const oneAsList =
      declaration.strategy === 'all' &&
      matchLabels == null &&
      declaration.url == null &&
      (declaration.protocol == null || declaration.protocol === 'cr');
    const unusable = (field: string, message: string, shown: string): CrossHttpResult => ({
      url: shown,
      result: notFoundCrossResult(name, namespace ?? '', `${field}: ${message}`),
      ...(declaration.strategy === 'all' ? { results: [] } : {}),
      unavailable: `${field}: ${message}`,
      unusable: { field, message },
    });
    let url: string;
    let timeoutMs: number;
    let cacheForMs: number;
    try {
      if (declaration.url != null) {
        if (declaration.url.includes('#')) throw new Error('must not hold a fragment (#)');
        url = declaration.url;
      } else {
        const endpoint = declaration.endpoint ?? '';
        // A query or fragment in the endpoint would choose the path that is read (`…?x=/katalog/…`).
        if (/[?#]/.test(endpoint)) throw new Error('must not hold a query (?) or a fragment (#)');
        url =
          lists && matchLabels != null
            ? liveApiListUrl(endpoint, declaration.crd, matchLabels, namespace)
            : declaration.protocol == null
              ? crossObjectUrl(endpoint, declaration.crd, namespace, name)
              : liveApiUrl(
                  endpoint,
                  declaration.crd,
                  declaration.protocol,
                  namespace,
                  name,
                  nonEmpty(declaration.selector.namespace),
                );
      }
      new URL(url);
      timeoutMs = parseDuration(declaration.timeout ?? '5s');
      cacheForMs = parseDuration(declaration.cacheFor ?? '30s');
    } catch (error) {
      return unusable(
        declaration.url == null ? 'endpoint' : 'url',
        describeError(error),
        redactUrlCredentials(declaration.url ?? declaration.endpoint ?? ''),
      );
    }
    const shown = redactUrlCredentials(url);
    // Every selector that cannot be read as rendered is named, never read as an empty answer.
    if (matchLabels != null && !lists)
      return unusable(
        'selector.matchLabels',
        `${declaration.url == null ? `protocol ${declaration.protocol ?? ''}` : 'a whole url'} answers one object; a label selector lists CRs with protocol: cr`,
        shown,
      );
    if (declaration.strategy === 'all' && !lists && !oneAsList)
      return unusable(
        'strategy',
        `all lists CRs with protocol: cr; ${declaration.url == null ? `protocol ${declaration.protocol ?? ''}` : 'a whole url'} answers one object`,
        shown,
      );
    const badLabel = matchLabels == null ? undefined : checkMatchLabels(matchLabels);
    if (badLabel != null) {
      const split = badLabel.indexOf(': ');
      return unusable(badLabel.slice(0, split), badLabel.slice(split + 2), shown);
    }
    if (perCr && !lists && name === '')
      return unusable(
        'selector.name',
        'is empty (one CR is read by name; selector.matchLabels lists CRs by label)',
        shown,
      );
    const credential = declaration.credential;
    const sendToken = credential == null && declaration.sendToken === true && this.#token != null;
    // An answer read with one credential is never shared with a read that sends another, or none.
    const key = `${credential == null ? (sendToken ? 't' : '-') : `c:${credential.id}`} ${url}`;
    const cached = this.#cache.entry(key, this.#clock.now());
    if (cached != null) {
      this.#cacheHits++;
      return asList({ ...cached.value, expiresAt: cached.expiresAt }, oneAsList);
    }
    let shared = this.#inFlight.get(key);
    if (shared == null) {
      shared = this.#fetch({
        url,
        key,
        shape,
        credential: credential?.value,
        sendToken,
        name,
        namespace: namespace ?? '',
        timeoutMs,
        cacheForMs,
        timeoutText: declaration.timeout ?? '5s',
        ...(lists ? { matchLabels } : {}),
      });
      this.#inFlight.set(key, shared);
      const pending = shared;
      void pending.finally(() => {
        if (this.#inFlight.get(key) === pending) this.#inFlight.delete(key);
      });
    }
    const answer = await (context.signal == null
      ? shared
      : raceAbort(shared, context.signal, shown, name, namespace ?? ''));
    return asList(answer, oneAsList);
  }

  async #fetch(request: FetchRequest): Promise<CrossHttpResult> {
    const { url, key, shape, name, namespace, timeoutMs, cacheForMs } = request;
    const deadline = createDeadline(this.#clock, timeoutMs, `timed out after ${request.timeoutText}`);
    const shown = redactUrlCredentials(url);
    let failure: string;
    try {
      const target = new URL(url);
      if (target.protocol !== 'http:' && target.protocol !== 'https:')
        throw new Error(`unsupported URL scheme ${target.protocol} (http or https only)`);
      // Literal addresses are checked here; hostnames after resolution, at connect time (lookup).
      this.#guard.precheck(target);
      const token =
        request.credential ?? (request.sendToken ? await this.#token?.().catch(() => undefined) : undefined);
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
        return this.#remember(
          key,
          {
            url: shown,
            result: notFoundCrossResult(name, namespace),
            ...(shape === 'list' ? { results: [] } : {}),
          },
          cacheForMs,
        );
      if (response.status === 200) {
        if (shape === 'list') {
          const results = parseListAnswer(response.body, request.matchLabels ?? {});
          if (results != null)
            return this.#remember(
              key,
              { url: shown, result: results[0] ?? notFoundCrossResult('', namespace), results },
              cacheForMs,
            );
          failure = `answer from ${shown} is not a Live API CR list (a JSON object with items[])`;
        } else {
          const parsed =
            shape === 'object' ? parseAnswer(response.body) : parseLiveAnswer(response.body, name, namespace);
          if (parsed != null) return this.#remember(key, { url: shown, result: parsed }, cacheForMs);
          failure = `answer from ${shown} is not a ${shape === 'object' ? 'cross-read ' : ''}JSON object`;
        }
      } else failure = `unexpected status ${response.status} from ${shown}`;
    } catch (error) {
      const reason = deadline.signal.aborted ? deadline.signal.reason : error;
      const message = reason instanceof TimeoutError ? reason.message : describeError(reason);
      failure = `${message} (GET ${shown})`;
    } finally {
      deadline.clear();
    }
    return this.#failed(key, shown, { name, namespace, shape }, failure, cacheForMs);
  }

  /** #remember caches a good answer for `cacheFor` and keeps it as the last good one. */
  #remember(key: string, answer: CrossHttpResult, cacheForMs: number): CrossHttpResult {
    this.#lastGood.set(key, { result: answer.result, results: answer.results, failingSince: undefined });
    if (this.#lastGood.size > this.#maxLastGood)
      this.#lastGood.delete(this.#lastGood.keys().next().value ?? '');
    if (cacheForMs <= 0) return answer;
    const expiresAt = this.#clock.now() + cacheForMs;
    this.#cache.set(key, answer, expiresAt);
    return { ...answer, expiresAt };
  }

  /**
   * #failed answers a read whose peer did not answer: the last good answer while the peer has been
   * failing for less than `cacheFor`, else `found: false` with the error; either way `unavailable`.
   * The outcome is reused for up to 5 s (never past `cacheFor`), and the reader re-queued then.
   */
  #failed(
    key: string,
    shown: string,
    read: { readonly name: string; readonly namespace: string; readonly shape: AnswerShape },
    failure: string,
    cacheForMs: number,
  ): CrossHttpResult {
    const { name, namespace, shape } = read;
    const now = this.#clock.now();
    const last = this.#lastGood.get(key);
    if (last != null && last.failingSince == null) last.failingSince = now;
    const kept = last != null && now - (last.failingSince ?? now) < cacheForMs;
    const answer: CrossHttpResult = {
      url: shown,
      result: kept ? last.result : notFoundCrossResult(name, namespace, failure),
      ...(kept && last.results != null ? { results: last.results } : {}),
      ...(!kept && shape === 'list' ? { results: [] } : {}),
      unavailable: kept ? `${failure}; the last answer is used until the peer answers again` : failure,
      ...(kept ? {} : { noAnswer: true as const }),
    };
    const reuseMs = Math.min(FAILURE_REUSE_MS, Math.max(cacheForMs, 1));
    const expiresAt = now + reuseMs;
    this.#cache.set(key, answer, expiresAt);
    return { ...answer, expiresAt };
  }
}

/**
 * asList answers a `strategy: all` read by name (ADR 0108) from its one-object answer: a list of the
 * CR when found, else an empty list (a failure's `error` stays on `result`). Others pass unchanged.
 */
function asList(answer: CrossHttpResult, oneAsList: boolean): CrossHttpResult {
  if (!oneAsList) return answer;
  return { ...answer, results: answer.result.found ? [answer.result] : [] };
}

/** AnswerShape is how an answer is read: Orkestra's object answer, any JSON object (Live API, `url`), or a Live API CR list. */
type AnswerShape = 'object' | 'live' | 'list';

interface FetchRequest {
  readonly url: string;
  readonly key: string;
  readonly shape: AnswerShape;
  readonly credential: string | undefined;
  readonly sendToken: boolean;
  readonly name: string;
  readonly namespace: string;
  readonly timeoutMs: number;
  readonly cacheForMs: number;
  readonly timeoutText: string;
  /** A label-selector read's labels: every listed item must carry them. */
  readonly matchLabels?: Readonly<Record<string, string>> | undefined;
}

/**
 * parseLiveAnswer reads a Live API (or any JSON) answer as upstream's readers do: the object is the
 * result, `found` is its own `found` (a boolean or `"true"`/`"false"`), else true; the CR keys a
 * template may read default to empty.
 */
function parseLiveAnswer(body: string, name: string, namespace: string): CrossResult | undefined {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return undefined;
  }
  return liveResultOf(value, name, namespace);
}

/**
 * parseListAnswer reads a Live API CR list with `detail=true` (ADR 0101): each item as a `cr` answer,
 * ordered as an in-process read orders matches — created first, then namespace/name — so `strategy:
 * first` is the first item. An item that is not an object is left out; no `items` list is undefined.
 */
function parseListAnswer(
  body: string,
  matchLabels: Readonly<Record<string, string>>,
): CrossResult[] | undefined {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return undefined;
  }
  const items = objectMap(value)['items'];
  if (!Array.isArray(items)) return undefined;
  const read: { result: CrossResult; created: number }[] = [];
  for (const item of items) {
    const result = liveResultOf(item, '', '');
    // Checked here too: a peer that ignores `labelSelector` (or `detail`, leaving no labels) lists
    // more than was asked for, and what it lists without the labels is not a match.
    if (result == null || !labelsMatch(result.labels, matchLabels)) continue;
    const stamp = objectMap(item)['creationTimestamp'];
    const created = typeof stamp === 'string' ? Date.parse(stamp) : NaN;
    read.push({ result, created: Number.isNaN(created) ? Number.MAX_SAFE_INTEGER : created });
  }
  const keyOf = (r: CrossResult): string => (r.namespace === '' ? r.name : `${r.namespace}/${r.name}`);
  return read
    .sort((a, b) =>
      a.created !== b.created ? a.created - b.created : keyOf(a.result) < keyOf(b.result) ? -1 : 1,
    )
    .map((r) => r.result);
}

function liveResultOf(value: unknown, name: string, namespace: string): CrossResult | undefined {
  if (value == null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const answer = value as Record<string, unknown>;
  const found = answer['found'];
  return {
    ...answer,
    found: typeof found === 'boolean' ? found : typeof found === 'string' ? found === 'true' : true,
    name: typeof answer['name'] === 'string' ? answer['name'] : name,
    namespace: typeof answer['namespace'] === 'string' ? answer['namespace'] : namespace,
    labels: stringMap(answer['labels']),
    annotations: stringMap(answer['annotations']),
    spec: objectMap(answer['spec']),
    status: objectMap(answer['status']),
  };
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

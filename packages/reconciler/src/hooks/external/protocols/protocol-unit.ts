/**
 * What an external call protocol is (docs/adr/0053-external-protocols-are-units.md,
 * docs/reference/katalog.md §15.1.1): one folder `protocols/<name>/` holding a `ProtocolUnit` —
 * how it connects and queries, the result it puts in `external.<name>`, which of its failures are
 * worth retrying, what the call's `auth` credential is to it and its address-guard rule — plus one
 * line in the protocol table (`protocols/table.ts`). The caller (hooks/external.ts) owns what every
 * protocol shares: rendering, the credential lookup, the timeout, the result cache and retries.
 */
import type { ExternalProtocolName } from '@orkestra/types';
import type { Clock } from '../../../clock.js';
import type { AddressGuard } from '../../address-guard.js';
import type { ExternalCallDeclaration } from '../../external.js';
import type { HttpResponse } from '../../http-request.js';
import type { HelperParameter, ResultFields } from './result-shape.js';

/** ProtocolCall is one rendered call as a protocol sees it. */
export interface ProtocolCall {
  readonly declaration: ExternalCallDeclaration;
  /** The credential from `auth` (a Secret or the environment), undefined without `auth`. */
  readonly credential: string | undefined;
  /** Aborts at the call's timeout or with the reconcile. */
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
}

/** ProtocolAnswer is a protocol's part of `external.<name>`; the caller adds `called` and `durationMs`. */
export interface ProtocolAnswer {
  readonly ok: boolean;
  readonly status?: number;
  readonly body?: string;
  readonly json?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  readonly error?: string;
  /** Upstream's canonical scalar (a PromQL value, the first column of the first row). */
  readonly result?: string;
  /** Upstream's full answer (Prometheus' response, the first row). */
  readonly raw?: unknown;
  /** SQL rows, column name to value. */
  readonly rows?: readonly Readonly<Record<string, unknown>>[];
  /** Protocol mongo: the number of matching documents, as text. */
  readonly count?: string;
  /** Protocol mongo: the matching documents (at most `maxRows`), as relaxed Extended JSON. */
  readonly documents?: readonly Readonly<Record<string, unknown>>[];
  /** Protocol kafka (`@topic`): the topic's partition count, as text. */
  readonly partitionCount?: string;
  /** Protocol kafka (`group/topic`): the topic's partition count, as text. */
  readonly partitions?: string;
  /** Protocol kafka (`group/topic`): the group's total lag on the topic, as text. */
  readonly lag?: string;
  /** False when a failure will not go away by itself (a refused statement, a bad query): no retry. Default true. */
  readonly retryable?: boolean;
}

/** GuardedHttpRequest is one request over the caller's guarded HTTP path (redirects, credential stripping, body limit). */
export interface GuardedHttpRequest {
  readonly url: string;
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string | undefined;
  /** The lowercase name of the credential header, dropped on a redirect to another origin. */
  readonly authHeader?: string | undefined;
  /** The lowercase names of the declared headers, dropped on a redirect to another origin too. */
  readonly declared: readonly string[];
}

/** ProtocolServices are what the caller lends its protocols. */
export interface ProtocolServices {
  /** The address guard every connection goes through. */
  readonly guard: AddressGuard;
  /** HTTP through the guard: every address checked at connect time, redirects re-checked. */
  http(request: GuardedHttpRequest, signal: AbortSignal): Promise<HttpResponse>;
  /** The answer size limit (HTTP body, serialized rows). */
  readonly maxBodyBytes: number;
  /** Rows a SQL answer keeps (documents, for mongo). */
  readonly maxRows: number;
  readonly clock: Clock;
  /** Imports the package of a heavy client (`@orkestra/protocol-postgres`) on first use. */
  importModule(specifier: string): Promise<unknown>;
}

/** ProtocolSession is what a protocol keeps across calls of one caller (pooled connections). */
export interface ProtocolSession {
  /** call makes one call; a thrown error is a failed, retryable call unless it says `retryable: false`. */
  call(call: ProtocolCall): Promise<ProtocolAnswer>;
  /** close ends what the session holds (a reload, shutdown). */
  close?(): Promise<void>;
}

/** ProtocolUnit is one protocol: its contract in words (for the reference) and its session. */
export interface ProtocolUnit {
  readonly name: ExternalProtocolName;
  /** The reference section that documents it. */
  readonly reference: string;
  /** What the call's `auth` credential is to this protocol (always a Secret or `env`, never inline). */
  readonly credential: string;
  /** Its address-guard rule. */
  readonly addressGuard: string;
  /** What its failures mean: which ones are retried. */
  readonly errors: string;
  /**
   * The keys its answers add to `external.<name>` besides `called`, `ok`, `error`, `durationMs`,
   * and their shapes; `ork validate --strict` checks template paths against them.
   */
  readonly result: ResultFields;
  /**
   * The result of one call when its declaration says more than `result` does (a SQL select list
   * names a row's columns); undefined keeps `result`. Its keys are `result`'s keys.
   */
  readonly resultOf?: (declaration: ExternalCallDeclaration) => ResultFields | undefined;
  /** Template helpers that read its result, each with what its arguments are (checked by `--strict`). */
  readonly helpers?: Readonly<Record<string, readonly HelperParameter[]>>;
  /** open creates the session, once per caller, on the protocol's first call. */
  open(services: ProtocolServices): ProtocolSession;
}

/** defineProtocol declares a protocol unit (an identity function that keeps its literal types). */
export function defineProtocol(unit: ProtocolUnit): ProtocolUnit {
  return unit;
}

/** NotRetryable marks a thrown failure that a retry will not fix. */
export class NotRetryable extends Error {
  override readonly name = 'NotRetryable';
  readonly retryable = false;
}

/**
 * protocolUrl parses a call's URL and refuses, not retryable, one that does not parse (`invalid`)
 * or whose scheme is not one of `schemes` (`only` says which are accepted).
 */
export function protocolUrl(raw: string, schemes: readonly string[], invalid: string, only: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new NotRetryable(invalid);
  }
  if (!schemes.includes(url.protocol))
    throw new NotRetryable(`unsupported URL scheme ${url.protocol} (${only})`);
  return url;
}

/** authorizationHeader is the header a credential goes in (`auth.header`, `auth.scheme`), or undefined without one. */
export function authorizationHeader(
  declaration: ExternalCallDeclaration,
  credential: string | undefined,
): { readonly name: string; readonly value: string } | undefined {
  if (credential == null) return undefined;
  const scheme = declaration.auth?.scheme ?? 'Bearer';
  return {
    name: declaration.auth?.header ?? 'Authorization',
    value: scheme === '' ? credential : `${scheme} ${credential}`,
  };
}

/** parseJson is a body's JSON value, or null when it is empty or not JSON. */
export function parseJson(body: string): unknown {
  if (body.trim() === '') return null;
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return null;
  }
}

/** ClientHolder is a protocol's heavy client, made from its package on the first call and closed on reload. */
export interface ClientHolder<C extends { close(): Promise<void> }> {
  /** get imports the package once and makes the client; a failed import is NotRetryable and tried again next call. */
  get(): Promise<C>;
  /** close closes the client made so far (if any); the next `get` makes a new one. */
  close(): Promise<void>;
}

/**
 * clientHolder holds the client of a protocol whose driver lives in its own package (ADR 0053):
 * `make` turns the imported module into the client (pools shared by every CR of the caller).
 */
export function clientHolder<C extends { close(): Promise<void> }>(
  services: ProtocolServices,
  protocol: string,
  specifier: string,
  make: (module: unknown) => C,
): ClientHolder<C> {
  let client: Promise<C> | undefined;
  return {
    get: () =>
      (client ??= services.importModule(specifier).then(make, (error: unknown) => {
        client = undefined;
        throw new NotRetryable(
          `protocol ${protocol} needs the package ${specifier} (${error instanceof Error ? error.message : String(error)})`,
        );
      })),
    async close(): Promise<void> {
      const current = client;
      client = undefined;
      await (await current?.catch(() => undefined))?.close();
    },
  };
}

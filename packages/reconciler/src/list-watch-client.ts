import * as http from 'node:http';
import * as https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import type { KubeApiError } from '@orkestra/registry';
import { createKubeApiError, kubeErrorCodeOf } from '@orkestra/registry';

/** ListResponse is the JSON body of a Kubernetes list request (one page). */
export interface ListResponse {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: { readonly resourceVersion?: string; readonly continue?: string };
  readonly items?: readonly unknown[];
}

/** RawWatchEvent is one line of a Kubernetes watch stream. */
export interface RawWatchEvent {
  readonly type: string;
  readonly object: unknown;
}

/** WatchHandlers receive a watch's events, then exactly one `onClose` (no error: the server ended it normally). */
export interface WatchHandlers {
  readonly onEvent: (event: RawWatchEvent) => void;
  readonly onClose: (error?: unknown) => void;
}

/** WatchHandle stops a watch; `onClose` is not called after `abort`. */
export interface WatchHandle {
  abort(): void;
}

/** ListWatchClient is the transport an Informer lists and watches through (paths are API paths such as `/api/v1/configmaps`). */
export interface ListWatchClient {
  list(path: string, query: Readonly<Record<string, string>>, signal?: AbortSignal): Promise<ListResponse>;
  watch(path: string, query: Readonly<Record<string, string>>, handlers: WatchHandlers): WatchHandle;
}

/** KubeListWatchClientOptions configures a KubeListWatchClient. */
export interface KubeListWatchClientOptions {
  /** Cluster, credentials and TLS settings. */
  readonly kubeConfig: KubeConfig;
  /** A list request taking longer is aborted. Default 60 000 ms. */
  readonly listTimeoutMs?: number;
  /** `User-Agent` of every request, so the API server's audit log names the client. Default `orkestra`. */
  readonly userAgent?: string;
  /**
   * Called when a list ends and when a watch gets its response headers, with the HTTP method, the
   * status (0 when no response arrived) and the seconds taken (`rest_client_requests_total`).
   * Default: none.
   */
  readonly onRequest?: (method: string, status: number, seconds: number) => void;
  /**
   * Ask for metadata only (`PartialObjectMetadata`): lists and watch events carry no spec or
   * status, so a watcher of every CR (the sharder, ADR 0045) costs little per object. Default false.
   */
  readonly metadataOnly?: boolean;
}

/** ListWatchRequestCounts counts the requests a KubeListWatchClient made, for tests and metrics. */
export interface ListWatchRequestCounts {
  readonly list: number;
  readonly watch: number;
}

/**
 * KubeListWatchClient lists and watches over plain `node:https` (or `node:http`) with the
 * cluster, credentials and TLS settings of a KubeConfig (`applyToHTTPSOptions`). It exposes the
 * status code, Status reason and `Retry-After` of failures, which client-node's Watch does not.
 *
 * @example
 * const client = new KubeListWatchClient({ kubeConfig: kc });
 * const page = await client.list('/api/v1/namespaces/shop/configmaps', { limit: '500' });
 */
export class KubeListWatchClient implements ListWatchClient {
  readonly #kc: KubeConfig;
  readonly #listTimeoutMs: number;
  readonly #userAgent: string;
  readonly #onRequest: ((method: string, status: number, seconds: number) => void) | undefined;
  readonly #metadataOnly: boolean;
  #lists = 0;
  #watches = 0;

  constructor(options: KubeListWatchClientOptions) {
    this.#kc = options.kubeConfig;
    this.#listTimeoutMs = options.listTimeoutMs ?? 60_000;
    this.#userAgent = options.userAgent ?? 'orkestra';
    this.#onRequest = options.onRequest;
    this.#metadataOnly = options.metadataOnly ?? false;
  }

  /** requestCounts returns how many list and watch requests were sent. */
  requestCounts(): ListWatchRequestCounts {
    return { list: this.#lists, watch: this.#watches };
  }

  async list(
    path: string,
    query: Readonly<Record<string, string>>,
    signal?: AbortSignal,
  ): Promise<ListResponse> {
    this.#lists++;
    const timeout = AbortSignal.timeout(this.#listTimeoutMs);
    const combined = signal == null ? timeout : AbortSignal.any([signal, timeout]);
    const { request, options } = await this.#prepare(path, query);
    const started = performance.now();
    let status = 0;
    const report = (): void => this.#onRequest?.('GET', status, (performance.now() - started) / 1000);
    return new Promise<ListResponse>((resolve, reject) => {
      const req = request({ ...options, signal: combined }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          status = res.statusCode ?? 0;
          report();
          if (status < 200 || status >= 300) {
            reject(apiError('list', status, body, res.headers['retry-after']));
            return;
          }
          try {
            resolve(JSON.parse(body) as ListResponse);
          } catch (error) {
            reject(new Error(`invalid list response from ${path}`, { cause: error }));
          }
        });
      });
      req.on('error', (error) => {
        report();
        reject(error);
      });
      req.end();
    });
  }

  watch(path: string, query: Readonly<Record<string, string>>, handlers: WatchHandlers): WatchHandle {
    this.#watches++;
    let closed = false;
    let req: http.ClientRequest | undefined;
    const close = (error?: unknown): void => {
      if (closed) return;
      closed = true;
      req?.destroy();
      handlers.onClose(error);
    };
    this.#prepare(path, { ...query, watch: 'true' }).then(
      ({ request, options }) => {
        if (closed) return;
        const started = performance.now();
        req = request(options, (res) => {
          const status = res.statusCode ?? 0;
          this.#onRequest?.('GET', status, (performance.now() - started) / 1000);
          if (status !== 200) {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () =>
              close(
                apiError('watch', status, Buffer.concat(chunks).toString('utf8'), res.headers['retry-after']),
              ),
            );
            res.on('error', close);
            return;
          }
          res.setEncoding('utf8');
          let buffer = '';
          res.on('data', (chunk: string) => {
            buffer += chunk;
            let newline = buffer.indexOf('\n');
            while (newline >= 0 && !closed) {
              const line = buffer.slice(0, newline).trim();
              buffer = buffer.slice(newline + 1);
              if (line !== '') {
                let event: RawWatchEvent | undefined;
                try {
                  event = JSON.parse(line) as RawWatchEvent;
                } catch (error) {
                  close(new Error(`invalid watch event from ${path}`, { cause: error }));
                  return;
                }
                handlers.onEvent(event);
              }
              newline = buffer.indexOf('\n');
            }
          });
          res.on('end', () => close());
          res.on('error', close);
          res.on('aborted', () => close(new Error('watch connection aborted')));
        });
        req.on('error', close);
        req.end();
      },
      (error: unknown) => close(error),
    );
    return {
      abort: () => {
        closed = true;
        req?.destroy();
      },
    };
  }

  /** #accept is the Accept header: JSON, or its metadata-only form (`PartialObjectMetadata[List]`). */
  #accept(watch: boolean): string {
    if (!this.#metadataOnly) return 'application/json';
    const as = watch ? 'PartialObjectMetadata' : 'PartialObjectMetadataList';
    return `application/json;as=${as};g=meta.k8s.io;v=v1,application/json`;
  }

  async #prepare(
    path: string,
    query: Readonly<Record<string, string>>,
  ): Promise<{ request: typeof https.request; options: https.RequestOptions }> {
    const cluster = this.#kc.getCurrentCluster();
    if (cluster == null) throw new Error('KubeListWatchClient: the kubeconfig has no current cluster');
    const url = new URL(cluster.server.replace(/\/+$/, '') + path);
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
    const options: https.RequestOptions = {
      method: 'GET',
      protocol: url.protocol,
      hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: url.port,
      path: url.pathname + url.search,
      headers: { Accept: this.#accept(query['watch'] === 'true') },
    };
    await this.#kc.applyToHTTPSOptions(options);
    options.headers = { ...options.headers, 'User-Agent': this.#userAgent };
    const request =
      url.protocol === 'http:' ? (http.request as unknown as typeof https.request) : https.request;
    return { request, options };
  }
}

/**
 * apiError turns a non-2xx answer into the registry's KubeApiError (one error family for every API
 * call, docs/reference/runtime.md §18.1): HTTP status, the Status `reason` as a KubeErrorCode
 * (`Expired` is `Gone`) and `Retry-After` in seconds.
 */
function apiError(
  verb: 'list' | 'watch',
  statusCode: number,
  body: string,
  retryAfter: string | string[] | undefined,
): KubeApiError {
  let message = `HTTP ${statusCode}`;
  let reason: string | undefined;
  try {
    const status = JSON.parse(body) as { message?: unknown; reason?: unknown };
    if (typeof status.message === 'string') message = `HTTP ${statusCode}: ${status.message}`;
    if (typeof status.reason === 'string') reason = status.reason;
  } catch {
    if (body !== '') message = `HTTP ${statusCode}: ${body.slice(0, 200)}`;
  }
  const retryAfterMs = parseRetryAfter(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter);
  return createKubeApiError({
    reason: kubeErrorCodeOf(statusCode, reason),
    status: statusCode,
    verb,
    message,
    ...(retryAfterMs == null ? {} : { retryAfterSeconds: retryAfterMs / 1000 }),
  });
}

/** parseRetryAfter reads a `Retry-After` header given in seconds; HTTP dates are ignored. */
export function parseRetryAfter(value: string | undefined): number | undefined {
  if (value == null || !/^\d+$/.test(value.trim())) return undefined;
  return Number(value.trim()) * 1000;
}

/**
 * One JSON request to the API server named by a KubeConfig, for the few writes the registry's
 * client does not cover (status with a resource-version precondition, core Events without
 * discovery).
 */
import * as http from 'node:http';
import * as https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { KeepAliveAgents } from '@orkestra/registry';
import { KubeApiError, parseRetryAfter } from '../list-watch-client.js';

/** One pool of keep-alive connections per set of credentials, shared by every raw request. */
const agents = new KeepAliveAgents();

/** RawRequest is one JSON request: method, API path (starting with `/api` or `/apis`), query and body. */
export interface RawRequest {
  readonly method: 'POST' | 'PATCH';
  readonly path: string;
  readonly query?: Readonly<Record<string, string>>;
  readonly body: unknown;
  readonly contentType: string;
}

/** RawRequestOptions configures sendRawRequest. */
export interface RawRequestOptions {
  readonly kubeConfig: KubeConfig;
  /** Per-request timeout. Default 30 000 ms. */
  readonly timeoutMs?: number | undefined;
  /** Called when the request ended, with the HTTP status (0 when none arrived) and its duration. */
  readonly onDone?: ((status: number, seconds: number) => void) | undefined;
}

/**
 * sendRawRequest sends one request and resolves with the parsed JSON body of a 2xx answer; any
 * other answer rejects with a KubeApiError carrying the status code, the Status reason and the
 * `Retry-After` seconds.
 */
export async function sendRawRequest(request: RawRequest, options: RawRequestOptions): Promise<unknown> {
  const cluster = options.kubeConfig.getCurrentCluster();
  if (cluster == null) throw new Error('the kubeconfig has no current cluster');
  const url = new URL(`${cluster.server.replace(/\/+$/, '')}${request.path}`);
  for (const [k, v] of Object.entries(request.query ?? {})) url.searchParams.set(k, v);
  const body = JSON.stringify(request.body);
  const requestOptions: https.RequestOptions = {
    method: request.method,
    protocol: url.protocol,
    hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port,
    path: url.pathname + url.search,
    headers: {
      Accept: 'application/json',
      'Content-Type': request.contentType,
      'Content-Length': Buffer.byteLength(body),
    },
    signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
  };
  await options.kubeConfig.applyToHTTPSOptions(requestOptions);
  // Reuse connections: client-node puts a fresh agent (a new TLS connection) on every request.
  requestOptions.agent = agents.agentFor(requestOptions, url.protocol);
  const send = url.protocol === 'http:' ? (http.request as unknown as typeof https.request) : https.request;
  const started = performance.now();
  let status = 0;
  try {
    return await new Promise<unknown>((resolve, reject) => {
      const req = send(requestOptions, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          status = res.statusCode ?? 0;
          if (status < 200 || status >= 300) {
            let message = `HTTP ${status}`;
            let reason: string | undefined;
            try {
              const parsed = JSON.parse(text) as { message?: unknown; reason?: unknown };
              if (typeof parsed.message === 'string') message = `HTTP ${status}: ${parsed.message}`;
              if (typeof parsed.reason === 'string') reason = parsed.reason;
            } catch {
              // not a Status body
            }
            const header = res.headers['retry-after'];
            const retryAfterMs = parseRetryAfter(Array.isArray(header) ? header[0] : header);
            reject(
              new KubeApiError(message, {
                statusCode: status,
                ...(reason == null ? {} : { reason }),
                ...(retryAfterMs == null ? {} : { retryAfterMs }),
              }),
            );
            return;
          }
          try {
            resolve(text === '' ? undefined : JSON.parse(text));
          } catch (error) {
            reject(error instanceof Error ? error : new Error(String(error)));
          }
        });
      });
      req.on('error', reject);
      req.end(body);
    });
  } finally {
    options.onDone?.(status, (performance.now() - started) / 1000);
  }
}

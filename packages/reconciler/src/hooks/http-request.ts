/**
 * One HTTP request with `node:http`/`node:https` for the hooks: an abort signal, an optional
 * `lookup` (the address guard), a response body limit and lowercase response headers. No
 * redirects are followed here; callers decide.
 */
import { request as httpRequestFn } from 'node:http';
import type { IncomingMessage, RequestOptions } from 'node:http';
import { request as httpsRequestFn } from 'node:https';
import { redactUrlCredentials } from '../redact-url.js';
import { BlockedAddressError } from './address-guard.js';

/** HttpRequestOptions describes one request. */
export interface HttpRequestOptions {
  readonly url: URL;
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  /** Aborts the request and the body read. */
  readonly signal: AbortSignal;
  /** A response body longer than this fails with BodyTooLargeError. */
  readonly maxBodyBytes: number;
  /** `dns.lookup` replacement used to connect (the address guard). Default: the system resolver. */
  readonly lookup?: RequestOptions['lookup'];
}

/** HttpResponse is a fully read response. */
export interface HttpResponse {
  readonly status: number;
  /** Lowercase names; repeated headers joined with `, `. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** BodyTooLargeError says a response body exceeded the limit. */
class BodyTooLargeError extends Error {
  override readonly name: string = 'BodyTooLargeError';
}

/** MIB is one mebibyte, the body limit of external calls and cross reads. */
export const MIB = 1024 * 1024;

/** formatBytes renders a byte limit for messages (`1 MiB`, `512 KiB`, `100 bytes`). */
function formatBytes(bytes: number): string {
  if (bytes >= MIB && bytes % MIB === 0) return `${bytes / MIB} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/** sendHttpRequest performs one request and reads the whole response body (up to the limit). */
export function sendHttpRequest(options: HttpRequestOptions): Promise<HttpResponse> {
  const { url, signal } = options;
  const send = url.protocol === 'https:' ? httpsRequestFn : httpRequestFn;
  return new Promise<HttpResponse>((resolve, reject) => {
    if (signal.aborted) {
      reject(abortError(signal));
      return;
    }
    let settled = false;
    const fail = (error: unknown): void => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      request.destroy();
      reject(error);
    };
    const onAbort = (): void => fail(abortError(signal));
    const headers: Record<string, string> = { ...options.headers };
    if (options.body != null) headers['content-length'] = String(Buffer.byteLength(options.body));
    const request = send(url, {
      method: options.method,
      headers,
      agent: false,
      ...(options.lookup == null ? {} : { lookup: options.lookup }),
    });
    signal.addEventListener('abort', onAbort, { once: true });
    request.on('error', fail);
    request.on('response', (response: IncomingMessage) => {
      const declared = Number(response.headers['content-length']);
      if (Number.isFinite(declared) && declared > options.maxBodyBytes) {
        fail(new BodyTooLargeError(`response body exceeds ${formatBytes(options.maxBodyBytes)}`));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > options.maxBodyBytes) {
          fail(new BodyTooLargeError(`response body exceeds ${formatBytes(options.maxBodyBytes)}`));
          return;
        }
        chunks.push(chunk);
      });
      response.on('error', fail);
      response.on('end', () => {
        if (settled) return;
        settled = true;
        signal.removeEventListener('abort', onAbort);
        resolve({
          status: response.statusCode ?? 0,
          headers: lowercaseHeaders(response),
          body: Buffer.concat(chunks).toString('utf8'),
        });
      });
    });
    request.end(options.body);
  });
}

function lowercaseHeaders(response: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  const raw = response.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = (raw[i] ?? '').toLowerCase();
    const value = raw[i + 1] ?? '';
    headers[name] = headers[name] == null ? value : `${headers[name]}, ${value}`;
  }
  return headers;
}

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new Error('request aborted');
}

/**
 * describeError turns a transport failure into a short message (`connect ECONNREFUSED 127.0.0.1:1`),
 * with credentials in URLs redacted (hooks put it in their results, conditions and Events).
 */
export function describeError(error: unknown): string {
  return redactUrlCredentials(describeErrorText(error));
}

function describeErrorText(error: unknown): string {
  if (error instanceof BlockedAddressError) return error.message;
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === 'string' && !error.message.includes(code)
      ? `${code}: ${error.message}`
      : error.message;
  }
  return String(error);
}

/** TimeoutError is the abort reason of a hook's own timeout. */
export class TimeoutError extends Error {
  override readonly name: string = 'TimeoutError';
}

import { createServer } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { ConversionError } from '../conversion/convert.js';
import type { Converter } from '../conversion/convert.js';
import { isMap } from '../is-map.js';
import type { AdmissionHandler } from './admission.js';

/**
 * The operator's HTTPS endpoint for the API server's webhooks (docs/reference/runtime.md §26,
 * ADR 0057): `POST /convert` answers a `ConversionReview` (apiextensions.k8s.io/v1) with the
 * converted objects; `POST /validate/…` an `AdmissionReview` with the admission webhook's verdict
 * (ADR 0089), `POST /mutate/…` one with the mutating webhook's JSONPatch (ADR 0092), `POST /shard/…`
 * one with the shard-assignment webhook's label (ADR 0110). Every replica serves it (conversion needs no leader: it reads only the
 * request). The certificate is swapped in place (`setTls`) when the Secret rotates, so
 * connections open at the time finish on the old one and new ones get the new one.
 */

/** WebhookServerOptions configures createWebhookServer. */
export interface WebhookServerOptions {
  readonly certPem: string;
  readonly keyPem: string;
  /** Converters by `<group>/<Kind>`. */
  readonly converters: ReadonlyMap<string, Converter>;
  /** Answers `/validate/…`, `/mutate/…` and `/shard/…` AdmissionReviews (ADR 0089, ADR 0092, ADR 0110); none: those paths are 404. */
  readonly admission?: AdmissionHandler;
  /** Default 0.0.0.0. */
  readonly host?: string;
  /** Default 9443; 0 picks a free port. */
  readonly port?: number;
  /** Largest request body. Default 32 MiB (a list read converts every object in one review). */
  readonly maxBodyBytes?: number;
  /** Called once per review with its duration, for the latency figure. */
  readonly onReview?: (review: { objects: number; ms: number; ok: boolean }) => void;
}

/** WebhookServer is a listening endpoint. */
export interface WebhookServer {
  readonly port: number;
  /** setTls serves a new certificate to new connections. */
  setTls(tls: { certPem: string; keyPem: string }): void;
  close(): Promise<void>;
}

type Json = Record<string, unknown>;

/** reviewResponse converts the objects of one ConversionReview request. */
function reviewResponse(review: unknown, converters: ReadonlyMap<string, Converter>): Json {
  const request = isMap(review) && isMap(review['request']) ? review['request'] : {};
  const uid = typeof request['uid'] === 'string' ? request['uid'] : '';
  const desired = typeof request['desiredAPIVersion'] === 'string' ? request['desiredAPIVersion'] : '';
  const objects = Array.isArray(request['objects']) ? request['objects'] : [];
  const group = desired.slice(0, desired.lastIndexOf('/'));
  const answer = (response: Json): Json => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'ConversionReview',
    response: { uid, ...response },
  });
  try {
    const convertedObjects = objects.map((object) => {
      if (!isMap(object)) throw new ConversionError('an object of the review is not a JSON object');
      const kind = String(object['kind'] ?? '');
      const converter = converters.get(`${group}/${kind}`);
      if (converter == null) throw new ConversionError(`no conversion for ${kind} in ${group}`);
      return converter.convert(object, desired);
    });
    return answer({ convertedObjects, result: { status: 'Success' } });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return answer({ convertedObjects: [], result: { status: 'Failure', message } });
  }
}

function readBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        resolve(undefined);
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, body: Json | string): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, {
    'content-type': typeof body === 'string' ? 'text/plain' : 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

/** createWebhookServer listens and serves `/convert`, `/validate/…`, `/mutate/…` (and `/healthz`). */
export async function createWebhookServer(options: WebhookServerOptions): Promise<WebhookServer> {
  const limit = options.maxBodyBytes ?? 32 * 1024 * 1024;
  const server: Server = createServer(
    { cert: options.certPem, key: options.keyPem, minVersion: 'TLSv1.2' },
    (req, res) => {
      void handle(req, res).catch(() => {
        if (!res.headersSent) send(res, 500, 'internal error');
      });
    },
  );
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'GET' && path === '/healthz') return send(res, 200, 'ok');
    const admission = ['/validate/', '/mutate/', '/shard/'].some(
      (prefix) => path?.startsWith(prefix) === true,
    )
      ? options.admission
      : undefined;
    if (path !== '/convert' && admission == null) return send(res, 404, 'not found');
    if (req.method !== 'POST') return send(res, 405, 'method not allowed');
    const started = performance.now();
    const text = await readBody(req, limit);
    if (text == null) return send(res, 413, 'request too large');
    let review: unknown;
    try {
      review = JSON.parse(text);
    } catch {
      return send(res, 400, 'the body is not JSON');
    }
    if (admission != null) {
      const answer = await admission(path ?? '', review);
      return answer == null ? send(res, 404, 'not found') : send(res, 200, answer);
    }
    const response = reviewResponse(review, options.converters);
    const result = (response['response'] as Json)['result'] as Json;
    const request = isMap(review) && isMap(review['request']) ? review['request'] : {};
    options.onReview?.({
      objects: Array.isArray(request['objects']) ? request['objects'].length : 0,
      ms: performance.now() - started,
      ok: result['status'] === 'Success',
    });
    send(res, 200, response);
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 9443, options.host ?? '0.0.0.0', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    setTls(tls) {
      server.setSecureContext({ cert: tls.certPem, key: tls.keyPem, minVersion: 'TLSv1.2' });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

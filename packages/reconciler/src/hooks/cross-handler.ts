/**
 * The serving side of HTTP cross reads (docs/reference/runtime.md §18.1): `GET
 * /katalog/crds/<entry>/objects/<namespace>/<name>` answered from the cache, for other Orkestra
 * processes' `cross` entries with `endpoint`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { KubeObject } from '../kube-object.js';
import { crossResultOf, notFoundCrossResult } from './cross.js';

/** CrossHandlerEntry is one CRD entry as the handler sees it. */
export interface CrossHandlerEntry {
  /** False disables the endpoint for this entry (403). */
  readonly crossAccess: boolean;
  /** Cluster-scoped entries ignore the namespace segment (`_` by convention). */
  readonly namespaced: boolean;
  /** Reads one cached CR (0 API calls); namespace undefined for cluster-scoped entries. */
  lookup(namespace: string | undefined, name: string): KubeObject | undefined;
}

/** CrossHandlerOptions configures createCrossHandler. */
export interface CrossHandlerOptions {
  /** The served entries by name, or a function returning them (for a Katalog that is reloaded). */
  readonly entries: ReadonlyMap<string, CrossHandlerEntry> | (() => ReadonlyMap<string, CrossHandlerEntry>);
}

/** CrossHandler answers a request when its path is under `/katalog/crds/` and returns true; otherwise it returns false and writes nothing. */
export type CrossHandler = (request: IncomingMessage, response: ServerResponse) => boolean;

/** CROSS_PATH_PREFIX is the path prefix the handler owns. */
const CROSS_PATH_PREFIX = '/katalog/crds/';

/**
 * createCrossHandler returns a request handler for the cross-read endpoint: 200 with
 * `{found, name, namespace, labels, annotations, spec, status}`, 404 when the entry or the object is
 * absent or the path is malformed, 403 when the entry has `crossAccess: false`, 405 for methods
 * other than GET and HEAD.
 *
 * @example
 * const cross = createCrossHandler({ entries });
 * http.createServer((req, res) => { if (!cross(req, res)) serveMetrics(req, res); });
 */
export function createCrossHandler(options: CrossHandlerOptions): CrossHandler {
  const entriesOf =
    typeof options.entries === 'function'
      ? options.entries
      : () => options.entries as ReadonlyMap<string, CrossHandlerEntry>;
  return (request, response) => {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    if (!path.startsWith(CROSS_PATH_PREFIX)) return false;
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      send(response, request, 405, { error: 'method not allowed; use GET' }, { allow: 'GET, HEAD' });
      return true;
    }
    const parts = path.slice(CROSS_PATH_PREFIX.length).split('/');
    let segments: string[];
    try {
      segments = parts.map((p) => decodeURIComponent(p));
    } catch {
      send(response, request, 404, { error: 'malformed path' });
      return true;
    }
    const [entryName, objects, namespace, name] = segments;
    if (
      segments.length !== 4 ||
      objects !== 'objects' ||
      entryName == null ||
      namespace == null ||
      name == null ||
      name === ''
    ) {
      send(response, request, 404, {
        error: `expected ${CROSS_PATH_PREFIX}<entry>/objects/<namespace>/<name>`,
      });
      return true;
    }
    const entry = entriesOf().get(entryName);
    if (entry == null) {
      send(response, request, 404, { error: `no entry ${entryName}` });
      return true;
    }
    if (!entry.crossAccess) {
      send(response, request, 403, {
        error: `entry ${entryName} does not allow cross reads (crossAccess: false)`,
      });
      return true;
    }
    const ns = entry.namespaced ? namespace : undefined;
    const object =
      entry.namespaced && (namespace === '_' || namespace === '') ? undefined : entry.lookup(ns, name);
    if (object == null) {
      send(response, request, 404, notFoundCrossResult(name, ns ?? ''));
      return true;
    }
    send(response, request, 200, crossResultOf(object));
    return true;
  };
}

function send(
  response: ServerResponse,
  request: IncomingMessage,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    'cache-control': 'no-store',
    ...headers,
  });
  response.end(request.method === 'HEAD' ? undefined : text);
}

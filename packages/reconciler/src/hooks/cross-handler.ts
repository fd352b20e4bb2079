/**
 * The serving side of HTTP cross reads (docs/reference/runtime.md §18.1, docs/adr/0030): `GET
 * /katalog/crds/<entry>/objects/<namespace>/<name>` answered from the cache, for other Orkestra
 * processes' `cross` entries with `endpoint`. Every request passes the `authorize` check first (the
 * operator's TokenReview + SubjectAccessReview gate); without one, every request is refused.
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
  /** The entry's API group and plural, for the SubjectAccessReview of a read. */
  readonly resource: { readonly group: string; readonly plural: string };
  /** Reads one cached CR (0 API calls); namespace undefined for cluster-scoped entries. */
  lookup(namespace: string | undefined, name: string): KubeObject | undefined;
}

/** CrossHandlerOptions configures createCrossHandler. */
export interface CrossHandlerOptions {
  /** The served entries by name, or a function returning them (for a Katalog that is reloaded). */
  readonly entries: ReadonlyMap<string, CrossHandlerEntry> | (() => ReadonlyMap<string, CrossHandlerEntry>);
  /** Decides who may read; asked before any entry is looked at. Default: refuse every request (401). */
  readonly authorize?: CrossAuthorize;
}

/** CrossReadTarget is what one request asks to read: the entry's resource and the object. */
export interface CrossReadTarget {
  readonly entry: string;
  readonly group: string;
  readonly plural: string;
  /** Undefined for cluster-scoped entries (and, for `list`, all namespaces). */
  readonly namespace: string | undefined;
  /** The object read; `''` for a `list`. */
  readonly name: string;
  /** The access asked for: `get` one object (default) or `list` the resource (Live API, runtime.md §18.6). */
  readonly verb?: 'get' | 'list';
}

/** CrossAccessDecision lets a request through, or names the status and message to answer with. */
export type CrossAccessDecision =
  { readonly ok: true } | { readonly ok: false; readonly status: 401 | 403; readonly message: string };

/**
 * CrossAuthorize authenticates the caller and, when `target` is given, authorizes the read. It is
 * called with `target` undefined for an unknown entry or one with `crossAccess: false`, so an
 * unauthenticated caller learns nothing about which entries exist.
 */
export type CrossAuthorize = (
  request: IncomingMessage,
  target: CrossReadTarget | undefined,
) => Promise<CrossAccessDecision>;

/** CrossHandler answers a request when its path is under `/katalog/crds/` and resolves true; otherwise it resolves false and writes nothing. */
export type CrossHandler = (request: IncomingMessage, response: ServerResponse) => Promise<boolean>;

const refuseAll: CrossAuthorize = () =>
  Promise.resolve({ ok: false, status: 401, message: 'cross reads are not served without an authorizer' });

/** CROSS_PATH_PREFIX is the path prefix the handler owns. */
const CROSS_PATH_PREFIX = '/katalog/crds/';

/**
 * createCrossHandler returns a request handler for the cross-read endpoint: 200 with
 * `{found, name, namespace, labels, annotations, spec, status}`; 401/403 as `authorize` decides
 * (asked before anything else is revealed); 404 when the entry or the object is absent or the path
 * is malformed; 403 when the entry has `crossAccess: false`; 405 for methods other than GET and HEAD.
 *
 * @example
 * const cross = createCrossHandler({ entries, authorize });
 * http.createServer(async (req, res) => { if (!(await cross(req, res))) notFound(res); });
 */
export function createCrossHandler(options: CrossHandlerOptions): CrossHandler {
  const entriesOf =
    typeof options.entries === 'function'
      ? options.entries
      : () => options.entries as ReadonlyMap<string, CrossHandlerEntry>;
  const authorize = options.authorize ?? refuseAll;
  return async (request, response) => {
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
    const found = entriesOf().get(entryName);
    const entry = found?.crossAccess === true ? found : undefined;
    const ns = entry?.namespaced === true ? namespace : undefined;
    const decision = await authorize(
      request,
      entry == null
        ? undefined
        : {
            entry: entryName,
            group: entry.resource.group,
            plural: entry.resource.plural,
            namespace: ns,
            name,
          },
    );
    if (!decision.ok) {
      send(response, request, decision.status, { error: decision.message });
      return true;
    }
    if (found == null) {
      send(response, request, 404, { error: `no entry ${entryName}` });
      return true;
    }
    if (entry == null) {
      send(response, request, 403, {
        error: `entry ${entryName} does not allow cross reads (crossAccess: false)`,
      });
      return true;
    }
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

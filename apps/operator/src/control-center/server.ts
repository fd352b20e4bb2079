/**
 * The Control Center's HTTP routes on the operator's metrics server (docs/reference/runtime.md
 * §23): the read-only JSON API under `/api/v1`, server-sent events at `/api/v1/stream`, the pages
 * under `/ui`, and the aggregation proxy `/api/v1/upstreams/<i>/…` to other operators' APIs.
 * Everything is read from the informer caches and the operator's memory; the only API requests
 * are the gate's reviews (token mode).
 */
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hookNames } from '@orkestra/reconciler';
import type { KatalogRuntime } from '@orkestra/reconciler';
import type { Katalog } from '@orkestra/types';
import { OrkestraLabel } from '@orkestra/types';
import type { ExtraRoute } from '../process/http-server.js';
import { LOCAL_SESSION_COOKIE, sameToken } from './auth.js';
import type { GateResult, Viewer } from './auth.js';
import { crDetail, crList, crOwner } from './cr-view.js';
import type { NamespaceFilter } from './cr-view.js';
import { katalogView } from './katalog-view.js';
import type { RolloutView } from './katalog-view.js';
import type { RecentEvents } from './recent-events.js';
import type { OperatorStats, QueueSample } from './stats-view.js';

/** ControlCenterSource is what the routes read: the current Katalog and runtime (they change on reload). */
export interface ControlCenterSource {
  readonly operator: string;
  katalog(): Katalog;
  engine(): KatalogRuntime;
  leader(): boolean;
  /** docs/reference/runtime.md §24: the rollout state the operator holds, if revisions are on. */
  rollout(): RolloutView | undefined;
  readonly events: RecentEvents;
  stats(input: {
    operator: string;
    leader: boolean;
    ready: boolean;
    queues: readonly QueueSample[];
  }): Promise<OperatorStats>;
}

/** ControlCenterRoutesOptions configures controlCenterRoutes. */
export interface ControlCenterRoutesOptions {
  readonly source: ControlCenterSource;
  readonly gate: (request: IncomingMessage) => Promise<GateResult>;
  /** Other operators' base URLs (e.g. `http://other:8080`) shown beside this one. Default none. */
  readonly upstreams?: readonly string[];
  /** Directory of the built pages. Default `apps/operator/ui` next to this module. */
  readonly assetsDir?: string;
  /** Coalescing delay of stream updates, ms. Default 100. */
  readonly streamDelayMs?: number;
  /** Heartbeat comment interval of the stream, ms. Default 15 000. */
  readonly heartbeatMs?: number;
  /**
   * Host names served (DNS-rebinding guard): a request whose `Host` is not one of them (any port)
   * is refused. Default: no check. Local mode passes LOOPBACK_HOSTS plus configured names.
   */
  readonly hosts?: readonly string[];
  /**
   * Local mode's per-process token: `/ui/?token=<token>` sets it as an HttpOnly SameSite=Strict
   * cookie and redirects, and the pages themselves are gated too. Default: pages are public
   * (token mode: the page asks for a bearer token).
   */
  readonly localToken?: string;
  /** Headers sent to upstreams (never the viewer's own credentials). Default none. */
  readonly upstreamHeaders?: () => Promise<Record<string, string>>;
}

/** LOOPBACK_HOSTS are the names a local-mode Control Center answers to. */
export const LOOPBACK_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

/** hostName returns the Host header's name without the port, lower case (`[::1]` keeps its brackets). */
function hostName(host: string | undefined): string | undefined {
  if (host == null) return undefined;
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:]+)(?::\d+)?$/.exec(host.trim());
  return match?.[1]?.toLowerCase();
}

/** CONTENT_SECURITY_POLICY is sent with every Control Center answer: same-origin only, no inline script. */
const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

const SECURITY_HEADERS = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
} as const;

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json; charset=utf-8',
};

function defaultAssetsDir(): string {
  // src/control-center/server.ts and dist/control-center/server.js are both two levels below the package.
  return fileURLToPath(new URL('../../ui/', import.meta.url));
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { ...SECURITY_HEADERS, 'content-type': 'application/json; charset=utf-8' });
  response.end(response.req.method === 'HEAD' ? undefined : JSON.stringify(body));
}

function sendError(response: ServerResponse, status: number, message: string): void {
  sendJson(response, status, { error: { status, message } });
}

/** externalView is `GET /api/v1/calls`: each external call's last outcome (entry, call, protocol). */
function externalView(engine: KatalogRuntime): unknown[] {
  const caller = (engine.hookServices as KatalogRuntime['hookServices'] | undefined)?.external;
  return (caller?.outcomes() ?? []).map(({ atMs, ...outcome }) => ({
    ...outcome,
    at: new Date(atMs).toISOString(),
  }));
}

/** namespaceFilter asks the viewer once per namespace and remembers the answers for this request. */
async function visibleNamespaces(
  viewer: Viewer,
  resource: { group: string; plural: string },
  namespaces: Iterable<string>,
): Promise<NamespaceFilter> {
  if (await viewer.may(resource, '')) return () => true;
  const allowed = new Set<string>();
  for (const namespace of new Set(namespaces)) {
    if (namespace !== '' && (await viewer.may(resource, namespace))) allowed.add(namespace);
  }
  return (namespace) => allowed.has(namespace);
}

function entryResource(engine: KatalogRuntime, entry: string): { group: string; plural: string } | undefined {
  const runtimeEntry = engine.entries.get(entry);
  if (runtimeEntry == null) return undefined;
  const { group, plural } = runtimeEntry.controller.crd.apiTypes;
  return { group, plural };
}

/** hooksOf lists an entry's declared hooks from the hook table (`cross <as>`, `git`, `provider <name>`). */
function hooksOf(engine: KatalogRuntime, entry: string): readonly string[] {
  const runtimeEntry = engine.entries.get(entry);
  return runtimeEntry == null ? [] : hookNames(runtimeEntry.controller.crd.hooks);
}

/** StreamChange is one `change` event of `/api/v1/stream`: a CR whose view may have changed. */
interface StreamChange {
  readonly entry: string;
  readonly namespace: string;
  readonly name: string;
}

/** subscribeChanges calls `listener` with the CR behind every change of a CR cache or a child cache. */
function subscribeChanges(engine: KatalogRuntime, listener: (change: StreamChange) => void): () => void {
  const offs: (() => void)[] = [];
  const byUid = (uid: string): StreamChange | undefined => {
    for (const entry of engine.entries.values()) {
      const cr = entry.cache.getByUid(uid);
      if (cr != null)
        return { entry: entry.name, namespace: cr.metadata.namespace ?? '', name: cr.metadata.name ?? '' };
    }
    return undefined;
  };
  for (const entry of engine.entries.values()) {
    offs.push(
      entry.informer.subscribe((change) =>
        listener({
          entry: entry.name,
          namespace: change.object.metadata.namespace ?? '',
          name: change.object.metadata.name ?? '',
        }),
      ),
    );
  }
  offs.push(
    engine.children.subscribe((change) => {
      const uid = change.object.metadata.labels?.[OrkestraLabel.OwnerUid];
      const cr = uid == null ? undefined : byUid(uid);
      if (cr != null) listener(cr);
    }),
  );
  return () => {
    for (const off of offs) off();
  };
}

/**
 * controlCenterRoutes returns the ExtraRoute that serves the Control Center.
 *
 * @example
 * startHttpServers({ …, extraRoutes: [controlCenterRoutes({ source, gate: createGate({ mode: 'local' }) })] });
 */
export function controlCenterRoutes(options: ControlCenterRoutesOptions): ExtraRoute {
  const { source } = options;
  const assetsDir = normalize(options.assetsDir ?? defaultAssetsDir());
  const upstreams = options.upstreams ?? [];
  const delayMs = options.streamDelayMs ?? 100;
  const heartbeatMs = options.heartbeatMs ?? 15_000;

  const serveAsset = async (response: ServerResponse, path: string): Promise<boolean> => {
    const relative = path === '' || path === '/' ? 'index.html' : path.replace(/^\/+/, '');
    // Built scripts live in ui/dist; the page and its style sheet beside it.
    const candidates = relative.endsWith('.js') ? [join('dist', relative)] : [relative];
    for (const candidate of candidates) {
      const file = normalize(join(assetsDir, candidate));
      if (!file.startsWith(assetsDir.endsWith(sep) ? assetsDir : assetsDir + sep)) return false;
      const type = TYPES[extname(file)];
      if (type == null) return false;
      try {
        const body = await readFile(file);
        response.writeHead(200, { ...SECURITY_HEADERS, 'content-type': type });
        response.end(response.req.method === 'HEAD' ? undefined : body);
        return true;
      } catch {
        // fall through: 404
      }
    }
    return false;
  };

  const stream = (request: IncomingMessage, response: ServerResponse, viewer: Viewer): void => {
    response.writeHead(200, {
      ...SECURITY_HEADERS,
      'content-type': 'text/event-stream; charset=utf-8',
      connection: 'keep-alive',
    });
    response.write(`retry: 1000\n\nevent: hello\ndata: ${JSON.stringify({ operator: source.operator })}\n\n`);
    let pending = new Map<string, StreamChange>();
    let timer: NodeJS.Timeout | undefined;
    const flush = async (): Promise<void> => {
      timer = undefined;
      const batch = [...pending.values()];
      pending = new Map();
      const engine = source.engine();
      const visible: StreamChange[] = [];
      for (const change of batch) {
        const resource = entryResource(engine, change.entry);
        if (resource != null && (await viewer.may(resource, change.namespace))) visible.push(change);
      }
      if (visible.length > 0 && !response.destroyed)
        response.write(`event: change\ndata: ${JSON.stringify({ changes: visible })}\n\n`);
    };
    const onChange = (change: StreamChange): void => {
      pending.set(`${change.entry}/${change.namespace}/${change.name}`, change);
      timer ??= setTimeout(() => void flush(), delayMs);
    };
    let engine = source.engine();
    let off = subscribeChanges(engine, onChange);
    const offEvents = source.events.subscribe(() => {
      // An Event names its CR by kind; the page refetches what it shows.
      response.write(`event: events\ndata: {}\n\n`);
    });
    const tick = setInterval(() => {
      const current = source.engine();
      if (current !== engine) {
        off();
        engine = current;
        off = subscribeChanges(engine, onChange);
        response.write(`event: reload\ndata: {}\n\n`);
      }
    }, 1_000);
    const heartbeat = setInterval(() => response.write(': keep-alive\n\n'), heartbeatMs);
    const close = (): void => {
      off();
      offEvents();
      clearInterval(tick);
      clearInterval(heartbeat);
      clearTimeout(timer);
    };
    request.on('close', close);
    response.on('close', close);
  };

  const proxy = async (
    request: IncomingMessage,
    response: ServerResponse,
    index: number,
    rest: string,
    search: string,
  ): Promise<void> => {
    const base = upstreams[index];
    if (base == null) return sendError(response, 404, `no upstream ${index}`);
    const target = new URL(`api/v1/${rest}${search}`, base.endsWith('/') ? base : `${base}/`);
    const controller = new AbortController();
    request.on('close', () => controller.abort());
    let answer: Response;
    try {
      // The viewer's credentials stay here (docs/adr/0031); redirects are not followed.
      answer = await fetch(target, {
        signal: controller.signal,
        redirect: 'error',
        headers: (await options.upstreamHeaders?.()) ?? {},
      });
    } catch (error) {
      return sendError(
        response,
        502,
        `upstream ${base}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    response.writeHead(answer.status, {
      ...SECURITY_HEADERS,
      'content-type': answer.headers.get('content-type') ?? 'application/json; charset=utf-8',
    });
    if (answer.body == null) {
      response.end();
      return;
    }
    try {
      for await (const chunk of answer.body as unknown as AsyncIterable<Uint8Array>) response.write(chunk);
    } catch {
      // the client or the upstream went away
    }
    response.end();
  };

  const api = async (request: IncomingMessage, response: ServerResponse, url: URL): Promise<void> => {
    const parts = url.pathname
      .replace(/^\/api\/v1\/?/, '')
      .split('/')
      .filter((part) => part !== '')
      .map(decodeURIComponent);
    const gate = await options.gate(request);
    if (!gate.ok) return sendError(response, gate.status, gate.message);
    if (parts[0] === 'upstreams' && parts.length >= 2) {
      // Gated here first; the upstream answers with its own gate too.
      return proxy(
        request,
        response,
        Number(parts[1]),
        parts.slice(2).map(encodeURIComponent).join('/'),
        url.search,
      );
    }
    const { viewer } = gate;
    const engine = source.engine();
    const katalog = source.katalog();
    if (parts.length === 0) {
      return sendJson(response, 200, {
        operator: source.operator,
        viewer: viewer.name,
        upstreams: upstreams.map((base, index) => ({ index, url: base })),
      });
    }
    if (parts[0] === 'katalog' && parts.length === 1) {
      return sendJson(
        response,
        200,
        katalogView({
          operator: source.operator,
          katalog,
          engine,
          leader: source.leader(),
          rollout: source.rollout(),
        }),
      );
    }
    if (parts[0] === 'operator' && parts.length === 1) {
      const queues: QueueSample[] = [...engine.entries.values()].map((entry) => {
        const dispatcher = entry.dispatcher.stats();
        return {
          entry: entry.name,
          queueDepth: entry.queue.stats().depth,
          workers: dispatcher.capacity,
          activeWorkers: dispatcher.inFlight,
        };
      });
      return sendJson(
        response,
        200,
        await source.stats({
          operator: source.operator,
          leader: source.leader(),
          ready: engine.isReady(),
          queues,
        }),
      );
    }
    if (parts[0] === 'calls' && parts.length === 1) {
      // runtime.md §23.2: each external call's last outcome, from the caller's memory; never a body or credential.
      return sendJson(response, 200, { items: externalView(engine) });
    }
    if (parts[0] === 'stream' && parts.length === 1) return stream(request, response, viewer);
    if (parts[0] === 'entries' && parts[2] === 'crs' && parts[1] != null) {
      const entry = parts[1];
      const resource = entryResource(engine, entry);
      if (resource == null) return sendError(response, 404, `no entry ${entry}`);
      if (parts.length === 3) {
        const cached = (engine.crossShard?.cache(entry) ?? engine.entries.get(entry)?.cache)?.list() ?? [];
        const wanted = url.searchParams.get('namespace') ?? '';
        const visible = await visibleNamespaces(
          viewer,
          resource,
          cached.map((o) => o.metadata.namespace ?? ''),
        );
        const items = crList(engine, entry, (ns) => visible(ns) && (wanted === '' || ns === wanted)) ?? [];
        const namespaces = [...new Set(cached.map((o) => o.metadata.namespace ?? ''))].filter(visible).sort();
        return sendJson(response, 200, { entry, namespaces, items });
      }
      if (parts.length === 5) {
        const namespace = parts[3] === '_' ? undefined : parts[3];
        const name = parts[4] ?? '';
        if (!(await viewer.may(resource, namespace ?? '')))
          return sendError(
            response,
            403,
            `${viewer.name} may not list ${resource.plural} in ${namespace ?? 'the cluster'}`,
          );
        const detail = crDetail({
          engine,
          entry,
          namespace,
          name,
          hooks: hooksOf(engine, entry),
          events: (kind, ns, n) => source.events.list(kind, ns, n),
        });
        if (detail == null) {
          // Another shard reconciles it: say which replica to ask (runtime.md §25.5).
          const owner = crOwner(engine, entry, namespace, name);
          if (owner != null)
            return sendJson(response, 404, {
              error: {
                status: 404,
                message: `${entry} ${namespace ?? ''}/${name} is owned by shard ${owner}`,
              },
              shard: owner,
            });
          return sendError(response, 404, `no ${entry} ${namespace ?? ''}/${name} in the cache`);
        }
        return sendJson(response, 200, detail);
      }
    }
    return sendError(response, 404, `no such endpoint ${url.pathname}`);
  };

  const hosts = options.hosts?.map((host) => host.toLowerCase());
  return async (request, response, url) => {
    const ui = url.pathname === '/ui' || url.pathname.startsWith('/ui/');
    const apiPath = url.pathname === '/api/v1' || url.pathname.startsWith('/api/v1/');
    if (!ui && !apiPath) return false;
    const host = hostName(request.headers.host);
    if (hosts != null && (host == null || !hosts.includes(host))) {
      sendError(
        response,
        403,
        `the Control Center does not serve the host ${request.headers.host ?? '(none)'}`,
      );
      return true;
    }
    const localToken = options.localToken;
    if (ui && localToken != null) {
      const given = url.searchParams.get('token');
      if (given != null) {
        if (!sameToken(given, localToken)) {
          sendError(response, 401, "the token in the URL is not this process's");
          return true;
        }
        response.writeHead(303, {
          ...SECURITY_HEADERS,
          location: url.pathname,
          'set-cookie': `${LOCAL_SESSION_COOKIE}=${localToken}; HttpOnly; SameSite=Strict; Path=/`,
        });
        response.end();
        return true;
      }
      const gate = await options.gate(request);
      if (!gate.ok) {
        sendError(response, gate.status, gate.message);
        return true;
      }
    }
    if (url.pathname === '/ui') {
      response.writeHead(308, { ...SECURITY_HEADERS, location: '/ui/' });
      response.end();
      return true;
    }
    if (url.pathname.startsWith('/ui/')) {
      // Deep links (/ui/cr/…) are the page itself; the script reads the path.
      const path = url.pathname.slice('/ui'.length);
      if (await serveAsset(response, path)) return true;
      if (!extname(path)) return serveAsset(response, '/');
      return false;
    }
    if (url.pathname === '/api/v1' || url.pathname.startsWith('/api/v1/')) {
      await api(request, response, url);
      return true;
    }
    return false;
  };
}

import { createServer } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';

/** BindAddress is a parsed `--metrics-bind-address` / `--health-probe-bind-address`: host (all interfaces when absent) and port (0 = any free port). */
export interface BindAddress {
  readonly host?: string;
  readonly port: number;
}

/** BindAddressError reports an address that is not `host:port`, `:port` or `0`. */
export class BindAddressError extends Error {
  override readonly name = 'BindAddressError';
  readonly code = 'InvalidBindAddress';
}

/**
 * parseBindAddress reads a bind address as controller-runtime does: `:8080` (all interfaces),
 * `127.0.0.1:0` (a free port on loopback), `[::1]:8081`; the text `0` disables the server and
 * returns undefined. Throws BindAddressError otherwise.
 */
export function parseBindAddress(text: string): BindAddress | undefined {
  const value = text.trim();
  if (value === '0') return undefined;
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]\s]*)):(\d{1,5})$/.exec(value);
  const port = Number(match?.[3]);
  if (match == null || port > 65_535) {
    throw new BindAddressError(
      `invalid bind address "${text}": expected host:port, :port (all interfaces) or 0 (disabled)`,
    );
  }
  const host = match[1] ?? match[2];
  return host == null || host === '' ? { port } : { host, port };
}

/** ReadinessCheck is one named check reported by `/readyz?verbose`. */
export interface ReadinessCheck {
  readonly name: string;
  readonly ok: boolean;
  /** Why the check fails, shown in the verbose listing. */
  readonly message?: string;
}

/** Readiness is the operator's readiness at one moment: overall flag plus the checks behind it. */
export interface Readiness {
  readonly ready: boolean;
  readonly checks: readonly ReadinessCheck[];
}

/** MetricsSource is the part of a prom-client Registry the metrics endpoint needs. */
export interface MetricsSource {
  readonly contentType: string;
  metrics(): Promise<string>;
}

/**
 * ExtraRoute handles requests on the metrics server that are not `/metrics` (e.g. `/katalog` and
 * `/katalog/crds/...`). It returns true when it answered the request, false to fall through to 404.
 */
export type ExtraRoute = (
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
) => boolean | Promise<boolean>;

/** EventLoopWatch reports how long the event loop was blocked recently. */
export interface EventLoopWatch {
  /** The longest event-loop delay, in ms, observed during the watch's window. */
  maxDelayMs(): number;
  stop(): void;
}

/** EventLoopWatchOptions configures createEventLoopWatch. */
export interface EventLoopWatchOptions {
  /** How far back `maxDelayMs` looks. Default 30 000 ms. */
  readonly windowMs?: number;
  /** Number of slots the window is split into; each slot is one histogram period. Default 6. */
  readonly slots?: number;
}

/**
 * createEventLoopWatch measures event-loop delay with `monitorEventLoopDelay` and keeps the
 * maximum of each slot of the window, so a long block is remembered for about `windowMs` after it
 * ended. Its timer is unref'ed.
 */
function createEventLoopWatch(options: EventLoopWatchOptions = {}): EventLoopWatch {
  const windowMs = options.windowMs ?? 30_000;
  const slots = Math.max(1, options.slots ?? 6);
  const histogram = monitorEventLoopDelay({ resolution: 20 });
  histogram.enable();
  const previous: number[] = [];
  const timer = setInterval(() => {
    previous.push(histogram.max / 1e6);
    if (previous.length > slots - 1) previous.shift();
    histogram.reset();
  }, windowMs / slots);
  timer.unref();
  return {
    maxDelayMs: () => Math.max(histogram.max / 1e6, ...previous),
    stop: () => {
      clearInterval(timer);
      histogram.disable();
    },
  };
}

/** StartHttpServersOptions configures startHttpServers. */
export interface StartHttpServersOptions {
  /** Address of the metrics server (`/metrics` and extra routes). Default `:8080`; `0` disables it. */
  readonly metricsAddress?: string;
  /** Address of the health server (`/healthz`, `/readyz`). Default `:8081`; `0` disables it. When equal to metricsAddress, one server serves everything. */
  readonly healthAddress?: string;
  /** Where `/metrics` reads the exposition text (a prom-client Registry). */
  readonly registry: MetricsSource;
  /** Called on each `/readyz`. */
  readonly readiness: () => Readiness;
  /** Routes served by the metrics server besides `/metrics`, tried in order. Default none. */
  readonly extraRoutes?: readonly ExtraRoute[];
  /** `/healthz` fails when the event loop was blocked longer than this during the watch window. Default 10 000 ms. */
  readonly maxEventLoopDelayMs?: number;
  /** Event-loop delay source. Default createEventLoopWatch() (30 s window), stopped by close(). */
  readonly eventLoop?: EventLoopWatch;
  /**
   * The cross-read listener (docs/reference/runtime.md §18.5): its own address (never the metrics
   * or health one) and its one route, which authenticates every request. Default none.
   */
  readonly cross?: { readonly address: string; readonly route: ExtraRoute };
  /** PEM certificate and key: the metrics server speaks TLS (the Control Center's token mode). Default plain HTTP. */
  readonly metricsTls?: { readonly cert: string | Buffer; readonly key: string | Buffer };
}

/** HttpServers are the running metrics and health servers. */
export interface HttpServers {
  /** Where the metrics server listens; undefined when disabled. */
  readonly metrics?: AddressInfo;
  /** Where the health server listens; undefined when disabled. */
  readonly health?: AddressInfo;
  /** Where the cross-read server listens; undefined when not started. */
  readonly cross?: AddressInfo;
  /** markExiting makes `/healthz` and `/readyz` answer 503 from now on (shutdown). */
  markExiting(): void;
  /** close stops both servers, dropping open connections. */
  close(): Promise<void>;
}

type Handler = (request: IncomingMessage, response: ServerResponse, url: URL) => Promise<boolean>;

function send(
  response: ServerResponse,
  status: number,
  body: string,
  contentType = 'text/plain; charset=utf-8',
): void {
  response.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store' });
  response.end(response.req.method === 'HEAD' ? undefined : body);
}

function verboseBody(checks: readonly ReadinessCheck[], ok: boolean, what: string): string {
  const lines = checks.map((check) =>
    check.ok
      ? `[+]${check.name} ok`
      : `[-]${check.name} failed${check.message == null ? '' : `: ${check.message}`}`,
  );
  lines.push(ok ? `${what} check passed` : `${what} check failed`);
  return `${lines.join('\n')}\n`;
}

/**
 * startHttpServers starts the metrics server (`/metrics`, then `extraRoutes`) and the health server
 * (`/healthz`, `/readyz`, `?verbose` on both) of docs/reference/runtime.md §18.1 and resolves once both listen.
 *
 * @example
 * const servers = await startHttpServers({ registry: metrics.registry, readiness: () => ({ ready: true, checks: [] }) });
 * // on shutdown
 * servers.markExiting();
 * await servers.close();
 */
export async function startHttpServers(options: StartHttpServersOptions): Promise<HttpServers> {
  const metricsBind = parseBindAddress(options.metricsAddress ?? ':8080');
  const healthBind = parseBindAddress(options.healthAddress ?? ':8081');
  const crossBind = options.cross == null ? undefined : parseBindAddress(options.cross.address);
  if (
    crossBind != null &&
    crossBind.port !== 0 &&
    [metricsBind, healthBind].some((other) => other?.port === crossBind.port)
  ) {
    throw new BindAddressError(
      `the cross-read address ${options.cross?.address ?? ''} must not share a port with the metrics or health server`,
    );
  }
  const maxDelayMs = options.maxEventLoopDelayMs ?? 10_000;
  const ownWatch = options.eventLoop == null && healthBind != null;
  const eventLoop = options.eventLoop ?? (healthBind == null ? undefined : createEventLoopWatch());
  let exiting = false;

  const metricsHandler: Handler = async (request, response, url) => {
    if (url.pathname === '/metrics') {
      send(response, 200, await options.registry.metrics(), options.registry.contentType);
      return true;
    }
    for (const route of options.extraRoutes ?? []) {
      if (await route(request, response, url)) return true;
    }
    return false;
  };

  const healthHandler: Handler = async (_request, response, url) => {
    const verbose = url.searchParams.has('verbose');
    if (url.pathname === '/healthz') {
      const delay = eventLoop?.maxDelayMs() ?? 0;
      const checks: ReadinessCheck[] = [
        exiting ? { name: 'process', ok: false, message: 'shutting down' } : { name: 'process', ok: true },
        delay > maxDelayMs
          ? { name: 'event-loop', ok: false, message: `blocked for ${Math.round(delay)} ms` }
          : { name: 'event-loop', ok: true },
      ];
      const ok = checks.every((check) => check.ok);
      send(response, ok ? 200 : 503, verbose ? verboseBody(checks, ok, 'healthz') : ok ? 'ok' : 'unhealthy');
      return true;
    }
    if (url.pathname === '/readyz') {
      const readiness = options.readiness();
      const checks = exiting
        ? [{ name: 'process', ok: false, message: 'shutting down' }, ...readiness.checks]
        : readiness.checks;
      const ok = readiness.ready && !exiting;
      send(response, ok ? 200 : 503, verbose ? verboseBody(checks, ok, 'readyz') : ok ? 'ok' : 'not ready');
      return true;
    }
    return false;
  };

  const serve = (handlers: readonly Handler[], tls?: StartHttpServersOptions['metricsTls']): Server => {
    const listener = (request: IncomingMessage, response: ServerResponse): void => {
      void (async () => {
        try {
          const url = new URL(request.url ?? '/', 'http://localhost');
          if (request.method !== 'GET' && request.method !== 'HEAD') {
            response.setHeader('allow', 'GET, HEAD');
            send(response, 405, 'method not allowed');
            return;
          }
          for (const handler of handlers) {
            if (await handler(request, response, url)) return;
          }
          send(response, 404, 'not found');
        } catch (error) {
          if (!response.headersSent)
            send(response, 500, error instanceof Error ? error.message : 'internal error');
          else response.destroy();
        }
      })();
    };
    return tls == null ? createServer(listener) : createTlsServer({ cert: tls.cert, key: tls.key }, listener);
  };

  const listen = (server: Server, bind: BindAddress): Promise<AddressInfo> =>
    new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(bind.port, bind.host, () => {
        server.off('error', reject);
        resolve(server.address() as AddressInfo);
      });
    });

  const servers: Server[] = [];
  const closeAll = async (): Promise<void> => {
    await Promise.all(
      servers.map(
        (server) =>
          new Promise<void>((resolve) => {
            server.close(() => resolve());
            server.closeAllConnections();
          }),
      ),
    );
    if (ownWatch) eventLoop?.stop();
  };

  try {
    let metrics: AddressInfo | undefined;
    let health: AddressInfo | undefined;
    const shared =
      metricsBind != null &&
      healthBind != null &&
      metricsBind.port !== 0 &&
      metricsBind.port === healthBind.port &&
      metricsBind.host === healthBind.host;
    if (shared) {
      const server = serve([healthHandler, metricsHandler], options.metricsTls);
      servers.push(server);
      metrics = health = await listen(server, metricsBind);
    } else {
      if (metricsBind != null) {
        const server = serve([metricsHandler], options.metricsTls);
        servers.push(server);
        metrics = await listen(server, metricsBind);
      }
      if (healthBind != null) {
        const server = serve([healthHandler]);
        servers.push(server);
        health = await listen(server, healthBind);
      }
    }
    let cross: AddressInfo | undefined;
    const crossRoute = options.cross?.route;
    if (crossBind != null && crossRoute != null) {
      const server = serve([async (request, response, url) => crossRoute(request, response, url)]);
      servers.push(server);
      cross = await listen(server, crossBind);
    }
    return {
      ...(metrics == null ? {} : { metrics }),
      ...(health == null ? {} : { health }),
      ...(cross == null ? {} : { cross }),
      markExiting: () => {
        exiting = true;
      },
      close: closeAll,
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}

/**
 * Serving, a start-up part (docs/reference/runtime.md §18.1, §18.5): the metrics server (with
 * `/katalog` and the Control Center's routes), the health server and — when an entry opts in at
 * start-up — the cross-read listener. A server that cannot start closes the providers and throws
 * OperatorStartError.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Provider } from '@orkestra/types';
import type { RunConfig } from '../config.js';
import { startHttpServers } from '../http-server.js';
import type { ExtraRoute, HttpServers } from '../http-server.js';
import type { OperatorLogger } from '../logger.js';
import type { OperatorMetrics } from '../metrics.js';
import { closeProviders } from '../provider-loader.js';
import { OperatorStartError, errorMessage } from './errors.js';
import type { OperatorState } from './state.js';

/** katalogRoute serves `/katalog`: the running Katalog's name, version, lifecycle (when declared), leadership and entries. */
function katalogRoute(state: OperatorState, shardId: string | undefined): ExtraRoute {
  return (_request, response, url) => {
    if (url.pathname !== '/katalog' && url.pathname !== '/katalog/') return false;
    const body = JSON.stringify({
      name: state.katalog.metadata.name,
      version: state.katalog.metadata.version,
      ...(state.katalog.lifecycle == null ? {} : { lifecycle: state.katalog.lifecycle }),
      leader: state.leading,
      ...(shardId == null ? {} : { shard: shardId }),
      ready: state.runtime.isReady(),
      entries: state.runtime.summary(),
    });
    response.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
    });
    response.end(response.req.method === 'HEAD' ? undefined : body);
    return true;
  };
}

/** ServeOptions is what the servers read. */
export interface ServeOptions {
  readonly config: RunConfig;
  readonly cwd: string;
  readonly state: OperatorState;
  readonly shardId: string | undefined;
  readonly metrics: OperatorMetrics;
  readonly logger: OperatorLogger;
  /** Closed when a server cannot start. */
  readonly providers: ReadonlyMap<string, Provider>;
  /** More routes on the metrics server (the Control Center's). */
  readonly routes: readonly ExtraRoute[];
}

/** serve starts the operator's HTTP servers. */
export async function serve(o: ServeOptions): Promise<HttpServers> {
  const { config, state } = o;
  const crossRoute: ExtraRoute = (request, response) => state.runtime.crossHandler(request, response);
  // The listener opens only when an entry opts in at start-up (a reload that first opts in needs a restart).
  const serveCross =
    config.crossBindAddress.trim() !== '0' &&
    Object.values(state.katalog.spec.crds).some((entry) => entry.crossAccess);
  try {
    return await startHttpServers({
      metricsAddress: config.metricsBindAddress,
      healthAddress: config.healthProbeBindAddress,
      registry: o.metrics.registry,
      readiness: () => {
        const ready = state.runtime.isReady();
        return {
          ready,
          checks: [
            { name: 'katalog', ok: true },
            ready
              ? { name: 'informers', ok: true }
              : { name: 'informers', ok: false, message: 'waiting for the first list of every informer' },
          ],
        };
      },
      extraRoutes: [katalogRoute(state, o.shardId), ...o.routes],
      ...(config.controlCenterCert == null || config.controlCenterKey == null
        ? {}
        : {
            metricsTls: {
              cert: readFileSync(resolve(o.cwd, config.controlCenterCert)),
              key: readFileSync(resolve(o.cwd, config.controlCenterKey)),
            },
          }),
      ...(serveCross ? { cross: { address: config.crossBindAddress, route: crossRoute } } : {}),
    });
  } catch (error) {
    await closeProviders(o.providers, { logger: o.logger });
    throw new OperatorStartError(`cannot start the HTTP servers: ${errorMessage(error)}`, [], {
      cause: error,
    });
  }
}

/**
 * The Control Center, a start-up part (docs/reference/runtime.md §23): its routes on the metrics
 * server, off unless `--control-center`. Local mode: only loopback names (DNS rebinding), the
 * token exchanged for a cookie, and the same token to loopback upstreams of `ork demo`. Token
 * mode: the configured names, and every viewer's token reviewed by the API server.
 */
import { kubeReviewApi } from '../../auth/kube-gate.js';
import { createGate } from '../../control-center/auth.js';
import type { RecentEvents } from '../../control-center/recent-events.js';
import { LOOPBACK_HOSTS, controlCenterRoutes } from '../../control-center/server.js';
import { createStatsReader } from '../../control-center/stats-view.js';
import type { ApiTransport } from '../api-transport.js';
import type { RunConfig } from '../config.js';
import type { ExtraRoute } from '../http-server.js';
import type { OperatorMetrics } from '../metrics.js';
import type { OperatorState } from './state.js';

/** controlCenter returns the Control Center's routes (none when it is off). */
export function controlCenter(o: {
  readonly config: RunConfig;
  readonly state: OperatorState;
  readonly api: ApiTransport;
  readonly metrics: OperatorMetrics;
  readonly recentEvents: RecentEvents;
  /** The local-mode token. */
  readonly token: string;
}): ExtraRoute[] {
  const { config, state, token } = o;
  if (!config.controlCenter) return [];
  return [
    controlCenterRoutes({
      source: {
        operator: state.katalogName,
        katalog: () => state.katalog,
        engine: () => state.runtime.engine,
        leader: () => state.leading,
        rollout: () => state.rollout?.state,
        events: o.recentEvents,
        stats: createStatsReader({ registry: o.metrics.registry }),
      },
      gate: createGate({
        mode: config.controlCenterAuth,
        ...(config.controlCenterAuth === 'token'
          ? { reviews: kubeReviewApi(o.api.client) }
          : { localToken: token }),
      }),
      upstreams: config.controlCenterUpstreams,
      ...(config.controlCenterAuth === 'token'
        ? config.controlCenterHosts.length === 0
          ? {}
          : { hosts: config.controlCenterHosts }
        : {
            hosts: [...LOOPBACK_HOSTS, ...config.controlCenterHosts],
            localToken: token,
            upstreamHeaders: () => Promise.resolve({ authorization: `Bearer ${token}` }),
          }),
    }),
  ];
}

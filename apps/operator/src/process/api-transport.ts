/**
 * The operator's one counted API transport (ADR 0035, docs/reference/runtime.md §18.2): every
 * request the process sends — the runtime's, the rollout store's and watch, leader election,
 * TokenReview/SubjectAccessReview of the Control Center, CRD installs — carries the operator's
 * User-Agent and is reported once to `rest_client_requests_total` and
 * `rest_client_request_duration_seconds`, so the counter agrees with the API server's audit log.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { KubeListWatchClient } from '@orkestra/reconciler';
import { createKubeClient } from '@orkestra/registry';
import type { KubeClient } from '@orkestra/registry';
import { operatorVersion } from '../version.js';

/** OPERATOR_PRODUCT is the product token of the operator's User-Agent (`ork` commands send `orkestra`). */
export const OPERATOR_PRODUCT = 'orkestra-operator';

/**
 * operatorUserAgent is `orkestra-operator/<version> (<katalog>)`, with `; shard <id>` for a sharded
 * replica: the audit log tells the operator from `ork` commands and peers, and shards apart.
 */
function operatorUserAgent(katalogName: string, shard?: string): string {
  return `${OPERATOR_PRODUCT}/${operatorVersion()} (${katalogName}${shard == null ? '' : `; shard ${shard}`})`;
}

/** ApiTransport is the operator's client and list/watch transport, over one User-Agent and one observer. */
export interface ApiTransport {
  readonly client: KubeClient;
  readonly listWatch: KubeListWatchClient;
  readonly userAgent: string;
  /** The observer every request is reported to (the runtime's own client reports to it too). */
  readonly onRequest: (method: string, status: number, seconds: number) => void;
}

/**
 * createApiTransport builds the operator's process-level client: kinds it uses besides the built-in
 * ones (Lease, TokenReview, SubjectAccessReview) are known, so they cost no discovery request.
 *
 * @example
 * const api = createApiTransport({ kubeConfig, katalogName: 'shop', restRequest: metrics.sink.restRequest });
 */
export function createApiTransport(options: {
  readonly kubeConfig: KubeConfig;
  readonly katalogName: string;
  /** A sharded replica's shard ID, named in the User-Agent (docs/reference/runtime.md §25). */
  readonly shard?: string;
  /** `rest_client_*` metrics: method, code (`<error>` when no response arrived), host, seconds. */
  readonly restRequest: (method: string, code: string, host: string, seconds: number) => void;
}): ApiTransport {
  const userAgent = operatorUserAgent(options.katalogName, options.shard);
  const host = apiHost(options.kubeConfig);
  const onRequest = (method: string, status: number, seconds: number): void =>
    options.restRequest(method, status === 0 ? '<error>' : String(status), host, seconds);
  const client = createKubeClient({
    kubeConfig: options.kubeConfig,
    userAgent,
    onRequest,
    resources: {
      'coordination.k8s.io/v1/Lease': { plural: 'leases', namespaced: true },
      'authentication.k8s.io/v1/TokenReview': { plural: 'tokenreviews', namespaced: false },
      'authorization.k8s.io/v1/SubjectAccessReview': { plural: 'subjectaccessreviews', namespaced: false },
    },
  });
  const listWatch = new KubeListWatchClient({ kubeConfig: options.kubeConfig, userAgent, onRequest });
  return { client, listWatch, userAgent, onRequest };
}

/** apiHost is the `host` label of REST client metrics: the API server's host and port. */
function apiHost(kubeConfig: KubeConfig): string {
  const server = kubeConfig.getCurrentCluster()?.server;
  if (server == null) return '';
  try {
    return new URL(server).host;
  } catch {
    return server;
  }
}

/**
 * AppliedCredentials keeps what client-node's `applyToHTTPSOptions` puts on a request (TLS
 * material, the Authorization header, the keep-alive agent for that material) and reuses it while
 * the credentials stay the same (ADR 0077). Applied on every request, it decodes the CA, client
 * certificate and key (or reads their files) and builds a new agent each time.
 *
 * It is applied again when the KubeConfig's current cluster or user changes (a reloaded
 * kubeconfig), when it is older than `ttlMs` (a token or certificate file rotated on disk, an
 * exec plugin's credential), and after a request with it was answered 401, as client-go resets a
 * file token source older than the request that was refused.
 */
import type * as http from 'node:http';
import type * as https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import type { KeepAliveAgents } from './keep-alive-agent.js';

/** The cluster and user fields that decide the credentials (objects compared by identity). */
const CLUSTER_FIELDS = ['server', 'caData', 'caFile', 'skipTLSVerify', 'tlsServerName', 'proxyUrl'] as const;
const USER_FIELDS = [
  'token',
  'certData',
  'certFile',
  'keyData',
  'keyFile',
  'username',
  'password',
  'authProvider',
  'exec',
  'impersonateUser',
] as const;

/** AppliedCredentialsOptions configures AppliedCredentials. */
interface AppliedCredentialsOptions {
  readonly kubeConfig: KubeConfig;
  /** Where the agent for the applied TLS material comes from. */
  readonly agents: KeepAliveAgents;
  /** Protocol of the API server's URL (`https:` or `http:`). */
  readonly protocol: string;
  /** Source of time. */
  readonly now: () => number;
  /** How long applied credentials are reused at most. Default 10 000 ms. */
  readonly ttlMs?: number;
}

/** Applied is one application of the KubeConfig: request options without method, and when it was built. */
interface Applied {
  /** TLS material, agent and headers (Authorization, Impersonate-User); not to be mutated. */
  readonly options: Readonly<https.RequestOptions>;
  readonly headers: Readonly<http.OutgoingHttpHeaders>;
  /** Sequence number of the application, for `refused`. */
  readonly generation: number;
}

/**
 * AppliedCredentials is one KubeConfig's applied credentials, reused until stale.
 *
 * @example
 * const credentials = new AppliedCredentials({ kubeConfig, agents, protocol: 'https:', now: Date.now });
 * const generation = credentials.generation;
 * const { options, headers } = await credentials.current();
 * // … on a 401 answer: credentials.refused(generation);
 */
export class AppliedCredentials {
  readonly #o: AppliedCredentialsOptions;
  readonly #ttlMs: number;
  #cached: { readonly applied: Applied; readonly key: readonly unknown[]; readonly at: number } | undefined;
  #pending: Promise<Applied> | undefined;
  #generation = 0;

  constructor(options: AppliedCredentialsOptions) {
    this.#o = options;
    this.#ttlMs = options.ttlMs ?? 10_000;
  }

  /** generation is the sequence number of the latest application (read before `current`). */
  get generation(): number {
    return this.#generation;
  }

  /** current returns the applied credentials, applying the KubeConfig again when they are stale. */
  current(): Promise<Applied> | Applied {
    const cached = this.#cached;
    if (cached != null && this.#o.now() - cached.at < this.#ttlMs && sameKey(cached.key, this.#key()))
      return cached.applied;
    this.#pending ??= this.#apply().finally(() => {
      this.#pending = undefined;
    });
    return this.#pending;
  }

  /**
   * refused drops credentials a 401 answer refused, when they were applied before the request
   * started (`generation` read then): credentials applied since are kept, so one refused request
   * does not read them again and again.
   */
  refused(generation: number): void {
    if (this.#cached != null && this.#cached.applied.generation <= generation) this.#cached = undefined;
  }

  async #apply(): Promise<Applied> {
    const key = this.#key();
    const at = this.#o.now();
    const options: https.RequestOptions = { headers: {} };
    await this.#o.kubeConfig.applyToHTTPSOptions(options);
    // Reuse connections: client-node puts a fresh agent (a new TLS connection) on every request.
    options.agent = this.#o.agents.agentFor(options, this.#o.protocol);
    const applied: Applied = {
      options,
      headers: { ...(options.headers as http.OutgoingHttpHeaders) },
      generation: ++this.#generation,
    };
    this.#cached = { applied, key, at };
    return applied;
  }

  #key(): unknown[] {
    const kc = this.#o.kubeConfig;
    const cluster = kc.getCurrentCluster() as Record<string, unknown> | null;
    const user = kc.getCurrentUser() as Record<string, unknown> | null;
    return [cluster, user, ...CLUSTER_FIELDS.map((f) => cluster?.[f]), ...USER_FIELDS.map((f) => user?.[f])];
  }
}

function sameKey(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

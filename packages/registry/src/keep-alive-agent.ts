/**
 * KeepAliveAgents hands out one keep-alive HTTPS agent per set of TLS credentials, so requests to
 * the API server reuse their connections (docs/reference/runtime.md §20). client-node's `applyToHTTPSOptions` puts a
 * new `https.Agent` on every request's options; used as is, each request opens a new TCP
 * connection and makes a full TLS handshake with the client certificate, on both ends.
 */
import { createHash } from 'node:crypto';
import * as http from 'node:http';
import * as https from 'node:https';

/** The TLS options that decide which connections may be shared. */
const TLS_KEYS = ['ca', 'cert', 'key', 'pfx', 'passphrase', 'servername', 'rejectUnauthorized'] as const;

/** KeepAliveAgentsOptions configures KeepAliveAgents. */
export interface KeepAliveAgentsOptions {
  /** Idle sockets are closed after this long. Default 30 000 ms (the API server keeps them longer). */
  readonly idleTimeoutMs?: number;
}

/**
 * KeepAliveAgents maps the TLS part of request options to a shared agent with keep-alive on.
 *
 * @example
 * const agents = new KeepAliveAgents();
 * await kubeConfig.applyToHTTPSOptions(options);
 * options.agent = agents.agentFor(options, 'https:');
 */
export class KeepAliveAgents {
  readonly #agents = new Map<string, http.Agent>();
  readonly #idleTimeoutMs: number;
  #last: { protocol: string; values: unknown[]; agent: http.Agent } | undefined;

  constructor(options: KeepAliveAgentsOptions = {}) {
    this.#idleTimeoutMs = options.idleTimeoutMs ?? 30_000;
  }

  /** agentFor returns the shared agent for these options' TLS credentials and protocol. */
  agentFor(options: https.RequestOptions, protocol: string): http.Agent {
    // Fast path: the same credentials as the previous request (compared byte by byte, not hashed).
    const last = this.#last;
    if (
      last != null &&
      last.protocol === protocol &&
      TLS_KEYS.every((key, i) => same(last.values[i], (options as Record<string, unknown>)[key]))
    ) {
      return last.agent;
    }
    const agent = this.#agentByHash(options, protocol);
    this.#last = {
      protocol,
      values: TLS_KEYS.map((key) => (options as Record<string, unknown>)[key]),
      agent,
    };
    return agent;
  }

  #agentByHash(options: https.RequestOptions, protocol: string): http.Agent {
    const hash = createHash('sha256').update(protocol);
    for (const key of TLS_KEYS) {
      const value = (options as Record<string, unknown>)[key];
      hash.update(`|${key}=`);
      if (value != null) hash.update(Buffer.isBuffer(value) ? value : String(value));
    }
    const id = hash.digest('hex');
    let agent = this.#agents.get(id);
    if (agent == null) {
      const tls: https.AgentOptions = {};
      for (const key of TLS_KEYS) {
        const value = (options as Record<string, unknown>)[key];
        if (value !== undefined) (tls as Record<string, unknown>)[key] = value;
      }
      const common = { keepAlive: true, timeout: this.#idleTimeoutMs };
      agent = protocol === 'http:' ? new http.Agent(common) : new https.Agent({ ...tls, ...common });
      this.#agents.set(id, agent);
    }
    return agent;
  }

  /** destroy closes every pooled connection. */
  destroy(): void {
    for (const agent of this.#agents.values()) agent.destroy();
    this.#agents.clear();
    this.#last = undefined;
  }
}

function same(a: unknown, b: unknown): boolean {
  if (Buffer.isBuffer(a) && Buffer.isBuffer(b)) return a.equals(b);
  return a === b;
}

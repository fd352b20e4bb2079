/**
 * keepAliveKubeConfig: @kubernetes/client-node 1.x gives every request a new https.Agent
 * (`KubeConfig.applySecurityAuthentication`), so each request opens its own TCP and TLS
 * connection. A floor measured through it measures TLS handshakes, not the API server's limit.
 * The benchmark's own requests (both floors, the CR creates it makes for the operators) go through
 * this KubeConfig instead: one keep-alive agent, reused by every request. (A watch is one long
 * request on its own connection either way.)
 */
import { Agent } from 'node:https';
import type { AgentOptions } from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';

type RequestContext = Parameters<KubeConfig['applySecurityAuthentication']>[0];

/** KeepAliveKubeConfig is a KubeConfig whose requests share one keep-alive https.Agent. */
class KeepAliveKubeConfig extends KubeConfig {
  #agent: Agent | undefined;

  override async applySecurityAuthentication(context: RequestContext): Promise<void> {
    await super.applySecurityAuthentication(context);
    const made = context.getAgent();
    if (!(made instanceof Agent)) return; // plain HTTP or a proxy agent: left as client-node made it
    this.#agent ??= new Agent({ ...(made.options as AgentOptions), keepAlive: true });
    context.setAgent(this.#agent);
  }
}

/** keepAliveKubeConfig returns a copy of `source` whose requests reuse one keep-alive connection pool. */
export function keepAliveKubeConfig(source: KubeConfig): KubeConfig {
  const config = new KeepAliveKubeConfig();
  config.loadFromString(source.exportConfig());
  return config;
}

import { Agent } from 'node:https';
import { HttpMethod, KubeConfig, RequestContext } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { keepAliveKubeConfig } from './keep-alive.js';

const source = (): KubeConfig => {
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [{ name: 'c', server: 'https://127.0.0.1:6443', skipTLSVerify: false }],
    users: [{ name: 'u', token: 't' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return config;
};

const agentOf = async (config: KubeConfig): Promise<unknown> => {
  const context = new RequestContext('https://127.0.0.1:6443/api/v1/namespaces', HttpMethod.GET);
  await config.applySecurityAuthentication(context);
  return context.getAgent();
};

describe('keepAliveKubeConfig', () => {
  it('gives every request the same keep-alive agent, where client-node makes one per request', async () => {
    const plain = source();
    expect(await agentOf(plain)).not.toBe(await agentOf(plain));
    const shared = keepAliveKubeConfig(source());
    const first = await agentOf(shared);
    expect(first).toBeInstanceOf(Agent);
    expect(await agentOf(shared)).toBe(first);
    expect((first as Agent & { keepAlive?: boolean }).keepAlive).toBe(true);
  });
});

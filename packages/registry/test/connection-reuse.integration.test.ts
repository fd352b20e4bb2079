import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { useControlPlane } from '@orkestra/testenv/vitest';
import { describe, expect, it } from 'vitest';
import { createKubeClient } from '../src/index.js';

const env = useControlPlane();

describe('createKubeClient connections', () => {
  it('reuses one connection for sequential requests instead of a TLS handshake per request', async () => {
    const client = createKubeClient({ kubeConfig: env.kubeConfig });
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', namespace: env.namespace, name: 'reuse' };
    await client.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'reuse', namespace: env.namespace },
    });
    // Node publishes every new client socket on this channel.
    let sockets = 0;
    const onSocket = (): void => {
      sockets++;
    };
    subscribe('net.client.socket', onSocket);
    try {
      for (let i = 0; i < 20; i++) {
        await client.mergePatch(ref, { data: { i: String(i) } });
      }
    } finally {
      unsubscribe('net.client.socket', onSocket);
    }
    expect(sockets).toBeLessThanOrEqual(2);
  });
});

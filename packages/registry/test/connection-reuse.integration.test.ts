import tls from 'node:tls';
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
    // Every new HTTPS connection goes through tls.connect (https.Agent#createConnection).
    let sockets = 0;
    const connect = tls.connect;
    tls.connect = ((...args: Parameters<typeof tls.connect>) => {
      sockets++;
      return connect(...args);
    }) as typeof tls.connect;
    try {
      for (let i = 0; i < 20; i++) {
        await client.mergePatch(ref, { data: { i: String(i) } });
      }
    } finally {
      tls.connect = connect;
    }
    expect(sockets).toBeLessThanOrEqual(2);
  });
});

import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { createKubeClient } from './create-kube-client.js';

describe('createKubeClient', () => {
  // A local HTTP server records the request headers; what the API server does with them is not
  // under test here.
  it('names itself in User-Agent, so the audit log attributes its requests', async () => {
    const agents: (string | undefined)[] = [];
    const server = http.createServer((req, res) => {
      agents.push(req.headers['user-agent']);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'one', namespace: 'n' } }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromOptions({
      clusters: [{ name: 'c', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
      users: [{ name: 'u' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'one', namespace: 'n' };
    try {
      await createKubeClient({ kubeConfig }).get(ref);
      await createKubeClient({ kubeConfig, userAgent: 'orkestra/1.2.3' }).get(ref);
      expect(agents).toEqual(['orkestra', 'orkestra/1.2.3']);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

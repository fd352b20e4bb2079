import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { createKubeClient } from './create-kube-client.js';
import { KubeErrorCode } from './errors.js';

const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'one', namespace: 'n' };

/**
 * withServer runs `body` against a local HTTP server and a KubeConfig for it; what the API server
 * does with the requests is not under test here.
 */
async function withServer(
  handler: http.RequestListener,
  user: { token?: string },
  body: (kubeConfig: KubeConfig) => Promise<void>,
): Promise<void> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'c', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
    users: [{ name: 'u', ...user }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  try {
    await body(kubeConfig);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

function answer(res: http.ServerResponse): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'one', namespace: 'n' } }));
}

describe('createKubeClient reuses applied credentials while they are unchanged (ADR 0077)', () => {
  /** A credential source that rotates (an exec plugin, a token file): what it hands out now. */
  function rotating(first: string): { token: string; applied: number; kubeConfig: (kc: KubeConfig) => void } {
    const source = {
      token: first,
      applied: 0,
      kubeConfig: (kc: KubeConfig) =>
        kc.addAuthenticator({
          isAuthProvider: () => true,
          applyAuthentication: async (_user, opts) => {
            source.applied++;
            (opts.headers ??= {})['Authorization'] = `Bearer ${source.token}`;
          },
        }),
    };
    return source;
  }

  it('applies the KubeConfig once, then again when the kubeconfig is reloaded, when stale, and after a 401', async () => {
    const seen: (string | undefined)[] = [];
    let accepted = 'one';
    let at = 0;
    const source = rotating('one');
    await withServer(
      (req, res) => {
        seen.push(req.headers.authorization);
        if (req.headers.authorization === `Bearer ${accepted}`) return answer(res);
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ kind: 'Status', reason: 'Unauthorized', code: 401 }));
      },
      {},
      async (kubeConfig) => {
        source.kubeConfig(kubeConfig);
        const client = createKubeClient({ kubeConfig, now: () => at });
        await client.get(ref);
        await client.get(ref);
        expect(source.applied).toBe(1);
        // The source rotates and the server accepts only the new token: the cached one is refused
        // once, and the request after the 401 carries the new one.
        source.token = 'two';
        accepted = 'two';
        await expect(client.get(ref)).rejects.toMatchObject({ status: 401 });
        await client.get(ref);
        // Rotated again without a 401 in between: used once the applied credentials are stale.
        source.token = 'three';
        at += 9_000;
        await client.get(ref);
        at += 1_000;
        accepted = 'three';
        await client.get(ref);
        // A reloaded kubeconfig (a new user) is used at once.
        kubeConfig.loadFromOptions({
          clusters: kubeConfig.getClusters(),
          users: [{ name: 'u', token: 'four' }],
          contexts: kubeConfig.getContexts(),
          currentContext: kubeConfig.getCurrentContext(),
        });
        accepted = 'four';
        await client.get(ref);
      },
    );
    expect(seen).toEqual([
      'Bearer one',
      'Bearer one',
      'Bearer one',
      'Bearer two',
      'Bearer two',
      'Bearer three',
      'Bearer four',
    ]);
  });
});

describe('createKubeClient', () => {
  it('names itself in User-Agent and sends the KubeConfig credentials', async () => {
    const seen: { agent: string | undefined; auth: string | undefined }[] = [];
    await withServer(
      (req, res) => {
        seen.push({ agent: req.headers['user-agent'], auth: req.headers.authorization });
        answer(res);
      },
      { token: 't0ken' },
      async (kubeConfig) => {
        await createKubeClient({ kubeConfig }).get(ref);
        await createKubeClient({ kubeConfig, userAgent: 'orkestra/1.2.3' }).get(ref);
      },
    );
    expect(seen).toEqual([
      { agent: 'orkestra', auth: 'Bearer t0ken' },
      { agent: 'orkestra/1.2.3', auth: 'Bearer t0ken' },
    ]);
  });

  it('reports every HTTP request to onRequest once: each list page, discovery and failures', async () => {
    const seen: string[] = [];
    await withServer(
      (req, res) => {
        const url = new URL(req.url ?? '/', 'http://x');
        if (url.pathname === '/apis/example.com/v1') {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ resources: [{ name: 'widgets', kind: 'Widget', namespaced: true }] }));
        } else if (url.pathname.endsWith('/widgets')) {
          const page = url.searchParams.get('continue');
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify({
              items: [{ metadata: { name: page ?? 'a' } }],
              metadata: { continue: page == null ? 'b' : '' },
            }),
          );
        } else {
          res.writeHead(404, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ kind: 'Status', reason: 'NotFound', code: 404 }));
        }
      },
      {},
      async (kubeConfig) => {
        const client = createKubeClient({
          kubeConfig,
          onRequest: (method, status) => seen.push(`${method} ${status}`),
        });
        const list = await client.list({ apiVersion: 'example.com/v1', kind: 'Widget' }, { namespace: 'n' });
        expect(list.items).toHaveLength(2);
        await expect(client.get(ref)).rejects.toThrow();
      },
    );
    // Discovery, two pages, the failed get: what the API server's audit log would count.
    expect(seen).toEqual(['GET 200', 'GET 200', 'GET 200', 'GET 404']);
  });

  it('replaces an object with a PUT carrying its resourceVersion, and maps 409 to a conflict', async () => {
    const seen: string[] = [];
    await withServer(
      (req, res) => {
        let body = '';
        req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
        req.on('end', () => {
          const rv = (JSON.parse(body) as { metadata: { resourceVersion?: string } }).metadata
            .resourceVersion;
          seen.push(`${req.method ?? ''} ${new URL(req.url ?? '/', 'http://x').pathname} ${rv ?? ''}`);
          if (rv === 'old') {
            res.writeHead(409, { 'content-type': 'application/json' });
            res.end(JSON.stringify({ kind: 'Status', reason: 'Conflict', code: 409 }));
          } else answer(res);
        });
      },
      {},
      async (kubeConfig) => {
        const client = createKubeClient({ kubeConfig });
        const object = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'one', namespace: 'n' } };
        await client.replace({ ...object, metadata: { ...object.metadata, resourceVersion: '7' } });
        await expect(
          client.replace({ ...object, metadata: { ...object.metadata, resourceVersion: 'old' } }),
        ).rejects.toMatchObject({ status: 409 });
        expect(client.requests.snapshot()).toMatchObject({ 'update ConfigMap': 2 });
      },
    );
    expect(seen).toEqual([
      'PUT /api/v1/namespaces/n/configmaps/one 7',
      'PUT /api/v1/namespaces/n/configmaps/one old',
    ]);
  });

  it('sends a create-only apply with a resourceVersion precondition no stored object has (ADR 0097)', async () => {
    const seen: string[] = [];
    await withServer(
      (req, res) => {
        let body = '';
        req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
        req.on('end', () => {
          const rv = (JSON.parse(body) as { metadata: { resourceVersion?: string } }).metadata
            .resourceVersion;
          seen.push(`${req.method ?? ''} ${req.headers['content-type'] ?? ''} ${rv ?? '-'}`);
          answer(res);
        });
      },
      {},
      async (kubeConfig) => {
        const client = createKubeClient({ kubeConfig });
        const object = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'one', namespace: 'n' } };
        await client.apply(object, { createOnly: true });
        await client.apply(object);
        // The caller's manifest is not changed.
        expect(object.metadata).toEqual({ name: 'one', namespace: 'n' });
      },
    );
    expect(seen).toEqual([
      'PATCH application/apply-patch+yaml 18446744073709551615',
      'PATCH application/apply-patch+yaml -',
    ]);
  });

  it('gives up on a server that does not answer within timeoutMs, as a Timeout error', async () => {
    await withServer(
      () => undefined, // never answers
      {},
      async (kubeConfig) => {
        const started = Date.now();
        const error = await createKubeClient({ kubeConfig, timeoutMs: 300 })
          .get(ref)
          .catch((e: unknown) => e);
        expect(error).toMatchObject({ reason: KubeErrorCode.Timeout, status: 0, verb: 'get' });
        expect(Date.now() - started).toBeLessThan(5_000);
      },
    );
  });
});

import { describe, expect, it } from 'vitest';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeApiError, KubeErrorCode } from '@orkestra/registry';
import { KubeListWatchClient, parseRetryAfter } from './list-watch-client.js';

describe('parseRetryAfter', () => {
  it('reads whole seconds and ignores anything else', () => {
    expect(parseRetryAfter('3')).toBe(3000);
    expect(parseRetryAfter(' 0 ')).toBe(0);
    expect(parseRetryAfter(undefined)).toBeUndefined();
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT')).toBeUndefined();
    expect(parseRetryAfter('1.5')).toBeUndefined();
  });
});

describe('KubeListWatchClient errors', () => {
  // A local HTTP server stands in for the answers a real API server gives only under load (429 with
  // Retry-After) or after compaction (410 Expired); the control-plane tests cover the happy path.
  const answer = async (
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ): Promise<{
    client: KubeListWatchClient;
    kubeConfig: KubeConfig;
    userAgents: (string | undefined)[];
    accepts: (string | undefined)[];
    close: () => Promise<void>;
  }> => {
    const userAgents: (string | undefined)[] = [];
    const accepts: (string | undefined)[] = [];
    const server = http.createServer((req, res) => {
      userAgents.push(req.headers['user-agent']);
      accepts.push(req.headers['accept']);
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
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
    return {
      client: new KubeListWatchClient({ kubeConfig }),
      kubeConfig,
      userAgents,
      accepts,
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
  };

  it('fails a list with the registry KubeApiError: status, reason and Retry-After in seconds', async () => {
    const { client, close } = await answer(
      429,
      { kind: 'Status', reason: 'TooManyRequests', message: 'slow down' },
      { 'retry-after': '2' },
    );
    try {
      const error: unknown = await client.list('/api/v1/configmaps', {}).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(KubeApiError);
      expect(error).toMatchObject({
        status: 429,
        reason: KubeErrorCode.TooManyRequests,
        verb: 'list',
        retryAfterSeconds: 2,
      });
      expect((error as Error).message).toContain('slow down');
    } finally {
      await close();
    }
  });

  it('takes the failure class from the Status reason before the HTTP status', async () => {
    // The API server answers a request it could not finish in time with 500 and reason ServerTimeout.
    const { client, close } = await answer(500, {
      kind: 'Status',
      reason: 'ServerTimeout',
      message: 'later',
    });
    try {
      const error: unknown = await client.list('/api/v1/configmaps', {}).catch((e: unknown) => e);
      expect(error).toMatchObject({ status: 500, reason: KubeErrorCode.Timeout });
    } finally {
      await close();
    }
  });

  it('fails a watch with 410 Expired as a Gone KubeApiError', async () => {
    const { client, close } = await answer(410, { kind: 'Status', reason: 'Expired', message: 'too old' });
    try {
      const error = await new Promise<unknown>((resolve) =>
        client.watch('/api/v1/configmaps', {}, { onEvent: () => undefined, onClose: resolve }),
      );
      expect(error).toBeInstanceOf(KubeApiError);
      expect(error).toMatchObject({ status: 410, reason: KubeErrorCode.Gone, verb: 'watch' });
    } finally {
      await close();
    }
  });

  it('names itself in User-Agent, so the audit log attributes its lists and watches', async () => {
    const { client, kubeConfig, userAgents, close } = await answer(200, {
      kind: 'List',
      metadata: { resourceVersion: '1' },
      items: [],
    });
    try {
      await client.list('/api/v1/configmaps', {});
      await new KubeListWatchClient({ kubeConfig, userAgent: 'orkestra/1.2.3' }).list(
        '/api/v1/configmaps',
        {},
      );
      expect(userAgents).toEqual(['orkestra', 'orkestra/1.2.3']);
    } finally {
      await close();
    }
  });

  it('asks for metadata only (PartialObjectMetadataList) when made with metadataOnly', async () => {
    const { client, kubeConfig, accepts, close } = await answer(200, {
      kind: 'List',
      metadata: { resourceVersion: '1' },
      items: [],
    });
    try {
      await client.list('/api/v1/configmaps', {});
      await new KubeListWatchClient({ kubeConfig, metadataOnly: true }).list('/api/v1/configmaps', {});
      expect(accepts).toEqual([
        'application/json',
        'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json',
      ]);
    } finally {
      await close();
    }
  });
});

import { describe, expect, it } from 'vitest';
import { ExternalCaller } from '../../../external.js';
import type { ExternalCallDeclaration } from '../../../external.js';

/**
 * `protocol: mongo` without a server (docs/reference/katalog.md §15.1.1, ADR 0059): what reaches
 * the client package (the checked address, bound filter values) and what is refused before it. The
 * real server is in test/protocols-mongo-kafka.integration.test.ts.
 */

interface Seen {
  target: Record<string, unknown>;
  query: Record<string, unknown>;
}

function caller(seen: Seen[]): ExternalCaller {
  return new ExternalCaller({
    resolve: (host) =>
      Promise.resolve(
        host === 'meta.example'
          ? [{ address: '169.254.169.254', family: 4 }]
          : [{ address: '10.0.0.5', family: 4 }],
      ),
    readSecret: () => Promise.resolve('pw-123456'),
    importModule: () =>
      Promise.resolve({
        MongoClients: class {
          query(target: Record<string, unknown>, query: Record<string, unknown>) {
            seen.push({ target, query });
            return Promise.resolve({ count: 2, documents: [{ a: 1 }, { a: 2 }], truncated: false });
          }
          close() {
            return Promise.resolve();
          }
        },
      }),
  });
}

const call = (over: Partial<ExternalCallDeclaration>): ExternalCallDeclaration => ({
  name: 'orders',
  protocol: 'mongo',
  url: 'mongodb://reader@mongo.example:27017/admin',
  query: 'shop.orders {"owner": "$1"}',
  params: ['{"$ne": null}'],
  auth: { secretRef: { name: 'mongo', key: 'password' } },
  ...over,
});

const context = { entry: 'e', namespace: 'ns' };

describe('protocol: mongo', () => {
  it('connects to the checked address with the Secret’s password and binds the parameter as a value', async () => {
    const seen: Seen[] = [];
    const result = await caller(seen).call(call({}), context);
    expect(result).toMatchObject({ ok: true, count: '2', result: '{"a":1}', raw: { count: 2 } });
    expect(result.documents).toHaveLength(2);
    expect(seen[0]?.target).toMatchObject({
      host: '10.0.0.5',
      serverName: 'mongo.example',
      username: 'reader',
      password: 'pw-123456',
      authSource: 'admin',
    });
    expect(seen[0]?.query).toMatchObject({
      database: 'shop',
      collection: 'orders',
      filter: { owner: '{"$ne": null}' },
    });
  });

  it('refuses a password in the URL, more than one host, unknown options and a blocked address', async () => {
    for (const [url, message] of [
      ['mongodb://reader:hunter2@mongo.example/admin', /password in the URL is refused/],
      ['mongodb://reader@a.example,b.example/admin', /not one host name/],
      ['mongodb://reader@mongo.example/admin?replicaSet=rs0', /URL option replicaSet is not supported/],
      ['mongodb+srv://reader@mongo.example/admin', /unsupported URL scheme/],
      ['mongodb://reader@meta.example/admin', /169\.254\.169\.254/],
    ] as const) {
      const seen: Seen[] = [];
      const result = await caller(seen).call(call({ url }), context);
      expect(result.ok).toBe(false);
      expect(result.error).toMatch(message);
      expect(result.error).not.toContain('hunter2');
      expect(seen).toHaveLength(0);
    }
  });
});

/**
 * MongoClients against a real MongoDB wire server (FerretDB, `pnpm testenv:build ferretdb`): the
 * count and the bounded documents, a filter value that looks like an operator staying a value,
 * one pool per target, a stopped server ending at the timeout, and errors without the password.
 */
import { pauseProcess } from '@orkestra/testenv';
import { useMongo } from '@orkestra/testenv/vitest';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MongoClients, MongoQueryError } from '../src/index.js';
import type { MongoTarget } from '../src/index.js';

const server = useMongo();
const clients = new MongoClients();

const target = (password?: string): MongoTarget => {
  const url = new URL(server().uri);
  return {
    host: '127.0.0.1',
    serverName: 'localhost',
    port: Number(url.port),
    username: server().username,
    password: password ?? server().password,
    authSource: server().database,
    tls: false,
  };
};

beforeAll(async () => {
  const admin = await MongoClient.connect(server().uri);
  await admin
    .db('shop')
    .collection('orders')
    .insertMany([
      { owner: 'web', status: 'open', n: 1 },
      { owner: 'web', status: 'open', n: 2 },
      { owner: 'web', status: 'done', n: 3 },
      { owner: 'api', status: 'open', n: 4 },
      { owner: '{"$ne": null}', status: 'open', n: 5 },
    ]);
  await admin.close();
});

afterAll(async () => {
  await clients.close();
});

const query = (filter: Record<string, unknown>, maxDocuments = 100) => ({
  database: 'shop',
  collection: 'orders',
  filter,
  timeoutMs: 3000,
  maxDocuments,
});

describe('MongoClients', () => {
  it('counts the matching documents and keeps at most maxDocuments of them', async () => {
    const answer = await clients.query(target(), query({ status: 'open' }, 2));
    expect(answer.count).toBe(4);
    expect(answer.documents).toHaveLength(2);
    expect(answer.truncated).toBe(true);
    const web = await clients.query(target(), query({ owner: 'web', status: 'open' }));
    expect(web).toMatchObject({ count: 2, truncated: false });
    expect(web.documents[0]).toMatchObject({ owner: 'web', status: 'open' });
  });

  it('a string value shaped like an operator is matched as a string', async () => {
    const answer = await clients.query(target(), query({ owner: '{"$ne": null}' }));
    expect(answer.count).toBe(1);
    expect(answer.documents[0]).toMatchObject({ n: 5 });
  });

  it('shares one pool per target', async () => {
    await Promise.all([1, 2, 3].map(() => clients.query(target(), query({}))));
    expect(clients.size).toBe(1);
  });

  it('a wrong password fails, not retryable, without the password in the error', async () => {
    const error = await clients.query(target('not-the-password-xyz'), query({})).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MongoQueryError);
    expect((error as MongoQueryError).retryable).toBe(false);
    expect((error as Error).message).toMatch(/Authentication failed/);
    expect((error as Error).message).not.toContain('not-the-password-xyz');
  });

  it('a stopped server ends at the timeout (retryable), on a pooled connection and a new one', async () => {
    const fresh = new MongoClients();
    const resume = await pauseProcess(server().pid);
    try {
      for (const pool of [clients, fresh]) {
        const started = Date.now();
        const error = await pool.query(target(), { ...query({}), timeoutMs: 500 }).catch((e: unknown) => e);
        expect(Date.now() - started).toBeLessThan(3000);
        expect(error).toBeInstanceOf(MongoQueryError);
        expect((error as MongoQueryError).retryable).toBe(true);
      }
    } finally {
      resume();
      await fresh.close();
    }
    // The next call gets a working pool.
    expect((await clients.query(target(), query({ owner: 'api' }))).count).toBe(1);
  });

  it('a down server fails retryable', async () => {
    const error = await clients
      .query({ ...target(), port: 9 }, { ...query({}), timeoutMs: 1000 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MongoQueryError);
    expect((error as MongoQueryError).retryable).toBe(true);
    expect((error as Error).message).toMatch(/ECONNREFUSED/);
  });
});

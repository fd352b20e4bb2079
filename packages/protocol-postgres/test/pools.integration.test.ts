/**
 * PostgresPools against a real PostgreSQL (`pnpm testenv:build postgres`): rows bounded at the
 * server, the READ ONLY transaction, the statement timeout, one pool per target shared by calls,
 * and errors without the password.
 */
import { usePostgres } from '@orkestra/testenv/vitest';
import { afterAll, describe, expect, it } from 'vitest';
import { PostgresPools, PostgresQueryError } from '../src/index.js';
import type { PostgresTarget } from '../src/index.js';

const server = usePostgres();
const pools = new PostgresPools();

afterAll(async () => {
  await pools.close();
});

const target = (password?: string): PostgresTarget => ({
  host: server().host,
  serverName: 'localhost',
  port: server().port,
  database: server().database,
  user: server().user,
  password: password ?? server().password,
  sslMode: 'disable',
});

const query = (sql: string, params: string[] = [], maxRows = 100) => ({
  sql,
  params,
  timeoutMs: 2000,
  maxRows,
});

describe('PostgresPools', () => {
  it('reads at most maxRows rows and says when there were more', async () => {
    const answer = await pools.query(
      target(),
      query('SELECT n FROM generate_series(1, 100000) AS n', [], 10),
    );
    expect(answer.rows).toHaveLength(10);
    expect(answer.rows[9]).toEqual({ n: 10 });
    expect(answer.truncated).toBe(true);
    const small = await pools.query(target(), query('SELECT n FROM generate_series(1, 3) AS n', [], 10));
    expect(small).toMatchObject({ columns: ['n'], truncated: false });
  });

  it('binds parameters: a value is never parsed as SQL, and one statement runs', async () => {
    const answer = await pools.query(target(), query('SELECT $1::text AS v', ["'; SELECT 1; --"]));
    expect(answer.rows).toEqual([{ v: "'; SELECT 1; --" }]);
    await expect(pools.query(target(), query('SELECT 1; SELECT 2'))).rejects.toThrow(
      /multiple commands|cannot insert multiple/,
    );
  });

  it('runs in a READ ONLY transaction: a write is refused and not retryable', async () => {
    const error = await pools.query(target(), query('CREATE TABLE t (a int)')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PostgresQueryError);
    expect((error as PostgresQueryError).message).toMatch(/read-only transaction/);
    expect((error as PostgresQueryError).retryable).toBe(false);
  });

  it('ends a slow statement at the timeout (retryable)', async () => {
    const started = Date.now();
    const error = await pools
      .query(target(), { ...query('SELECT pg_sleep(10)'), timeoutMs: 300 })
      .catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(3000);
    expect((error as PostgresQueryError).message).toMatch(/statement timeout/);
    expect((error as PostgresQueryError).retryable).toBe(true);
  });

  it('shares one pool per target', async () => {
    const before = pools.size;
    await Promise.all([1, 2, 3].map((n) => pools.query(target(), query('SELECT $1::int AS n', [String(n)]))));
    expect(pools.size).toBe(before === 0 ? 1 : before);
  });

  it('a wrong password fails without the password in the error', async () => {
    const error = await pools
      .query(target('not-the-password-xyz'), query('SELECT 1'))
      .catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/password authentication failed/);
    expect((error as Error).message).not.toContain('not-the-password-xyz');
  });
});

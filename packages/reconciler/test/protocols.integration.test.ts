/**
 * External call protocols against real servers (docs/reference/katalog.md §15.1.1, ADR 0053):
 * PostgreSQL and Prometheus from Debian's packages (`pnpm testenv:build protocols`), the runtime on
 * the local control plane. Each protocol: a query result in the template context, a down server
 * (ExternalCallFailed, retried, the runtime carries on), a slow one (the timeout) and an injection
 * attempt through a CR value (bound or encoded, never executed).
 */
import { pauseProcess } from '@orkestra/testenv';
import { CoreV1Api } from '@kubernetes/client-node';
import type { KatalogRuntime } from '@orkestra/reconciler';
import { LOOPBACK_CIDRS } from '@orkestra/reconciler';
import { usePostgres, usePrometheus, useRedis } from '@orkestra/testenv/vitest';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { katalogFrom, readyOf, useRuntimeTest, waitFor } from './runtime-helpers.js';
import type { CrObject } from './runtime-helpers.js';
import { redisAdmin } from './redis-admin.js';

const postgres = usePostgres();
const prometheus = usePrometheus();
const redis = useRedis();

const redisWrite = (...commands: string[]): Promise<string> => redisAdmin(redis(), ...commands);
const { env, group, crs, startRuntime } = useRuntimeTest({
  prefix: 'proto',
  kind: 'Gauge',
  plural: 'gauges',
});

/** A loopback port nothing listens on (the discard port is never served here). */
const DEAD = 'http://127.0.0.1:9';

let runtime: KatalogRuntime;

beforeAll(async () => {
  const db = postgres();
  const admin = new pg.Client({
    host: db.host,
    port: db.port,
    user: db.user,
    password: db.password,
    database: db.database,
  });
  await admin.connect();
  await admin.query(`CREATE TABLE jobs (owner text NOT NULL, state text NOT NULL)`);
  await admin.query(
    `INSERT INTO jobs VALUES ('web', 'pending'), ('web', 'pending'), ('web', 'done'), ('api', 'pending')`,
  );
  await admin.end();
  await env.kubeConfig.makeApiClient(CoreV1Api).createNamespacedSecret({
    namespace: env.namespace,
    body: { metadata: { name: 'pg-reader' }, stringData: { password: db.password } },
  });
  const pgUrl = `postgres://${db.user}@127.0.0.1:${db.port}/${db.database}`;
  await redisWrite('RPUSH jobs a b c');
  await env.kubeConfig.makeApiClient(CoreV1Api).createNamespacedSecret({
    namespace: env.namespace,
    body: { metadata: { name: 'redis-reader' }, stringData: { password: redis().password } },
  });
  const redisUrl = `redis://127.0.0.1:${redis().port}/0`;
  const katalog = katalogFrom(`apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: protocols}
spec:
  crds:
    gauge:
      apiTypes: {group: ${group}, version: v1, kind: Gauge, plural: gauges}
      resync: "0"
      operatorBox:
        external:
          - name: up
            protocol: prometheus
            url: "{{ spec.promUrl }}"
            query: 'up{job="{{ spec.job }}"}'
            timeout: 2s
            retryBackoff: {initial: 100ms, max: 100ms, maxAttempts: 2}
            when: [{field: spec.promUrl, exists: true}]
          - name: jobs
            protocol: postgres
            url: ${pgUrl}
            query: SELECT count(*) AS n FROM jobs WHERE owner = $1 AND state = $2
            params: ["{{ spec.owner }}", pending]
            auth: {secretRef: {name: pg-reader, key: password}}
            timeout: 2s
            when: [{field: spec.owner, exists: true}]
          - name: slow
            protocol: postgres
            url: ${pgUrl}
            query: SELECT pg_sleep($1::float8) AS slept
            params: ["{{ spec.sleep }}"]
            auth: {secretRef: {name: pg-reader, key: password}}
            timeout: 1s
            when: [{field: spec.sleep, exists: true}]
          - name: writer
            protocol: postgres
            url: ${pgUrl}
            query: DELETE FROM jobs
            auth: {secretRef: {name: pg-reader, key: password}}
            retryBackoff: {initial: 100ms, max: 100ms, maxAttempts: 3}
            when: [{field: spec.write, exists: true}]
          - name: deadDb
            protocol: postgres
            url: "{{ spec.deadDb }}"
            query: SELECT 1
            timeout: 2s
            retryBackoff: {initial: 100ms, max: 100ms, maxAttempts: 2}
            when: [{field: spec.deadDb, exists: true}]
          - name: queue
            protocol: redis
            url: ${redisUrl}
            query: 'LLEN "{{ spec.queue }}"'
            auth: {secretRef: {name: redis-reader, key: password}}
            timeout: 1s
            when: [{field: spec.queue, exists: true}]
          - name: deadCache
            protocol: redis
            url: "{{ spec.deadCache }}"
            query: PING
            timeout: 1s
            when: [{field: spec.deadCache, exists: true}]
        status:
          fields:
            - {path: queueLength, value: "{{ external.queue.result }}"}
            - {path: upValue, value: "{{ promValue external.up }}"}
            - {path: upSeries, value: "{{ promSeriesCount external.up }}"}
            - {path: upAbove, value: "{{ promAboveThreshold external.up 0 }}"}
            - {path: pending, value: "{{ external.jobs.result }}"}
            - {path: pendingRow, value: "{{ external.jobs.rows.0.n }}"}
`);
  runtime = await startRuntime({ katalog, options: { allowPrivateAddresses: LOOPBACK_CIDRS } });
});

afterAll(async () => {
  await runtime.stop({ timeoutMs: 5000 });
});

const statusOf = (cr: CrObject): Record<string, unknown> => (cr.status ?? {}) as Record<string, unknown>;

async function readyReason(name: string): Promise<string | undefined> {
  return readyOf(await crs.get(env.namespace, name))?.reason;
}

/** waitForStatus waits until the CR's status field `key` reads `value`. */
async function waitForStatus(name: string, key: string, value: string, what: string): Promise<void> {
  await waitFor(what, async () => statusOf(await crs.get(env.namespace, name))[key] === value, 30_000, 200);
}

/** waitForFailure waits until the CR's Ready reason is ExternalCallFailed and returns its message. */
async function waitForFailure(name: string, pollMs = 200): Promise<string> {
  await waitFor(
    'ExternalCallFailed',
    async () => (await readyReason(name)) === 'ExternalCallFailed',
    30_000,
    pollMs,
  );
  return readyOf(await crs.get(env.namespace, name))?.message ?? '';
}

describe('protocol: prometheus', () => {
  it('puts an instant query in the template context, read by the prom helpers', async () => {
    // The first scrape (every second) makes the `up` series.
    await waitFor(
      'the first scrape',
      async () => {
        const answer = await fetch(`${prometheus().url}/api/v1/query?query=up`);
        return ((await answer.json()) as { data: { result: unknown[] } }).data.result.length > 0;
      },
      30_000,
      200,
    );
    await crs.create(env.namespace, 'prom-up', { promUrl: prometheus().url, job: 'prometheus' });
    await waitForStatus('prom-up', 'upValue', '1', 'the up value in the status');
    const status = statusOf(await crs.get(env.namespace, 'prom-up'));
    expect(status).toMatchObject({ upValue: '1', upSeries: '1', upAbove: 'true' });
    expect(await readyReason('prom-up')).not.toBe('ExternalCallFailed');
  });

  it('a down server fails the CR with ExternalCallFailed, retried, and the runtime carries on', async () => {
    const before = runtime.hookServices.external.stats().requests;
    await crs.create(env.namespace, 'prom-down', { promUrl: DEAD, job: 'prometheus' });
    const failure = await waitForFailure('prom-down');
    expect(failure).toMatch(/external call up failed: .*ECONNREFUSED/);
    // retryBackoff makes a second attempt within the reconcile.
    expect(runtime.hookServices.external.stats().requests - before).toBeGreaterThanOrEqual(2);
    // Another CR still reconciles.
    await crs.create(env.namespace, 'prom-after', { promUrl: prometheus().url, job: 'prometheus' });
    await waitForStatus('prom-after', 'upValue', '1', 'the next CR to reconcile');
  });

  it('a CR value cannot add a parameter to the query: it is encoded into the PromQL', async () => {
    await crs.create(env.namespace, 'prom-inject', {
      promUrl: prometheus().url,
      job: 'none"}&query=vector(666)&x={"',
    });
    await waitFor(
      'the injected CR to reconcile',
      async () => {
        const cr = await crs.get(env.namespace, 'prom-inject');
        return statusOf(cr)['upSeries'] !== undefined || readyOf(cr)?.reason === 'ExternalCallFailed';
      },
      30_000,
      200,
    );
    const cr = await crs.get(env.namespace, 'prom-inject');
    // The value ends the label matcher early, so Prometheus refuses the PromQL (bad_data, not
    // retried); no second `query` parameter reached it, so 666 never comes back.
    expect(statusOf(cr)['upValue']).not.toBe('666');
    expect(readyOf(cr)?.message ?? '').toMatch(/prometheus: bad_data/);
  });
});

describe('protocol: postgres', () => {
  it('puts the rows of a bound query in the template context', async () => {
    await crs.create(env.namespace, 'pg-web', { owner: 'web' });
    await waitForStatus('pg-web', 'pending', '2', 'the pending count in the status');
    expect(statusOf(await crs.get(env.namespace, 'pg-web'))).toMatchObject({ pending: '2', pendingRow: '2' });
  });

  it('an injection attempt through a CR value is bound, never executed', async () => {
    await crs.create(env.namespace, 'pg-inject', { owner: "web' OR '1'='1'; DROP TABLE jobs; --" });
    await waitForStatus('pg-inject', 'pending', '0', 'the injected CR to reconcile');
    const db = postgres();
    const admin = new pg.Client({
      host: db.host,
      port: db.port,
      user: db.user,
      password: db.password,
      database: db.database,
    });
    await admin.connect();
    const count = await admin.query('SELECT count(*)::int AS n FROM jobs');
    await admin.end();
    expect(count.rows[0]?.n).toBe(4);
  });

  it('a write is refused by the READ ONLY transaction and not retried', async () => {
    await crs.create(env.namespace, 'pg-write', { write: true });
    const message = await waitForFailure('pg-write');
    expect(message).toMatch(/read-only transaction/);
    expect(message).not.toContain(postgres().password);
  });

  it('a slow statement ends at the timeout', async () => {
    const started = Date.now();
    await crs.create(env.namespace, 'pg-slow', { sleep: '5' });
    const failure = await waitForFailure('pg-slow', 100);
    expect(Date.now() - started).toBeLessThan(4500);
    expect(failure).toMatch(/external call slow failed: .*(timed out after 1s|statement timeout)/);
    // The pool still serves the next query.
    await crs.patchSpec(env.namespace, 'pg-web', { owner: 'api' });
    await waitForStatus('pg-web', 'pending', '1', 'the next query');
  });

  it('a down server fails the CR with ExternalCallFailed and the runtime carries on', async () => {
    await crs.create(env.namespace, 'pg-down', { deadDb: 'postgres://reader@127.0.0.1:9/postgres' });
    const failure = await waitForFailure('pg-down');
    expect(failure).toMatch(/external call deadDb failed: .*ECONNREFUSED/);
    await crs.patchSpec(env.namespace, 'pg-web', { owner: 'web' });
    await waitForStatus('pg-web', 'pending', '2', 'the runtime to carry on');
  });
});

describe('protocol: redis', () => {
  it('puts a read command’s answer in the template context', async () => {
    await crs.create(env.namespace, 'redis-jobs', { queue: 'jobs' });
    await waitForStatus('redis-jobs', 'queueLength', '3', 'the queue length in the status');
  });

  it('an injection attempt through a CR value stays one argument of one read', async () => {
    await crs.create(env.namespace, 'redis-inject', { queue: 'jobs\r\nDEL jobs\r\n' });
    await waitForStatus('redis-inject', 'queueLength', '0', 'the injected CR to reconcile');
    expect(await redisWrite('LLEN jobs')).toMatch(/:3\r\n$/);
  });

  it('a stopped server times out, and a down one fails with ExternalCallFailed; the runtime carries on', async () => {
    const resume = await pauseProcess(redis().pid);
    try {
      await crs.create(env.namespace, 'redis-slow', { queue: 'other' });
      const failure = await waitForFailure('redis-slow', 100);
      expect(failure).toMatch(/external call queue failed: .*(timed out|timeout)/i);
    } finally {
      resume();
    }
    await crs.create(env.namespace, 'redis-down', { deadCache: 'redis://127.0.0.1:9/0' });
    const failure = await waitForFailure('redis-down');
    expect(failure).toMatch(/external call deadCache failed: .*ECONNREFUSED/);
    await crs.patchSpec(env.namespace, 'redis-jobs', { queue: 'jobs', touch: 1 });
    await waitForStatus('redis-jobs', 'queueLength', '3', 'the runtime to carry on');
  });
});

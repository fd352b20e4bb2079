/**
 * A Katalog that uses external protocols, run by the operator in this process against real servers
 * (docs/reference/katalog.md §15.1.1): PostgreSQL, Redis and Prometheus from `@orkestra/testenv`
 * (`pnpm testenv:build protocols`), the local control plane. One CR: its `spec.owner` is a bind
 * parameter of a SQL count, its `spec.queue` the key of a Redis `LLEN`, and Prometheus' own `up`
 * is read through `promValue` and `promAboveThreshold`; a ConfigMap child and the CR's status are
 * rendered from each answer, and the Control Center lists each call's last outcome for the CR
 * (ADR 0095). The same Katalog passes `ork validate --strict` (ADR 0086).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { deleteCrd } from '@orkestra/testenv';
import { useControlPlane, usePostgres, usePrometheus, useRedis } from '@orkestra/testenv/vitest';
import { loadKatalog } from '@orkestra/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { strictCheck } from '../src/offline/strict-check.js';
import type { Operator } from '../src/process/operator.js';
import { waitFor } from './e2e/ork-process.js';
import { startInProcessOperator } from './in-process-operator.js';

const env = useControlPlane();
const postgres = usePostgres();
const prometheus = usePrometheus();
const redis = useRedis();
const group = `ps${randomBytes(3).toString('hex')}.test.orkestra.io`;
const dir = mkdtempSync(join(tmpdir(), 'orkestra-protocols-sample-'));
const file = join(dir, 'katalog.yaml');

/** redisWrite sends inline commands to the test's Redis as its admin (the protocol only reads). */
function redisWrite(...commands: string[]): Promise<string> {
  const { port, password } = redis();
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk.toString();
      if (answer.split('\r\n').length > commands.length + 1) socket.end();
    });
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
    socket.write([`AUTH ${password}`, ...commands].map((c) => `${c}\r\n`).join(''));
  });
}

/** katalogText is the sample: three protocols, a ConfigMap child and status fields from their answers. */
function katalogText(): string {
  const db = postgres();
  return `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: protocols-sample}
spec:
  crds:
    queue:
      apiTypes: {group: ${group}, version: v1, kind: Queue, plural: queues}
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                owner: {type: string}
                queue: {type: string}
            status:
              type: object
              x-kubernetes-preserve-unknown-fields: true
      operatorBox:
        external:
          - name: jobs
            protocol: postgres
            url: postgres://${db.user}@127.0.0.1:${db.port}/${db.database}
            query: SELECT count(*) AS pending FROM (VALUES ('web', 'pending'), ('web', 'pending'), ('web', 'done'), ('api', 'pending')) AS jobs(owner, state) WHERE owner = $1 AND state = $2
            params: ["{{ spec.owner }}", pending]
            auth: {secretRef: {name: pg-reader, key: password}}
            timeout: 5s
          - name: backlog
            protocol: redis
            url: redis://127.0.0.1:${redis().port}/0
            query: 'LLEN "{{ spec.queue }}"'
            auth: {secretRef: {name: redis-reader, key: password}}
            timeout: 5s
          - name: up
            protocol: prometheus
            url: ${prometheus().url}
            query: 'up{job="prometheus"}'
            timeout: 5s
        onReconcile:
          configMaps:
            - name: "{{ metadata.name }}-answers"
              data:
                PENDING: "{{ external.jobs.rows.0.pending }}"
                BACKLOG: "{{ external.backlog.result }}"
                UP: "{{ promValue external.up }}"
        status:
          fields:
            - {path: pending, value: "{{ external.jobs.result }}"}
            - {path: backlog, value: "{{ external.backlog.result }}"}
            - {path: up, value: "{{ promValue external.up }}"}
            - {path: scraping, value: "{{ promAboveThreshold external.up 0 }}"}
`;
}

let operator: Operator;
const ccToken = randomBytes(16).toString('hex');
const core = () => env.kubeConfig.makeApiClient(CoreV1Api);
const custom = () => env.kubeConfig.makeApiClient(CustomObjectsApi);

beforeAll(async () => {
  await core().createNamespacedSecret({
    namespace: env.namespace,
    body: { metadata: { name: 'pg-reader' }, stringData: { password: postgres().password } },
  });
  await core().createNamespacedSecret({
    namespace: env.namespace,
    body: { metadata: { name: 'redis-reader' }, stringData: { password: redis().password } },
  });
  await redisWrite('RPUSH orders a b c d e');
  // `up` exists after Prometheus' first scrape of itself.
  await waitFor('Prometheus to have scraped itself', async () => {
    const answer = await fetch(
      `${prometheus().url}/api/v1/query?query=${encodeURIComponent('up{job="prometheus"}')}`,
    );
    const body = (await answer.json()) as { data: { result: unknown[] } };
    return body.data.result.length > 0 ? true : undefined;
  });
  writeFileSync(file, katalogText());
  operator = await startInProcessOperator({
    katalogFile: file,
    cwd: dir,
    kubeConfig: env.kubeConfig,
    namespace: env.namespace,
    // The servers listen on loopback, which the address guard allows only explicitly.
    args: [
      ...['--allow-private-addresses', '127.0.0.0/8'],
      ...['--metrics-bind-address', '127.0.0.1:0', '--control-center'],
    ],
    options: { controlCenterToken: ccToken },
  });
  await operator.synced;
}, 120_000);

afterAll(async () => {
  await operator?.shutdown('test done');
  await deleteCrd(env.kubeConfig, { group, version: 'v1', kind: 'Queue', plural: 'queues' });
});

describe('a protocols sample under the operator, against the real servers', () => {
  it('passes ork validate --strict', () => {
    const text = katalogText();
    const loaded = loadKatalog({ text, file });
    if (!loaded.ok) throw new Error(loaded.errors.map((e) => e.message).join('\n'));
    expect(strictCheck(file, text, loaded.katalog).errors).toEqual([]);
  });

  it(
    'renders a child and the status from the PostgreSQL, Redis and Prometheus answers',
    { timeout: 180_000 },
    async () => {
      await custom().createNamespacedCustomObject({
        group,
        version: 'v1',
        namespace: env.namespace,
        plural: 'queues',
        body: {
          apiVersion: `${group}/v1`,
          kind: 'Queue',
          metadata: { name: 'web' },
          spec: { owner: 'web', queue: 'orders' },
        },
      });
      const status = await waitFor(
        'the status rendered from the answers',
        async () => {
          const cr = (await custom().getNamespacedCustomObject({
            group,
            version: 'v1',
            namespace: env.namespace,
            plural: 'queues',
            name: 'web',
          })) as { status?: Record<string, unknown> };
          return cr.status?.['pending'] == null ? undefined : cr.status;
        },
        120_000,
      );
      expect(status).toMatchObject({ pending: '2', backlog: '5', up: '1', scraping: 'true' });
      const answers = await core().readNamespacedConfigMap({ name: 'web-answers', namespace: env.namespace });
      expect(answers.data).toEqual({ PENDING: '2', BACKLOG: '5', UP: '1' });

      // The Control Center's CR page data: each call's last outcome for this CR (runtime.md §23.2).
      const base = `http://127.0.0.1:${operator.metricsAddress?.port ?? 0}`;
      const answer = await fetch(`${base}/api/v1/entries/queue/crs/${env.namespace}/web`, {
        headers: { authorization: `Bearer ${ccToken}` },
      });
      expect(answer.status).toBe(200);
      const text = await answer.text();
      for (const secret of [postgres().password, redis().password]) expect(text).not.toContain(secret);
      const { calls } = JSON.parse(text) as { calls: Record<string, unknown>[] };
      expect(calls.map((c) => [c['call'], c['protocol'], c['target'], c['outcome']])).toEqual([
        ['backlog', 'redis', `redis://127.0.0.1:${redis().port}`, 'ok'],
        ['jobs', 'postgres', `postgres://127.0.0.1:${postgres().port}`, 'ok'],
        ['up', 'prometheus', prometheus().url.replace(/\/+$/, ''), 'ok'],
      ]);
    },
  );
});

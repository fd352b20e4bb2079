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
import { SAMPLE_ANSWERS, sampleKatalog, seedSample } from './protocols-sample.js';

const env = useControlPlane();
const postgres = usePostgres();
const prometheus = usePrometheus();
const redis = useRedis();
const group = `ps${randomBytes(3).toString('hex')}.test.orkestra.io`;
const dir = mkdtempSync(join(tmpdir(), 'orkestra-protocols-sample-'));
const file = join(dir, 'katalog.yaml');
const servers = { postgres, prometheus, redis };
const katalogText = (): string => sampleKatalog(servers, group);

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
  await seedSample(servers, waitFor);
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
      expect(status).toMatchObject(SAMPLE_ANSWERS.status);
      const answers = await core().readNamespacedConfigMap({ name: 'web-answers', namespace: env.namespace });
      expect(answers.data).toEqual(SAMPLE_ANSWERS.configMap);

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

import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { usePostgres, usePrometheus, useRedis } from '@orkestra/testenv/vitest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SAMPLE_ANSWERS, sampleKatalog, seedSample } from '../protocols-sample.js';
import { buildOrk, spawnDev, waitFor } from './ork-process.js';

// Issue 43's acceptance, as a user runs it: the protocols sample (PostgreSQL, Redis, Prometheus)
// under the `ork dev` binary, which starts its own control plane and allows loopback addresses;
// kubectl (the pinned build) creates the credentials' Secrets and the CR.

const servers = { postgres: usePostgres(), prometheus: usePrometheus(), redis: useRedis() };
const group = 'protocols.dev.orkestra.io';
const dir = mkdtempSync(join(tmpdir(), 'orkestra-dev-protocols-'));
const kubeconfig = join(dir, 'dev.kubeconfig');
const katalog = join(dir, 'katalog.yaml');

beforeAll(async () => {
  buildOrk();
  await seedSample(servers, waitFor);
  writeFileSync(katalog, sampleKatalog(servers, group));
}, 600_000);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

it('runs the protocols sample under ork dev against real PostgreSQL, Redis and Prometheus', async () => {
  const { dev, kubectlOk: kubectl } = spawnDev(katalog, kubeconfig, join(dir, 'work'));
  try {
    await waitFor('the dev kubeconfig', () => (existsSync(kubeconfig) ? true : undefined), 180_000);
    await waitFor(
      'the Queue CRD to be served',
      async () => ((await kubectl('get', 'crd', `queues.${group}`)).includes('queues') ? true : undefined),
      60_000,
    );
    for (const [name, password] of [
      ['pg-reader', servers.postgres().password],
      ['redis-reader', servers.redis().password],
    ] as const)
      await kubectl(
        'create',
        'secret',
        'generic',
        name,
        '-n',
        'default',
        `--from-literal=password=${password}`,
      );
    const cr = join(dir, 'cr.yaml');
    writeFileSync(
      cr,
      `apiVersion: ${group}/v1\nkind: Queue\nmetadata: {name: web, namespace: default}\nspec: {owner: web, queue: orders}\n`,
    );
    await kubectl('apply', '-f', cr);
    const status = await waitFor(
      'the status rendered from the answers',
      async () => {
        const text = await kubectl(
          'get',
          `queues.${group}`,
          'web',
          '-n',
          'default',
          '-o',
          'jsonpath={.status}',
        );
        const parsed = text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
        return parsed['pending'] == null ? undefined : parsed;
      },
      120_000,
    );
    expect(status).toMatchObject(SAMPLE_ANSWERS.status);
    const data = JSON.parse(
      await kubectl('get', 'configmap', 'web-answers', '-n', 'default', '-o', 'jsonpath={.data}'),
    ) as unknown;
    expect(data).toEqual(SAMPLE_ANSWERS.configMap);
    // No credential in the operator's output.
    const output = JSON.stringify(dev.logs) + dev.stderr();
    for (const secret of [servers.postgres().password, servers.redis().password])
      expect(output).not.toContain(secret);
  } finally {
    dev.child.kill('SIGINT');
  }
  expect(await dev.exited).toBe(0);
}, 480_000);

import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeClient } from '@orkestra/registry';
import { useControlPlane } from '@orkestra/testenv/vitest';
import { loadKatalogOrThrow } from '@orkestra/types';
import { afterAll, describe, expect, it } from 'vitest';
import { createConverter } from '../src/conversion/convert.js';
import { MigrationError, migrateStorageVersion } from '../src/conversion/migrate-storage.js';
import { VERSIONED_KATALOG } from '../src/conversion/fixture.test-support.js';
import { generateCrds } from '../src/generate/generate-crds.js';
import { createApiTransport } from '../src/process/api-transport.js';
import { patchConversionCaBundle } from '../src/webhook/ca-bundle.js';
import { createWebhookServer } from '../src/webhook/server.js';
import { ensureWebhookTls } from '../src/webhook/tls-secret.js';
import { startInProcessOperator } from './in-process-operator.js';
import { kubeRequest } from './kube-raw.js';
import { until } from './until.js';

// Storage version migration interrupted by an operator restart, on the real local control plane
// (docs/reference/katalog.md §3.4, ADR 0085). The operator before the restart stops midway; the
// operator after it starts migrating when its workers start, so its first wave of status writes lands
// on every object between the migration's list and its writes (each write conflicts, 409). Every
// object must still be written by the migration (after a fresh read), `status.storedVersions` must
// stay [v1, v2] until then, and afterwards every object must read at v2 with the conversion webhook
// down: reading at the storage version needs no conversion only when the object is stored there.
// The second case runs the operator itself (`--install-crds`, the webhook on loopback as `ork dev`
// runs it) through the same restart: its logged counts must name every object written.

const env = useControlPlane();
const cleanup: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step().catch(() => undefined);
});

describe('storage version migration across an operator restart', () => {
  it('writes every object at the new storage version despite the first status wave, then trims storedVersions', async () => {
    const group = `t${randomBytes(3).toString('hex')}.mig.example.com`;
    const katalog = loadKatalogOrThrow({
      text: VERSIONED_KATALOG.replaceAll('demo.example.io', group),
      file: 'v.yaml',
    });
    const api = createApiTransport({
      kubeConfig: env.kubeConfig,
      katalogName: 'versioned',
      restRequest: () => undefined,
    });
    const tls = await ensureWebhookTls(api.client, {
      namespace: env.namespace,
      hosts: ['127.0.0.1'],
      now: () => new Date(),
    });
    const server = await createWebhookServer({
      ...tls,
      host: '127.0.0.1',
      port: 0,
      converters: new Map([
        [`${group}/Database`, createConverter('database', katalog.spec.crds['database']!)],
      ]),
    });
    cleanup.push(() => server.close());
    const crdName = `databases.${group}`;
    const crdPath = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crdName}`;
    const [crd] = generateCrds(katalog, { webhook: { url: `https://127.0.0.1:${server.port}` } });
    const created = await kubeRequest(
      env.kubeConfig,
      'POST',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      crd,
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    cleanup.push(() => kubeRequest(env.kubeConfig, 'DELETE', crdPath));
    await until(
      'Established',
      async () => (await kubeRequest(env.kubeConfig, 'GET', crdPath)).body['status'],
      (s) =>
        (s as { conditions?: { type: string; status: string }[] } | undefined)?.conditions?.some(
          (c) => c.type === 'Established' && c.status === 'True',
        ) === true,
    );
    expect(await patchConversionCaBundle(api.client, [crdName], tls.caBundle)).toBe(1);

    // 24 objects stored at v1 (created at v1alpha1, so the webhook is in use before they exist).
    const path = (version: string, name = ''): string =>
      `/apis/${group}/${version}/namespaces/${env.namespace}/databases${name === '' ? '' : `/${name}`}`;
    const names = Array.from({ length: 24 }, (_, i) => `db${i}`);
    for (const name of names) {
      const body = {
        apiVersion: `${group}/v1alpha1`,
        kind: 'Database',
        metadata: { name },
        spec: { size: 1, databaseEngine: 'pg', image: 'pg:16' },
      };
      await until(
        `create ${name}`,
        async () => (await kubeRequest(env.kubeConfig, 'POST', path('v1alpha1'), body)).status,
        (status) => status === 201 || status === 409,
      );
    }

    // The Katalog's storage version becomes v2 (as installCrds writes it at the next start).
    const current = (await kubeRequest(env.kubeConfig, 'GET', crdPath)).body as {
      spec: { versions: { name: string; storage: boolean }[] };
    };
    for (const v of current.spec.versions) v.storage = v.name === 'v2';
    const moved = await kubeRequest(env.kubeConfig, 'PUT', crdPath, current);
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    const storedVersions = async (): Promise<unknown> =>
      ((await kubeRequest(env.kubeConfig, 'GET', crdPath)).body['status'] as Record<string, unknown>)[
        'storedVersions'
      ];
    await until('storedVersions [v1, v2]', storedVersions, (v) => JSON.stringify(v) === '["v1","v2"]');

    // Before the restart: the operator stops after 8 writes (its shutdown aborts the migration).
    const stop = new AbortController();
    let writes = 0;
    const stopping: Pick<KubeClient, 'get' | 'list' | 'mergePatch' | 'patchStatus'> = {
      get: (ref) => api.client.get(ref),
      list: (ref, options) => api.client.list(ref, options),
      mergePatch: async (ref, patch, options) => {
        const written = await api.client.mergePatch(ref, patch, options);
        if (++writes === 8) stop.abort();
        return written;
      },
      patchStatus: (ref, status, options) => api.client.patchStatus(ref, status, options),
    };
    const first = await migrateStorageVersion(stopping, {
      crdName,
      ratePerSecond: 200,
      signal: stop.signal,
    }).catch((error: unknown) => error);
    expect(first).toBeInstanceOf(MigrationError);
    expect((first as MigrationError).code).toBe('MigrationStopped');
    expect(await storedVersions()).toEqual(['v1', 'v2']);

    // After the restart: the workers' first status wave writes every object right after the
    // migration listed them, so each listed resourceVersion is stale when the migration writes.
    let wave = 0;
    const restarted: Pick<KubeClient, 'get' | 'list' | 'mergePatch' | 'patchStatus'> = {
      get: (ref) => api.client.get(ref),
      list: async (ref, options) => {
        const listed = await api.client.list(ref, options);
        // The wave follows the migration's first list of the kind, not its fresh lists after a conflict.
        if (options?.fieldSelector != null || wave > 0) return listed;
        for (const item of listed.items) {
          await api.client.patchStatus(
            {
              apiVersion: `${group}/v1`,
              kind: 'Database',
              namespace: env.namespace,
              name: item.metadata.name ?? '',
            },
            { observedGeneration: 1, phase: `wave-${wave}` },
          );
          wave++;
        }
        return listed;
      },
      mergePatch: (ref, patch, options) => api.client.mergePatch(ref, patch, options),
      patchStatus: (ref, status, options) => api.client.patchStatus(ref, status, options),
    };
    const second = await migrateStorageVersion(restarted, { crdName, ratePerSecond: 200 });
    expect(wave).toBe(names.length);
    expect(second).toMatchObject({
      needed: true,
      rewritten: names.length,
      deleted: 0,
      storedVersions: ['v2'],
    });
    expect(second.conflicts).toBeGreaterThanOrEqual(names.length);
    expect(await storedVersions()).toEqual(['v2']);

    // Every object is stored at v2: with the webhook down, each still reads at v2 (and the status
    // wave's writes are kept), while a read at v1 needs the webhook and fails.
    await server.close();
    for (const name of names) {
      const read = await kubeRequest(env.kubeConfig, 'GET', path('v2', name));
      expect(read.status, `${name}: ${JSON.stringify(read.body)}`).toBe(200);
      expect((read.body['status'] as Record<string, unknown>)['phase']).toMatch(/^wave-/);
    }
    const list = await kubeRequest(env.kubeConfig, 'GET', path('v2'));
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    expect((list.body['items'] as unknown[]).length).toBe(names.length);
    expect((await kubeRequest(env.kubeConfig, 'GET', path('v1', names[0]))).status).toBe(500);
  }, 240_000);

  it('the operator restarted with v2 as storage version, stopped right after its start and started again: every object at v2, storedVersions [v2], none left out', async () => {
    const group = `t${randomBytes(3).toString('hex')}.mig.example.com`;
    const dir = mkdtempSync(join(tmpdir(), 'orkestra-migration-'));
    cleanup.push(async () => rmSync(dir, { recursive: true, force: true }));
    const katalogText = (storage: string): string => `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata:
  name: migrating
spec:
  crds:
    database:
      apiTypes: { group: ${group}, version: v1, kind: Database, plural: databases }
      versions:
        - name: v1
          schema:
            openAPIV3Schema:
              type: object
              properties:
                spec: { type: object, properties: { replicas: { type: integer }, engine: { type: string } } }
        - name: v2
          schema:
            openAPIV3Schema:
              type: object
              properties:
                spec: { type: object, properties: { count: { type: integer }, engine: { type: string } } }
      conversion:
        storageVersion: ${storage}
        paths:
          - from: v1
            to: v2
            rules:
              - rename: { from: spec.replicas, to: spec.count }
`;
    const v1Text = katalogText('v1');
    const v2Text = katalogText('v2');
    const file = join(dir, 'katalog.yaml');
    const logs: Record<string, unknown>[] = [];
    const start = (text: string) => {
      writeFileSync(file, text);
      return startInProcessOperator({
        katalogFile: file,
        cwd: dir,
        kubeConfig: env.kubeConfig,
        namespace: env.namespace,
        args: [
          '--webhook-bind-address',
          '127.0.0.1:0',
          '--webhook-service',
          'loopback',
          '--log-level',
          'info',
        ],
        options: {
          watchNamespace: env.namespace,
          logDestination: {
            write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>),
          },
        },
      });
    };
    const crdPath = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/databases.${group}`;
    cleanup.push(() => kubeRequest(env.kubeConfig, 'DELETE', crdPath));
    const path = (version: string, name = ''): string =>
      `/apis/${group}/${version}/namespaces/${env.namespace}/databases${name === '' ? '' : `/${name}`}`;

    // 30 objects stored at v1, each reconciled once (a status written).
    const first = await start(v1Text);
    await first.synced;
    const names = Array.from({ length: 30 }, (_, i) => `db${i}`);
    for (const name of names) {
      const body = {
        apiVersion: `${group}/v1`,
        kind: 'Database',
        metadata: { name },
        spec: { replicas: 1, engine: 'pg' },
      };
      const created = await kubeRequest(env.kubeConfig, 'POST', path('v1'), body);
      expect(created.status, JSON.stringify(created.body)).toBe(201);
    }
    await until(
      'every object has a status',
      async () =>
        (await kubeRequest(env.kubeConfig, 'GET', path('v1'))).body['items'] as { status?: unknown }[],
      (items) => items.length === names.length && items.every((item) => item.status != null),
    );
    await first.shutdown('test');

    // Restarted with v2 as storage version: stopped as soon as its informers synced (the migration
    // runs from the start of its workers), then started again.
    const second = await start(v2Text);
    await second.synced;
    await second.shutdown('test');
    const third = await start(v2Text);
    await third.synced;
    const storedVersions = async (): Promise<unknown> =>
      ((await kubeRequest(env.kubeConfig, 'GET', crdPath)).body['status'] as Record<string, unknown>)[
        'storedVersions'
      ];
    await until('storedVersions [v2]', storedVersions, (v) => JSON.stringify(v) === '["v2"]');
    await third.shutdown('test');

    const migrated = logs.filter((line) => line['msg'] === 'storage version migrated');
    const failed = logs.filter((line) => line['msg'] === 'storage version migration failed');
    expect(failed.map((line) => line['err'])).toEqual([]);
    expect(migrated.at(-1)).toMatchObject({ rewritten: names.length, deleted: 0, storedVersions: ['v2'] });
    // The operator is down, and its webhook with it: every object reads at v2 all the same.
    for (const name of names) {
      const read = await kubeRequest(env.kubeConfig, 'GET', path('v2', name));
      expect(read.status, `${name}: ${JSON.stringify(read.body)}`).toBe(200);
    }
    console.log(
      `migrations logged: ${JSON.stringify(migrated.map((line) => ({ rewritten: line['rewritten'], conflicts: line['conflicts'] })))}`,
    );
  }, 300_000);
});

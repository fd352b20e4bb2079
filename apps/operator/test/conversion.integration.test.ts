import { randomBytes } from 'node:crypto';
import { useControlPlane } from '@orkestra/testenv/vitest';
import { loadKatalogOrThrow } from '@orkestra/types';
import { afterAll, describe, expect, it } from 'vitest';
import { createConverter } from '../src/conversion/convert.js';
import { migrateStorageVersion } from '../src/conversion/migrate-storage.js';
import { VERSIONED_KATALOG } from '../src/conversion/fixture.test-support.js';
import { generateCrds } from '../src/generate/generate-crds.js';
import { createApiTransport } from '../src/process/api-transport.js';
import { patchConversionCaBundle } from '../src/webhook/ca-bundle.js';
import { createWebhookServer } from '../src/webhook/server.js';
import type { WebhookServer } from '../src/webhook/server.js';
import { ensureWebhookTls } from '../src/webhook/tls-secret.js';
import { kubeRequest } from './kube-raw.js';

// Versions and conversion on the real local control plane (docs/reference/katalog.md §3.4,
// docs/reference/runtime.md §26, ADR 0056, ADR 0057): the CRD `ork generate` writes serves three
// versions; the API server calls the operator's HTTPS endpoint on 127.0.0.1 with the caBundle
// patched from the webhook Secret; a CR written at one version reads at the others as the rules
// say, and the stored object does not change when it is read.

const env = useControlPlane();
const cleanup: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step().catch(() => undefined);
});

async function established(name: string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const crd = await kubeRequest(
      env.kubeConfig,
      'GET',
      `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`,
    );
    const conditions = (crd.body['status'] as { conditions?: { type: string; status: string }[] } | undefined)
      ?.conditions;
    if (conditions?.some((c) => c.type === 'Established' && c.status === 'True')) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`CRD ${name} not established`);
}

describe('conversion webhook on the local control plane', () => {
  it('creates at v1alpha1, reads at v2 and v1 and back, stored object unchanged; rotates its certificates; says so when down', async () => {
    const group = `t${randomBytes(3).toString('hex')}.conv.example.com`;
    const katalog = loadKatalogOrThrow({
      text: VERSIONED_KATALOG.replaceAll('demo.example.io', group),
      file: 'v.yaml',
    });
    const entry = katalog.spec.crds['database']!;
    const api = createApiTransport({
      kubeConfig: env.kubeConfig,
      katalogName: 'versioned',
      restRequest: () => undefined,
    });
    const tlsOptions = { namespace: env.namespace, hosts: ['127.0.0.1'], now: () => new Date() };
    const tls = await ensureWebhookTls(api.client, tlsOptions);
    const reviews: number[] = [];
    const server: WebhookServer = await createWebhookServer({
      ...tls,
      host: '127.0.0.1',
      port: 0,
      converters: new Map([[`${group}/Database`, createConverter('database', entry)]]),
      onReview: (r) => reviews.push(r.ms),
    });
    cleanup.push(() => server.close());
    const crdName = `databases.${group}`;
    const [crd] = generateCrds(katalog, { webhook: { url: `https://127.0.0.1:${server.port}` } });
    const created = await kubeRequest(
      env.kubeConfig,
      'POST',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      crd,
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    cleanup.push(() =>
      kubeRequest(
        env.kubeConfig,
        'DELETE',
        `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crdName}`,
      ),
    );
    await established(crdName);
    expect(await patchConversionCaBundle(api.client, [crdName], tls.caBundle)).toBe(1);
    expect(await patchConversionCaBundle(api.client, [crdName], tls.caBundle)).toBe(0);

    const path = (version: string, name = ''): string =>
      `/apis/${group}/${version}/namespaces/${env.namespace}/databases${name === '' ? '' : `/${name}`}`;
    const spec = { size: 3, databaseEngine: 'pg', legacyFlag: true, image: 'pg:16', nested: { port: 5432 } };
    // The CRD's caBundle reaches the API server's webhook client shortly after the patch.
    let write = await kubeRequest(env.kubeConfig, 'POST', path('v1alpha1'), {
      apiVersion: `${group}/v1alpha1`,
      kind: 'Database',
      metadata: { name: 'db' },
      spec,
    });
    for (let i = 0; i < 50 && write.status !== 201; i++) {
      await new Promise((r) => setTimeout(r, 200));
      write = await kubeRequest(env.kubeConfig, 'POST', path('v1alpha1'), {
        apiVersion: `${group}/v1alpha1`,
        kind: 'Database',
        metadata: { name: 'db' },
        spec,
      });
    }
    expect(write.status, JSON.stringify(write.body)).toBe(201);

    const stored = await kubeRequest(env.kubeConfig, 'GET', path('v1', 'db'));
    expect(stored.body['spec']).toEqual({
      replicas: 3,
      engine: 'pg',
      image: 'pg:16',
      network: { port: 5432 },
      tier: 'standard',
      apiLevel: 1,
    });
    const v2 = await kubeRequest(env.kubeConfig, 'GET', path('v2', 'db'));
    expect(v2.body['apiVersion']).toBe(`${group}/v2`);
    expect(v2.body['spec']).toEqual({
      count: 3,
      engine: 'pg',
      container: { image: 'pg:16' },
      network: { port: 5432 },
      tier: 'standard',
      paused: false,
    });
    const back = await kubeRequest(env.kubeConfig, 'GET', path('v1alpha1', 'db'));
    expect(back.body['spec']).toEqual(spec);
    const after = await kubeRequest(env.kubeConfig, 'GET', path('v1', 'db'));
    expect(after.body).toEqual(stored.body); // reads wrote nothing: same resourceVersion, same content

    // wrap/unwrap, enum and forEach through the API server, and back (ADR 0069).
    const rich = {
      size: 1,
      databaseEngine: 'postgresql',
      backup: 'daily',
      ports: [{ name: 'web', port: 80, legacy: true, scheme: 'https', tls: { cert: 'c' } }],
    };
    const richWrite = await kubeRequest(env.kubeConfig, 'POST', path('v1alpha1'), {
      apiVersion: `${group}/v1alpha1`,
      kind: 'Database',
      metadata: { name: 'rich' },
      spec: rich,
    });
    expect(richWrite.status, JSON.stringify(richWrite.body)).toBe(201);
    expect((await kubeRequest(env.kubeConfig, 'GET', path('v2', 'rich'))).body['spec']).toEqual({
      count: 1,
      engine: 'pg',
      backup: 'daily',
      endpoints: [
        { name: 'web', containerPort: { number: 80 }, protocol: 'TCP', scheme: 'HTTPS', cert: 'c', level: 2 },
      ],
      tier: 'standard',
      paused: false,
    });
    expect((await kubeRequest(env.kubeConfig, 'GET', path('v1alpha1', 'rich'))).body['spec']).toEqual(rich);

    // Items reordered at v2 keep their own kept fields at v1alpha1: found by name, not by index (ADR 0071).
    const listed = {
      size: 1,
      ports: [
        { name: 'a', port: 1, legacy: true },
        { name: 'b', port: 2 },
      ],
    };
    const listedWrite = await kubeRequest(env.kubeConfig, 'POST', path('v1alpha1'), {
      apiVersion: `${group}/v1alpha1`,
      kind: 'Database',
      metadata: { name: 'listed' },
      spec: listed,
    });
    expect(listedWrite.status, JSON.stringify(listedWrite.body)).toBe(201);
    const atV2 = (await kubeRequest(env.kubeConfig, 'GET', path('v2', 'listed'))).body;
    const endpoints = (atV2['spec'] as { endpoints: unknown[] }).endpoints;
    (atV2['spec'] as { endpoints: unknown[] }).endpoints = [endpoints[1], endpoints[0]];
    const reordered = await kubeRequest(env.kubeConfig, 'PUT', path('v2', 'listed'), atV2);
    expect(reordered.status, JSON.stringify(reordered.body)).toBe(200);
    expect((await kubeRequest(env.kubeConfig, 'GET', path('v1alpha1', 'listed'))).body['spec']).toEqual({
      ...listed,
      ports: [listed.ports[1], listed.ports[0]],
    });

    // A rule scoped to v1alpha1 judges requests made at v1alpha1 only (docs/reference/katalog.md §12).
    const big = await kubeRequest(env.kubeConfig, 'POST', path('v1alpha1'), {
      apiVersion: `${group}/v1alpha1`,
      kind: 'Database',
      metadata: { name: 'big' },
      spec: { size: 500 },
    });
    expect(big.status).toBe(422);
    expect(JSON.stringify(big.body)).toContain('v1alpha1 allows at most 100');
    const bigAtV2 = await kubeRequest(env.kubeConfig, 'POST', path('v2'), {
      apiVersion: `${group}/v2`,
      kind: 'Database',
      metadata: { name: 'big' },
      spec: { count: 500 },
    });
    expect(bigAtV2.status, JSON.stringify(bigAtV2.body)).toBe(201);
    for (const name of ['rich', 'listed', 'big'])
      await kubeRequest(env.kubeConfig, 'DELETE', path('v1', name));

    // A spec change through v2 reaches v1alpha1; the field v1 has no home for comes back.
    const patched = await kubeRequest(env.kubeConfig, 'PATCH', path('v2', 'db'), { spec: { count: 5 } });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect((await kubeRequest(env.kubeConfig, 'GET', path('v1alpha1', 'db'))).body['spec']).toEqual({
      ...spec,
      size: 5,
    });

    // Rotation in real time (the API server checks validity against its own clock), with short
    // lifetimes: CA 45 s, serving certificate 30 s, each renewed when a third is left. Reads go on
    // throughout and none may fail.
    const untilDue = async (pem: string, lifetime: number): Promise<void> => {
      const { X509Certificate } = await import('node:crypto');
      const to = new Date(new X509Certificate(pem).validTo).getTime();
      await new Promise((r) => setTimeout(r, Math.max(0, to - lifetime / 3 - Date.now() + 1_000)));
    };
    const shortOptions = {
      ...tlsOptions,
      secretName: 'short-lived-tls',
      caValidForMs: 45_000,
      certValidForMs: 30_000,
    };
    const short = await ensureWebhookTls(api.client, shortOptions);
    expect(await patchConversionCaBundle(api.client, [crdName], short.caBundle)).toBe(1);
    await new Promise((r) => setTimeout(r, 2_000)); // the new bundle reaches the webhook client
    server.setTls(short);
    await new Promise((r) => setTimeout(r, 1_000));
    let reading = true;
    let reads = 0;
    const failures: string[] = [];
    const reader = (async () => {
      while (reading) {
        const read = await kubeRequest(env.kubeConfig, 'GET', path('v2', 'db'));
        reads++;
        if (read.status !== 200) failures.push(JSON.stringify(read.body));
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    // The serving certificate is due (CA not yet): a new one from the same CA, swapped in place.
    await untilDue(short.certPem, 30_000);
    const leafRotated = await ensureWebhookTls(api.client, shortOptions);
    expect(leafRotated.certPem).not.toBe(short.certPem);
    expect(leafRotated.caBundle).toBe(short.caBundle);
    server.setTls(leafRotated);
    // The CA is due: the new CA joins the bundle beside the old one, the bundle is patched, and only
    // then does the server present a certificate of the new CA.
    await untilDue(short.caBundle, 45_000);
    const caRotated = await ensureWebhookTls(api.client, shortOptions);
    expect(caRotated.caBundle.endsWith(short.caBundle)).toBe(true);
    expect(caRotated.caBundle).not.toBe(short.caBundle);
    expect(await patchConversionCaBundle(api.client, [crdName], caRotated.caBundle)).toBe(1);
    await new Promise((r) => setTimeout(r, 2_000));
    server.setTls(caRotated);
    await new Promise((r) => setTimeout(r, 2_000));
    reading = false;
    await reader;
    expect(failures).toEqual([]);
    expect(reads).toBeGreaterThan(50);

    // Storage version migration: v2 becomes the storage version; the object is rewritten at v2,
    // storedVersions is trimmed, and every version still reads the same; a second run has nothing to do.
    const crdPath = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crdName}`;
    const current = (await kubeRequest(env.kubeConfig, 'GET', crdPath)).body as {
      spec: { versions: { name: string; storage: boolean }[] };
    };
    for (const v of current.spec.versions) v.storage = v.name === 'v2';
    const moved = await kubeRequest(env.kubeConfig, 'PUT', crdPath, current);
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    const beforeMigration = await kubeRequest(env.kubeConfig, 'GET', path('v1alpha1', 'db'));
    let storedVersions: unknown;
    for (let i = 0; i < 50; i++) {
      storedVersions = (
        (await kubeRequest(env.kubeConfig, 'GET', crdPath)).body['status'] as Record<string, unknown>
      )['storedVersions'];
      if (JSON.stringify(storedVersions) === '["v1","v2"]') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(storedVersions).toEqual(['v1', 'v2']);
    const migrated = await migrateStorageVersion(api.client, { crdName, ratePerSecond: 100 });
    expect(migrated).toEqual({
      needed: true,
      rewritten: 1,
      conflicts: 0,
      deleted: 0,
      storedVersions: ['v2'],
      timings: expect.objectContaining({ lists: 1 }),
    });
    expect(
      ((await kubeRequest(env.kubeConfig, 'GET', crdPath)).body['status'] as Record<string, unknown>)[
        'storedVersions'
      ],
    ).toEqual(['v2']);
    const afterMigration = await kubeRequest(env.kubeConfig, 'GET', path('v1alpha1', 'db'));
    expect(afterMigration.body['spec']).toEqual(beforeMigration.body['spec']);
    // Written again (at the new storage version): a new resourceVersion.
    const rv = (o: Record<string, unknown>): unknown =>
      (o['metadata'] as Record<string, unknown>)['resourceVersion'];
    expect(rv(afterMigration.body)).not.toBe(rv(beforeMigration.body));
    expect((await migrateStorageVersion(api.client, { crdName })).needed).toBe(false);

    // Webhook down: reads at the storage version (now v2) still work; other versions fail with the reason.
    await server.close();
    expect((await kubeRequest(env.kubeConfig, 'GET', path('v2', 'db'))).status).toBe(200);
    const down = await kubeRequest(env.kubeConfig, 'GET', path('v1', 'db'));
    expect(down.status).toBe(500);
    expect(JSON.stringify(down.body)).toMatch(/conversion webhook/);
    const sorted = [...reviews].sort((a, b) => a - b);
    console.log(
      `conversion reviews: ${sorted.length}, p50 ${sorted[Math.floor(sorted.length / 2)]?.toFixed(2)} ms, max ${sorted.at(-1)?.toFixed(2)} ms`,
    );
  }, 180_000);
});

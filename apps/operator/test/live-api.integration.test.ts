import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, CustomObjectsApi, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { useControlPlane } from '@orkestra/testenv/vitest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Operator } from '../src/process/operator.js';
import { startInProcessOperator } from './in-process-operator.js';

// Two operators on one control plane (ADR 0043, docs/reference/runtime.md §18.6): the peer serves
// `loader` CRs on its cross port through upstream's Live API paths; the reader, whose Katalog is
// written in upstream's dialect (`cross[].source` with `host` + `protocol` and `auth.token: $VAR`),
// reads them over HTTP with an `orkestra-cross` token through the peer's TokenReview +
// SubjectAccessReview gate. The peer is stopped mid-run (the reader's CR gets
// CrossSourceUnavailable naming the address and keeps the last answer) and started again on the
// same port (the condition clears).

const env = useControlPlane();
const group = 'liveapi.example.com';
let peer: Operator | undefined;
let reader: Operator | undefined;
let crossPort = 0;
let token = '';
const dir = mkdtempSync(join(tmpdir(), 'orkestra-live-api-'));

function write(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

const peerKatalog = (): string =>
  write(
    'peer.yaml',
    `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: { name: loader-runtime, version: 1.0.0 }
spec:
  crds:
    loader:
      apiTypes: { group: ${group}, version: v1, kind: Loader, plural: loaders }
      crossAccess: true
      schema:
        openAPIV3Schema:
          type: object
          x-kubernetes-preserve-unknown-fields: true
      operatorBox:
        onCreate:
          secrets:
            - name: "{{ metadata.name }}-creds"
              data: { password: hunter2-literal }
        status:
          fields:
            - path: phase
              value: "Loading-{{ spec.batch }}"
`,
  );

const readerKatalog = (): string =>
  write(
    'reader.yaml',
    `apiVersion: orkestra.orkspace.io/v1
kind: Katalog
metadata:
  name: processor-runtime
spec:
  crds:
    processor:
      apiTypes: { group: ${group}, version: v1, kind: Processor, plural: processors }
      operatorBox:
        cross:
          - crd: loader
            selector:
              name: "{{ .spec.loader }}"
            source:
              host: "http://127.0.0.1:${crossPort}"
              protocol: cr
              cacheFor: 2s
              auth:
                token: $LOADER_TOKEN
            as: loaderCR
          - crd: loader
            source:
              host: "http://127.0.0.1:${crossPort}"
              type: health
              cacheFor: 2s
              auth:
                token: $LOADER_TOKEN
            as: loaderHealth
        status:
          fields:
            - path: loaderPhase
              value: "{{ .cross.loaderCR.status.phase }}"
            - path: loaderState
              value: "{{ .cross.loaderHealth.state }}"
`,
  );

async function start(
  katalog: string,
  extra: string[],
  environment: Record<string, string>,
): Promise<Operator> {
  const operator = await startInProcessOperator({
    katalogFile: katalog,
    cwd: dir,
    kubeConfig: env.kubeConfig,
    namespace: env.namespace,
    args: extra,
    env: environment,
    options: { watchNamespace: env.namespace },
  });
  await operator.synced;
  return operator;
}

const startPeer = (port: number): Promise<Operator> =>
  start(
    peerKatalog(),
    ['--cross-bind-address', `127.0.0.1:${port}`, '--metrics-bind-address', '127.0.0.1:0'],
    {},
  );

/** apiRequests is the peer's count of API-server requests (`rest_client_requests_total`, all methods). */
async function apiRequests(): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${peer?.metricsAddress?.port ?? 0}/metrics`)).text();
  let total = 0;
  for (const line of text.split('\n'))
    if (line.startsWith('rest_client_requests_total')) total += Number(line.split(' ').at(-1));
  return total;
}

const custom = () => env.kubeConfig.makeApiClient(CustomObjectsApi);

async function processor(): Promise<Record<string, unknown>> {
  return (await custom().getNamespacedCustomObject({
    group,
    version: 'v1',
    namespace: env.namespace,
    plural: 'processors',
    name: 'p1',
  })) as Record<string, unknown>;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 200));
  }
}

const crossCondition = (cr: Record<string, unknown>) =>
  (
    (cr['status'] as { conditions?: { type: string; status: string; message: string }[] } | undefined)
      ?.conditions ?? []
  ).find((c) => c.type === 'CrossSourceUnavailable');

beforeAll(async () => {
  try {
    void env.namespace;
  } catch {
    return; // no control plane: useControlPlane skips every test
  }
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  await core.createNamespacedServiceAccount({
    namespace: env.namespace,
    body: { metadata: { name: 'processor' } },
  });
  const rbac = env.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
  await rbac.createNamespacedRole({
    namespace: env.namespace,
    body: {
      metadata: { name: 'loader-reader' },
      rules: [{ apiGroups: [group], resources: ['loaders'], verbs: ['get', 'list'] }],
    },
  });
  await rbac.createNamespacedRoleBinding({
    namespace: env.namespace,
    body: {
      metadata: { name: 'loader-reader' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'loader-reader' },
      subjects: [{ kind: 'ServiceAccount', name: 'processor', namespace: env.namespace }],
    },
  });
  const minted = await core.createNamespacedServiceAccountToken({
    name: 'processor',
    namespace: env.namespace,
    body: { spec: { audiences: ['orkestra-cross'], expirationSeconds: 3600 } },
  });
  token = minted.status?.token ?? '';
  peer = await startPeer(0);
  crossPort = peer.crossAddress?.port ?? 0;
  await custom().createNamespacedCustomObject({
    group,
    version: 'v1',
    namespace: env.namespace,
    plural: 'loaders',
    body: { apiVersion: `${group}/v1`, kind: 'Loader', metadata: { name: 'l1' }, spec: { batch: 7 } },
  });
  reader = await start(
    readerKatalog(),
    ['--cross-bind-address', '0', '--allow-private-addresses', '127.0.0.0/8'],
    {
      LOADER_TOKEN: token,
    },
  );
  await custom().createNamespacedCustomObject({
    group,
    version: 'v1',
    namespace: env.namespace,
    plural: 'processors',
    body: { apiVersion: `${group}/v1`, kind: 'Processor', metadata: { name: 'p1' }, spec: { loader: 'l1' } },
  });
}, 180_000);

afterAll(async () => {
  await reader?.shutdown('test done');
  await peer?.shutdown('test done');
});

const live = (path: string, bearer = token): Promise<Response> =>
  fetch(`http://127.0.0.1:${crossPort}${path}`, { headers: { authorization: `Bearer ${bearer}` } });

it('serves upstream’s Live API paths and shapes to a token that may read the entry', async () => {
  const detail = await until('the loader detail', async () => {
    const answer = await live(`/katalog/loader/cr/${env.namespace}/l1`);
    const body = (await answer.json()) as Record<string, unknown>;
    return (body['status'] as Record<string, unknown> | undefined)?.['phase'] === 'Loading-7'
      ? body
      : undefined;
  });
  expect(detail).toMatchObject({
    name: 'l1',
    namespace: env.namespace,
    found: true,
    spec: { batch: 7 },
    isKonductor: true,
  });
  const list = (await (await live(`/katalog/loader/cr?namespace=${env.namespace}`)).json()) as Record<
    string,
    unknown
  >;
  expect(list).toMatchObject({ crd: 'loader', total: 1, items: [{ name: 'l1', phase: 'Loading-7' }] });
  const health = (await (await live('/katalog/loader/health')).json()) as Record<string, unknown>;
  expect(health).toMatchObject({ name: 'loader', state: 'healthy', started: true });
  const info = (await (await live('/katalog/loader')).json()) as Record<string, unknown>;
  expect(info).toMatchObject({ name: 'loader', metrics: { queueDepth: expect.any(Number) } });
  const katalog = (await (await live('/katalog')).json()) as Record<string, unknown>;
  expect(katalog).toMatchObject({ name: 'loader-runtime', version: '1.0.0', total: 1, OrkReady: true });
  expect((await fetch(`http://127.0.0.1:${crossPort}/katalog/loader/cr`)).status).toBe(401);
  // Reads are answered from the informer cache, and the access reviews are cached: 0 API requests.
  const before = await apiRequests();
  for (let i = 0; i < 50; i++) await (await live(`/katalog/loader/cr/${env.namespace}/l1`)).arrayBuffer();
  const after = await apiRequests();
  expect(before).toBeGreaterThan(0);
  console.log(`live-api: ${after - before} API-server requests for 50 detail reads`);
  expect(after - before).toBe(0);
  // The object path of runtime.md §18.5 still answers.
  expect((await live(`/katalog/crds/loader/objects/${env.namespace}/l1`)).status).toBe(200);
});

it('serves /katalog/raw and /katalog/enriched (and per entry) behind the same gate, without Secret values, from memory', async () => {
  const json = async (path: string): Promise<Record<string, unknown>> => {
    const answer = await live(path);
    expect(answer.status, path).toBe(200);
    return (await answer.json()) as Record<string, unknown>;
  };
  const raw = await json('/katalog/raw');
  expect(raw).toMatchObject({
    apiVersion: 'orkestra.konductor.io/v1alpha1',
    kind: 'Katalog',
    metadata: { name: 'loader-runtime', version: '1.0.0' },
    spec: { crds: [{ name: 'loader', crossAccess: true }] },
  });
  // As written: no default the loader applies.
  expect((raw['spec'] as { crds: Record<string, unknown>[] }).crds[0]).not.toHaveProperty('workers');
  const enriched = await json('/katalog/enriched');
  expect((enriched['spec'] as { crds: Record<string, unknown>[] }).crds[0]).toMatchObject({
    name: 'loader',
    workers: expect.any(Number),
    resync: expect.any(String),
  });
  const entryRaw = await json('/katalog/loader/raw');
  expect(entryRaw).toMatchObject({
    name: 'loader',
    operatorBox: { onCreate: { secrets: [{ data: { password: '[REDACTED]' } }] } },
  });
  const entryEnriched = await json('/katalog/loader/enriched');
  expect(entryEnriched).toMatchObject({ name: 'loader', workers: expect.any(Number) });
  for (const body of [raw, enriched, entryRaw, entryEnriched])
    expect(JSON.stringify(body)).not.toContain('hunter2-literal');
  for (const path of [
    '/katalog/raw',
    '/katalog/enriched',
    '/katalog/loader/raw',
    '/katalog/loader/enriched',
  ]) {
    expect((await fetch(`http://127.0.0.1:${crossPort}${path}`)).status, path).toBe(401);
    expect((await live(path, 'not-a-token')).status, path).toBe(401);
  }
  const before = await apiRequests();
  for (let i = 0; i < 20; i++)
    for (const path of ['/katalog/raw', '/katalog/enriched', '/katalog/loader/raw'])
      await (await live(path)).arrayBuffer();
  const after = await apiRequests();
  console.log(`live-api: ${after - before} API-server requests for 60 Katalog document reads`);
  expect(after - before).toBe(0);
});

it('reads the peer over HTTP, keeps the last answer while it is down, and clears the condition when it is back', async () => {
  await until('the reader to see the peer', async () => {
    const status = (await processor())['status'] as Record<string, unknown> | undefined;
    return status?.['loaderPhase'] === 'Loading-7' && status['loaderState'] === 'healthy'
      ? status
      : undefined;
  });
  await peer?.shutdown('stopped mid-run');
  peer = undefined;
  const down = await until('CrossSourceUnavailable=True', async () => {
    const cr = await processor();
    return crossCondition(cr)?.status === 'True' ? cr : undefined;
  });
  expect(crossCondition(down)?.message).toContain(`http://127.0.0.1:${crossPort}/katalog/loader/`);
  expect(crossCondition(down)?.message).not.toContain(token);
  // The last good answer is used while the peer is down.
  expect((down['status'] as Record<string, unknown>)['loaderPhase']).toBe('Loading-7');
  peer = await startPeer(crossPort);
  const back = await until('CrossSourceUnavailable=False', async () => {
    const cr = await processor();
    return crossCondition(cr)?.status === 'False' ? cr : undefined;
  });
  expect(crossCondition(back)).toMatchObject({ reason: 'CrossSourcesAvailable' });
  expect((back['status'] as Record<string, unknown>)['loaderPhase']).toBe('Loading-7');
}, 120_000);

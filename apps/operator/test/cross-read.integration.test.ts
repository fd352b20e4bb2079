import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { useControlPlane } from '@orkestra/testenv/vitest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Operator } from '../src/process/operator.js';
import { startInProcessOperator } from './in-process-operator.js';
import { grant, serviceAccountToken } from './service-accounts.js';

// Cross reads on their own port (docs/reference/runtime.md §18.5, ADR 0030), against the real API
// server's TokenReview and SubjectAccessReview: no token 401, a token for another audience 401, a
// token whose user may not `get` the CR 403, one that may 200; the metrics port does not serve them.

const env = useControlPlane();
const group = 'crossread.example.com';
let operator: Operator | undefined;
let cross = '';
let metrics = '';
const tokens: Record<string, string> = {};

const token = (name: string, audiences: string[]): Promise<string> =>
  serviceAccountToken({ kubeConfig: env.kubeConfig, namespace: env.namespace, name, audiences });

function katalog(): string {
  const dir = mkdtempSync(join(tmpdir(), 'orkestra-cross-read-'));
  const file = join(dir, 'katalog.yaml');
  writeFileSync(
    file,
    `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: { name: cross-read }
spec:
  crds:
    db:
      apiTypes: { group: ${group}, version: v1, kind: Db, plural: dbs }
      crossAccess: true
      schema:
        openAPIV3Schema:
          type: object
          x-kubernetes-preserve-unknown-fields: true
    secretdb:
      apiTypes: { group: ${group}, version: v1, kind: SecretDb, plural: secretdbs }
      schema:
        openAPIV3Schema:
          type: object
          x-kubernetes-preserve-unknown-fields: true
`,
  );
  return file;
}

beforeAll(async () => {
  try {
    void env.namespace;
  } catch {
    return; // no control plane: useControlPlane skips every test
  }
  tokens['reader'] = await token('cross-reader', ['orkestra-cross']);
  tokens['nobody'] = await token('cross-nobody', ['orkestra-cross']);
  tokens['apiAudience'] = await token('cross-reader', []);
  tokens['controlCenter'] = await token('cross-reader', ['orkestra-control-center']);
  await grant({
    kubeConfig: env.kubeConfig,
    namespace: env.namespace,
    name: 'db-reader',
    group,
    plural: 'dbs',
    verbs: ['get'],
    serviceAccount: 'cross-reader',
  });
  operator = await startInProcessOperator({
    katalogFile: katalog(),
    cwd: tmpdir(),
    kubeConfig: env.kubeConfig,
    namespace: env.namespace,
    args: ['--metrics-bind-address', '127.0.0.1:0', '--cross-bind-address', '127.0.0.1:0'],
  });
  await operator.synced;
  cross = `http://127.0.0.1:${operator.crossAddress?.port ?? 0}`;
  metrics = `http://127.0.0.1:${operator.metricsAddress?.port ?? 0}`;
  const custom = env.kubeConfig.makeApiClient(CustomObjectsApi);
  await custom.createNamespacedCustomObject({
    group,
    version: 'v1',
    namespace: env.namespace,
    plural: 'dbs',
    body: {
      apiVersion: `${group}/v1`,
      kind: 'Db',
      metadata: { name: 'payments', namespace: env.namespace },
      spec: { connection: 'postgres://root:hunter2@db:5432/pay' },
    },
  });
  const until = Date.now() + 30_000;
  for (;;) {
    const view = (await (await fetch(`${metrics}/katalog`)).json()) as {
      entries: { name: string; cachedObjects: number }[];
    };
    if (view.entries.find((entry) => entry.name === 'db')?.cachedObjects === 1) break;
    if (Date.now() > until) throw new Error('the Db never reached the cache');
    await new Promise((done) => setTimeout(done, 100));
  }
}, 120_000);

afterAll(async () => {
  await operator?.shutdown('test done');
});

const path = (): string => `/katalog/crds/db/objects/${env.namespace}/payments`;
const get = (bearer?: string, base = cross, at = path()): Promise<Response> =>
  fetch(`${base}${at}`, bearer == null ? {} : { headers: { authorization: `Bearer ${bearer}` } });

it('serves a CR to a caller whose token may get it, on the cross port only', async () => {
  expect(operator?.crossAddress?.port).not.toBe(operator?.metricsAddress?.port);
  const answer = await get(tokens['reader']);
  expect(answer.status).toBe(200);
  expect(await answer.json()).toMatchObject({ found: true, name: 'payments', namespace: env.namespace });
  expect((await get(tokens['reader'], metrics)).status).toBe(404);
});

it('answers 401 without a token, or with a token for another audience', async () => {
  const none = await get();
  expect(none.status).toBe(401);
  expect(JSON.stringify(await none.json())).not.toContain('hunter2');
  expect((await get('not-a-token')).status).toBe(401);
  expect((await get(tokens['apiAudience'])).status).toBe(401);
  expect((await get(tokens['controlCenter'])).status).toBe(401);
  // An unknown entry or one without crossAccess says no more than 401 to an unauthenticated caller.
  expect((await get(undefined, cross, `/katalog/crds/secretdb/objects/${env.namespace}/x`)).status).toBe(401);
});

it('answers 403 to a valid token whose user may not get the CR', async () => {
  const refused = await get(tokens['nobody']);
  expect(refused.status).toBe(403);
  expect(JSON.stringify(await refused.json())).not.toContain('hunter2');
  expect(
    (await get(tokens['reader'], cross, `/katalog/crds/secretdb/objects/${env.namespace}/x`)).status,
  ).toBe(403);
});

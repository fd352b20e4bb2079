/**
 * One operator reads another's metrics over the Live API (docs/reference/runtime.md §18.6,
 * katalog.md §15.1.1): two operators on one local control plane. Operator B serves its Live API on
 * the authenticated cross port (TokenReview with the `orkestra-cross` audience, then the `list`
 * SubjectAccessReview per entry). Operator A's Katalog has an `external` call with `protocol:
 * prometheus` to B's `/api/v1/query`, the credential a ServiceAccount token in a Secret
 * (`auth.secretRef`), and B's loopback host let through explicitly (`--allow-private-addresses
 * 127.0.0.1/32`, the guard's rule for a named range). A renders a ConfigMap child and its status
 * from `promValue`; at steady state (A polling every 2 s) neither side makes an API-server request
 * per read (B's count through its own `/api/v1/query`, A's on its `/metrics`, where
 * `orkestra_external_calls_total` counts the reads). B is then stopped: A's CR gets `Ready=False` with `ExternalCallFailed` naming
 * the call and B's address, and keeps reconciling; B restarts on the same port with other
 * workers, and A's CR renders B's new value. The allowance names B's address only: a call to
 * another loopback address is refused by the guard.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { deleteCrd } from '@orkestra/testenv';
import { useControlPlane } from '@orkestra/testenv/vitest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Operator } from '../src/process/operator.js';
import { waitFor } from './e2e/ork-process.js';
import { startInProcessOperator } from './in-process-operator.js';
import { grant, serviceAccountToken } from './service-accounts.js';

const env = useControlPlane();
const groupA = 'peera.test.orkestra.io';
const groupB = 'peerb.test.orkestra.io';
const dir = mkdtempSync(join(tmpdir(), 'orkestra-peer-prometheus-'));
const core = () => env.kubeConfig.makeApiClient(CoreV1Api);
const custom = () => env.kubeConfig.makeApiClient(CustomObjectsApi);

let a: Operator | undefined;
let b: Operator | undefined;
let port = 0;
let token = '';

/** katalogB serves `loader` on the cross port with `workers` workers (B's metric A reads). */
function katalogB(workers: number): string {
  const file = join(dir, `b-${workers}.yaml`);
  writeFileSync(
    file,
    `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: { name: peer-b }
spec:
  crds:
    loader:
      apiTypes: { group: ${groupB}, version: v1, kind: Loader, plural: loaders }
      crossAccess: true
      workers: ${workers}
      schema:
        openAPIV3Schema:
          type: object
          x-kubernetes-preserve-unknown-fields: true
`,
  );
  return file;
}

/** katalogA polls B's `/api/v1/query` every 2 s and renders a child and status from the answer. */
function katalogA(): string {
  const file = join(dir, 'a.yaml');
  writeFileSync(
    file,
    `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: { name: peer-a }
spec:
  crds:
    gauge:
      apiTypes: { group: ${groupA}, version: v1, kind: Gauge, plural: gauges }
      schema:
        openAPIV3Schema:
          type: object
          x-kubernetes-preserve-unknown-fields: true
      requeue: 2s
      queue: { retryBackoff: { initial: 200ms, max: 2s } }
      operatorBox:
        external:
          - name: peer
            protocol: prometheus
            url: http://127.0.0.1:${port}
            query: 'controller_runtime_max_concurrent_reconciles{controller="{{ spec.entry }}"}'
            auth: { secretRef: { name: peer-token, key: token } }
            timeout: 3s
        onReconcile:
          configMaps:
            - name: "{{ metadata.name }}-peer"
              data:
                WORKERS: "{{ promValue external.peer }}"
        status:
          fields:
            - { path: peerWorkers, value: "{{ promValue external.peer }}" }
    stranger:
      apiTypes: { group: ${groupA}, version: v1, kind: Stranger, plural: strangers }
      schema:
        openAPIV3Schema:
          type: object
          x-kubernetes-preserve-unknown-fields: true
      operatorBox:
        external:
          - name: peer
            protocol: prometheus
            url: http://127.0.0.2:${port}
            query: up
            timeout: 3s
`,
  );
  return file;
}

async function startB(workers: number, bind: string): Promise<Operator> {
  const operator = await startInProcessOperator({
    katalogFile: katalogB(workers),
    cwd: dir,
    kubeConfig: env.kubeConfig,
    namespace: env.namespace,
    args: ['--cross-bind-address', bind],
    // Pinned to the namespace, so the `list` review is in it (A's Role is namespaced).
    options: { watchNamespace: env.namespace },
  });
  await operator.synced;
  return operator;
}

/** metricOfB asks B's Live API directly, with A's credential, for the series A reads. */
async function metricOfB(): Promise<string | undefined> {
  const query = encodeURIComponent('controller_runtime_max_concurrent_reconciles{controller="loader"}');
  const answer = await fetch(`http://127.0.0.1:${port}/api/v1/query?query=${query}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const body = (await answer.json()) as { data: { result: { value: [number, string] }[] } };
  return body.data.result[0]?.value[1];
}

/** summed adds up a metric's series as a Prometheus text exposition lists them. */
function summed(text: string, name: string): number {
  let total = 0;
  for (const line of text.split('\n'))
    if (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) total += Number(line.split(' ').at(-1));
  return total;
}

/** requestsOfB is B's count of API-server requests, read through its own Live API. */
async function requestsOfB(): Promise<number> {
  const query = encodeURIComponent('rest_client_requests_total');
  const answer = await fetch(`http://127.0.0.1:${port}/api/v1/query?query=${query}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const body = (await answer.json()) as { data: { result: { value: [number, string] }[] } };
  return body.data.result.reduce((sum, r) => sum + Number(r.value[1]), 0);
}

/** ofA is A's count of `name` on its metrics port. */
async function ofA(name: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${a?.metricsAddress?.port ?? 0}/metrics`)).text();
  return summed(text, name);
}

interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
}

async function gauge(): Promise<{ status?: { peerWorkers?: string; conditions?: Condition[] } }> {
  return (await custom().getNamespacedCustomObject({
    group: groupA,
    version: 'v1',
    namespace: env.namespace,
    plural: 'gauges',
    name: 'g1',
  })) as { status?: { peerWorkers?: string; conditions?: Condition[] } };
}

const ready = (cr: { status?: { conditions?: Condition[] } }): Condition | undefined =>
  cr.status?.conditions?.find((c) => c.type === 'Ready');

beforeAll(async () => {
  try {
    void env.namespace;
  } catch {
    return; // no control plane: useControlPlane skips every test
  }
  // A's credential: a token for B's cross audience, allowed to list B's loaders, in a Secret.
  token = await serviceAccountToken({
    kubeConfig: env.kubeConfig,
    namespace: env.namespace,
    name: 'peer-a',
    audiences: ['orkestra-cross'],
  });
  await grant({
    kubeConfig: env.kubeConfig,
    namespace: env.namespace,
    name: 'peer-a-lists-loaders',
    group: groupB,
    plural: 'loaders',
    verbs: ['list'],
    serviceAccount: 'peer-a',
  });
  await core().createNamespacedSecret({
    namespace: env.namespace,
    body: { metadata: { name: 'peer-token' }, stringData: { token } },
  });
  b = await startB(7, '127.0.0.1:0');
  port = b.crossAddress?.port ?? 0;
  a = await startInProcessOperator({
    katalogFile: katalogA(),
    cwd: dir,
    kubeConfig: env.kubeConfig,
    namespace: env.namespace,
    // B listens on loopback, which the address guard lets through only when named.
    args: [
      ...['--allow-private-addresses', '127.0.0.1/32', '--cross-bind-address', '0'],
      ...['--metrics-bind-address', '127.0.0.1:0'],
    ],
  });
  await a.synced;
}, 180_000);

afterAll(async () => {
  await a?.shutdown('test done');
  await b?.shutdown('test done');
  await deleteCrd(env.kubeConfig, { group: groupA, version: 'v1', kind: 'Gauge', plural: 'gauges' });
  await deleteCrd(env.kubeConfig, { group: groupA, version: 'v1', kind: 'Stranger', plural: 'strangers' });
  await deleteCrd(env.kubeConfig, { group: groupB, version: 'v1', kind: 'Loader', plural: 'loaders' });
});

it('renders a peer operator’s metric read over its Live API, reports the peer down, and recovers', async () => {
  expect(await metricOfB()).toBe('7');
  await custom().createNamespacedCustomObject({
    group: groupA,
    version: 'v1',
    namespace: env.namespace,
    plural: 'gauges',
    body: { apiVersion: `${groupA}/v1`, kind: 'Gauge', metadata: { name: 'g1' }, spec: { entry: 'loader' } },
  });
  const first = await waitFor(
    'A to render B’s metric',
    async () => {
      const cr = await gauge();
      return cr.status?.peerWorkers === '7' && ready(cr)?.status === 'True' ? cr : undefined;
    },
    120_000,
  );
  expect(first.status?.peerWorkers).toBe(await metricOfB());
  const child = await core().readNamespacedConfigMap({ name: 'g1-peer', namespace: env.namespace });
  expect(child.data).toEqual({ WORKERS: '7' });

  // Steady state: A polls B every 2 s. B answers from memory; its token and access reviews, and
  // A's read of the token Secret, are cached 30 s — so neither side makes a request per read.
  const [callsBefore, requestsOfABefore, requestsOfBBefore] = [
    await ofA('orkestra_external_calls_total'),
    await ofA('rest_client_requests_total'),
    await requestsOfB(),
  ];
  const calls = await waitFor(
    'A to poll B ten times',
    async () => {
      const now = await ofA('orkestra_external_calls_total');
      return now - callsBefore >= 10 ? now - callsBefore : undefined;
    },
    120_000,
  );
  const [requestsOfAAfter, requestsOfBAfter] = [await ofA('rest_client_requests_total'), await requestsOfB()];
  console.log(
    `peer-prometheus: ${calls} reads of B's /api/v1/query; API-server requests: B ${requestsOfBAfter - requestsOfBBefore}, A ${requestsOfAAfter - requestsOfABefore} (A's include its status writes)`,
  );
  expect(requestsOfBAfter - requestsOfBBefore).toBeLessThan(calls);

  // B stops: A's next poll fails, and the CR says which call and which address.
  await b?.shutdown('peer stopped');
  b = undefined;
  const down = await waitFor(
    'A to report B unavailable',
    async () => {
      const condition = ready(await gauge());
      return condition?.status === 'False' ? condition : undefined;
    },
    120_000,
  );
  expect(down.reason).toBe('ExternalCallFailed');
  expect(down.message).toContain('external call peer failed');
  expect(down.message).toContain(`(http://127.0.0.1:${port})`);
  expect(down.message).not.toContain(token);

  // B comes back on the same address with other workers: A reads the new value.
  b = await startB(5, `127.0.0.1:${port}`);
  expect(await metricOfB()).toBe('5');
  const back = await waitFor(
    'A to recover and render B’s new metric',
    async () => {
      const cr = await gauge();
      return cr.status?.peerWorkers === '5' && ready(cr)?.status === 'True' ? cr : undefined;
    },
    120_000,
  );
  expect(back.status?.peerWorkers).toBe('5');
  const recovered = await core().readNamespacedConfigMap({ name: 'g1-peer', namespace: env.namespace });
  expect(recovered.data).toEqual({ WORKERS: '5' });
}, 400_000);

it('refuses a loopback address the allowance does not name, at the address guard', async () => {
  await custom().createNamespacedCustomObject({
    group: groupA,
    version: 'v1',
    namespace: env.namespace,
    plural: 'strangers',
    body: { apiVersion: `${groupA}/v1`, kind: 'Stranger', metadata: { name: 's1' } },
  });
  const refused = await waitFor(
    'the call to 127.0.0.2 refused',
    async () => {
      const cr = (await custom().getNamespacedCustomObject({
        group: groupA,
        version: 'v1',
        namespace: env.namespace,
        plural: 'strangers',
        name: 's1',
      })) as { status?: { conditions?: Condition[] } };
      const condition = ready(cr);
      return condition?.status === 'False' ? condition : undefined;
    },
    120_000,
  );
  expect(refused.reason).toBe('ExternalCallFailed');
  expect(refused.message).toContain('refused 127.0.0.2');
  expect(refused.message).toContain(`(http://127.0.0.2:${port})`);
}, 200_000);

/**
 * Upstream's `cross[].source` against a peer operator (docs/reference/runtime.md §14.2 and §18.6,
 * katalog.md §15.2): two operators on one local control plane. Operator B serves `loader` on its
 * authenticated cross port and watches every namespace; A's Role is namespaced, so A's `health`,
 * `metrics` and `info` reads name the namespace (upstream's `source.namespace`) for B's `list`
 * review. Operator A runs an upstream Katalog (`orkestra.orkspace.io/v1`, Go template paths) whose
 * `cross` reads name B by `source: {host, protocol, cacheFor, auth.token: $VAR}` — one read per
 * upstream protocol (cr, health, metrics, info, events), and one by a whole `source.endpoint` —
 * and renders a ConfigMap child from each answer. A reads B through a counting HTTP relay in the
 * test, so the requests B serves are counted: four CRs reading the same sources within `cacheFor`
 * cost one request per URL. A second entry names a loopback address A's allowance does not cover
 * (a relay to B listens there): the address guard refuses it before connecting, and the reading
 * CR gets `CrossSourceUnavailable` naming the address.
 */
import { createServer, request } from 'node:http';
import type { Server } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
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
const groupA = 'srca.test.orkestra.io';
const groupB = 'srcb.test.orkestra.io';
const dir = mkdtempSync(join(tmpdir(), 'orkestra-cross-source-'));
const core = () => env.kubeConfig.makeApiClient(CoreV1Api);
const custom = () => env.kubeConfig.makeApiClient(CustomObjectsApi);
const READERS = ['p1', 'p2', 'p3', 'p4'];

let a: Operator | undefined;
let b: Operator | undefined;
let relay: Server | undefined;
let stranger: Server | undefined;
let token = '';
/** Requests the relay passed on to B, by path. */
const served = new Map<string, number>();
/** Requests that reached the relay on the address A's allowance does not name. */
const strayed = new Map<string, number>();

function write(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

/** katalogA is an upstream Katalog: every `cross` read names B by `source`. */
function katalogA(relayPort: number, strangerPort: number): string {
  const host = `http://127.0.0.1:${relayPort}`;
  const source = (protocol: string, namespace = '') =>
    `{ host: "${host}", protocol: ${protocol}, ${namespace}cacheFor: 300s, auth: { token: $PEER_TOKEN } }`;
  // Upstream's `source.namespace`: the namespace B reviews A's `list` in (A's Role is namespaced).
  const inNamespace = `namespace: ${env.namespace}, `;
  const one = `{ name: "{{ .spec.loader }}", namespace: ${env.namespace} }`;
  return write(
    'a.yaml',
    `apiVersion: orkestra.orkspace.io/v1
kind: Katalog
metadata:
  name: processor-runtime
spec:
  crds:
    processor:
      apiTypes: { group: ${groupA}, version: v1, kind: Processor, plural: processors }
      operatorBox:
        cross:
          - { crd: loader, selector: ${one}, source: ${source('cr')}, as: loaderCR }
          - { crd: loader, source: ${source('health', inNamespace)}, as: loaderHealth }
          - { crd: loader, source: ${source('metrics', inNamespace)}, as: loaderMetrics }
          - { crd: loader, source: ${source('info', inNamespace)}, as: loaderInfo }
          - { crd: loader, selector: ${one}, source: ${source('events')}, as: loaderEvents }
          - crd: loader
            source:
              endpoint: "${host}/katalog/loader/cr/${env.namespace}/{{ .spec.loader }}"
              cacheFor: 300s
              auth: { token: $PEER_TOKEN }
            as: loaderRaw
        onReconcile:
          configMaps:
            - name: "{{ .metadata.name }}-cr"
              data:
                PHASE: "{{ .cross.loaderCR.status.phase }}"
                BATCH: "{{ .cross.loaderCR.spec.batch }}"
                CONF_READY: "{{ .cross.loaderCR.children.configmap.ready }}"
            - name: "{{ .metadata.name }}-health"
              data: { STATE: "{{ .cross.loaderHealth.state }}" }
            - name: "{{ .metadata.name }}-metrics"
              data: { WORKERS: "{{ .cross.loaderMetrics.metrics.workers }}" }
            - name: "{{ .metadata.name }}-info"
              data: { NAME: "{{ .cross.loaderInfo.name }}" }
            - name: "{{ .metadata.name }}-events"
              data: { FOUND: "{{ .cross.loaderEvents.found }}", NAME: "{{ .cross.loaderEvents.name }}" }
            - name: "{{ .metadata.name }}-raw"
              data: { PHASE: "{{ .cross.loaderRaw.status.phase }}" }
    poller:
      apiTypes: { group: ${groupA}, version: v1, kind: Poller, plural: pollers }
      operatorBox:
        cross:
          - crd: loader
            selector: { name: l2, namespace: ${env.namespace} }
            source: { host: "${host}", protocol: cr, cacheFor: 2s, auth: { token: $PEER_TOKEN } }
            as: loader
        status:
          fields:
            - path: loaderPhase
              value: "{{ .cross.loader.status.phase }}"
    picker:
      apiTypes: { group: ${groupA}, version: v1, kind: Picker, plural: pickers }
      operatorBox:
        cross:
          # Upstream's label form over HTTP (ADR 0101): B's Live API lists the CRs with the label.
          - crd: loader
            selector: { matchLabels: { fleet: "{{ .spec.fleet }}" }, namespace: ${env.namespace} }
            source: { host: "${host}", protocol: cr, cacheFor: 2s, auth: { token: $PEER_TOKEN } }
            as: oldest
          - crd: loader
            strategy: all
            selector: { matchLabels: { fleet: "{{ .spec.fleet }}" }, namespace: ${env.namespace} }
            source: { host: "${host}", protocol: cr, cacheFor: 2s, auth: { token: $PEER_TOKEN } }
            as: fleet
          # \`all\` with a name (ADR 0108): that one CR, as a list of one (or none).
          - crd: loader
            strategy: all
            selector: { name: "{{ .spec.named }}", namespace: ${env.namespace} }
            source: { host: "${host}", protocol: cr, cacheFor: 2s, auth: { token: $PEER_TOKEN } }
            as: named
        status:
          fields:
            - { path: oldest, value: "{{ .cross.oldest.name }}" }
            - { path: count, value: "{{ len .cross.fleet }}" }
            - { path: batches, value: "{{ range .cross.fleet }}{{ .spec.batch }},{{ end }}" }
            - { path: namedCount, value: "{{ len .cross.named }}" }
            - { path: namedPhases, value: "{{ range .cross.named }}{{ .status.phase }},{{ end }}" }
    stray:
      apiTypes: { group: ${groupA}, version: v1, kind: Stray, plural: strays }
      operatorBox:
        cross:
          - crd: loader
            source: { host: "http://127.0.0.2:${strangerPort}", protocol: health, cacheFor: 5s }
            as: stray
`,
  );
}

/** relayTo listens on `address`, passes every request on to B's cross port and counts it by path in `counts`. */
async function relayTo(port: number, address: string, counts: Map<string, number>): Promise<Server> {
  const server = createServer((incoming, outgoing) => {
    const path = incoming.url ?? '';
    counts.set(path, (counts.get(path) ?? 0) + 1);
    const forward = request(
      { host: '127.0.0.1', port, path, method: incoming.method, headers: incoming.headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forward.on('error', () => outgoing.writeHead(502).end());
    incoming.pipe(forward);
  });
  await new Promise<void>((done) => server.listen(0, address, done));
  return server;
}

/** ofB asks B's Live API directly with A's credential. */
async function ofB(path: string): Promise<Record<string, unknown>> {
  const answer = await fetch(`http://127.0.0.1:${b?.crossAddress?.port ?? 0}${path}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(answer.status).toBe(200);
  return (await answer.json()) as Record<string, unknown>;
}

/** apiRequests is an operator's count of API-server requests, on its metrics port. */
async function apiRequests(operator: Operator | undefined): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${operator?.metricsAddress?.port ?? 0}/metrics`)).text();
  let total = 0;
  for (const line of text.split('\n'))
    if (line.startsWith('rest_client_requests_total{') || line.startsWith('rest_client_requests_total '))
      total += Number(line.split(' ').at(-1));
  return total;
}

/** apiRequestsByMethod is an operator's count of API-server requests per HTTP method (GET reads, POST reviews). */
async function apiRequestsByMethod(operator: Operator | undefined): Promise<Record<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${operator?.metricsAddress?.port ?? 0}/metrics`)).text();
  const out: Record<string, number> = {};
  for (const line of text.split('\n')) {
    if (!line.startsWith('rest_client_requests_total{')) continue;
    const method = /method="([A-Z]+)"/.exec(line)?.[1] ?? '?';
    out[method] = (out[method] ?? 0) + Number(line.split(' ').at(-1));
  }
  return out;
}

interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
}

beforeAll(async () => {
  try {
    void env.namespace;
  } catch {
    return; // no control plane: useControlPlane skips every test
  }
  // A's credential: a token for B's cross audience, allowed to get and list B's loaders.
  token = await serviceAccountToken({
    kubeConfig: env.kubeConfig,
    namespace: env.namespace,
    name: 'source-a',
    audiences: ['orkestra-cross'],
  });
  await grant({
    kubeConfig: env.kubeConfig,
    namespace: env.namespace,
    name: 'source-a-reads-loaders',
    group: groupB,
    plural: 'loaders',
    verbs: ['get', 'list'],
    serviceAccount: 'source-a',
  });
  b = await startInProcessOperator({
    katalogFile: write(
      'b.yaml',
      `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: { name: loader-runtime }
spec:
  crds:
    loader:
      apiTypes: { group: ${groupB}, version: v1, kind: Loader, plural: loaders }
      crossAccess: true
      workers: 3
      schema:
        openAPIV3Schema: { type: object, x-kubernetes-preserve-unknown-fields: true }
      operatorBox:
        onReconcile:
          configMaps:
            - name: "{{ metadata.name }}-conf"
              data: { BATCH: "{{ spec.batch }}" }
        status:
          fields:
            - { path: phase, value: "Loading-{{ spec.batch }}" }
`,
    ),
    cwd: dir,
    kubeConfig: env.kubeConfig,
    namespace: env.namespace,
    // B watches every namespace (the chart's default): a `list` review without a namespace is cluster-wide.
    args: ['--cross-bind-address', '127.0.0.1:0', '--metrics-bind-address', '127.0.0.1:0'],
  });
  await b.synced;
  await custom().createNamespacedCustomObject({
    group: groupB,
    version: 'v1',
    namespace: env.namespace,
    plural: 'loaders',
    body: {
      apiVersion: `${groupB}/v1`,
      kind: 'Loader',
      metadata: { name: 'l1', labels: { fleet: 'a' } },
      spec: { batch: 9 },
    },
  });
  await custom().createNamespacedCustomObject({
    group: groupB,
    version: 'v1',
    namespace: env.namespace,
    plural: 'loaders',
    body: {
      apiVersion: `${groupB}/v1`,
      kind: 'Loader',
      metadata: { name: 'l2', labels: { fleet: 'a' } },
      spec: { batch: 2 },
    },
  });
  // B has reconciled l1 before A reads it: A's answers are cached for the whole test.
  await waitFor(
    'B to reconcile l1',
    async () => {
      const cr = await ofB(`/katalog/loader/cr/${env.namespace}/l1`);
      const health = await ofB(`/katalog/loader/health?namespace=${env.namespace}`);
      const children = cr['children'] as Record<string, { ready?: boolean }> | undefined;
      return (cr['status'] as { phase?: string } | undefined)?.phase === 'Loading-9' &&
        children?.['configmap']?.ready === true &&
        health['state'] === 'healthy'
        ? true
        : undefined;
    },
    120_000,
  );
  relay = await relayTo(b.crossAddress?.port ?? 0, '127.0.0.1', served);
  // The same relay on another loopback address: reachable, but not named by A's allowance.
  stranger = await relayTo(b.crossAddress?.port ?? 0, '127.0.0.2', strayed);
  a = await startInProcessOperator({
    katalogFile: katalogA((relay.address() as AddressInfo).port, (stranger.address() as AddressInfo).port),
    cwd: dir,
    kubeConfig: env.kubeConfig,
    namespace: env.namespace,
    // The relay listens on loopback, which the address guard lets through only when named.
    args: [
      ...['--allow-private-addresses', '127.0.0.1/32', '--cross-bind-address', '0'],
      ...['--metrics-bind-address', '127.0.0.1:0'],
    ],
    env: { PEER_TOKEN: token },
    options: { watchNamespace: env.namespace },
  });
  await a.synced;
}, 240_000);

afterAll(async () => {
  await a?.shutdown('test done');
  await b?.shutdown('test done');
  await new Promise((done) => relay?.close(done) ?? done(undefined));
  await new Promise((done) => stranger?.close(done) ?? done(undefined));
  await deleteCrd(env.kubeConfig, { group: groupA, version: 'v1', kind: 'Processor', plural: 'processors' });
  await deleteCrd(env.kubeConfig, { group: groupA, version: 'v1', kind: 'Stray', plural: 'strays' });
  await deleteCrd(env.kubeConfig, { group: groupA, version: 'v1', kind: 'Poller', plural: 'pollers' });
  await deleteCrd(env.kubeConfig, { group: groupA, version: 'v1', kind: 'Picker', plural: 'pickers' });
  await deleteCrd(env.kubeConfig, { group: groupB, version: 'v1', kind: 'Loader', plural: 'loaders' });
});

it('renders a child from each upstream protocol read from a peer, one request per source within cacheFor', async () => {
  await Promise.all(
    READERS.map((name) =>
      custom().createNamespacedCustomObject({
        group: groupA,
        version: 'v1',
        namespace: env.namespace,
        plural: 'processors',
        body: { apiVersion: `${groupA}/v1`, kind: 'Processor', metadata: { name }, spec: { loader: 'l1' } },
      }),
    ),
  );
  const data = async (name: string) =>
    (await core().readNamespacedConfigMap({ name, namespace: env.namespace })).data ?? {};
  for (const reader of READERS) {
    await waitFor(
      `${reader}'s children`,
      async () => {
        const events = await data(`${reader}-events`);
        return events['FOUND'] === 'true' ? true : undefined;
      },
      120_000,
    );
    // Upstream's per-kind readiness of the peer's children (ADR 0101): B's ConfigMap child exists.
    expect(await data(`${reader}-cr`)).toEqual({ PHASE: 'Loading-9', BATCH: '9', CONF_READY: 'true' });
    // Each child holds what B's Live API answers at that path.
    const health = await ofB(`/katalog/loader/health?namespace=${env.namespace}`);
    expect(await data(`${reader}-health`)).toEqual({ STATE: String(health['state']) });
    const info = await ofB(`/katalog/loader?namespace=${env.namespace}`);
    expect(await data(`${reader}-metrics`)).toEqual({
      WORKERS: String((info['metrics'] as { workers: number }).workers),
    });
    expect((await data(`${reader}-metrics`))['WORKERS']).toBe('3');
    expect(await data(`${reader}-info`)).toEqual({ NAME: 'loader' });
    expect(await data(`${reader}-events`)).toEqual({ FOUND: 'true', NAME: 'l1' });
    expect(await data(`${reader}-raw`)).toEqual({ PHASE: 'Loading-9' });
  }
  // Four CRs, each reconciled at least once, read six sources: B served one request per URL.
  const paths = {
    cr: `/katalog/loader/cr/${env.namespace}/l1`,
    health: `/katalog/loader/health?namespace=${env.namespace}`,
    metrics: `/katalog/loader?namespace=${env.namespace}`,
    info: `/katalog/loader?namespace=${env.namespace}`,
    events: `/katalog/loader/cr/${env.namespace}/l1/events`,
  } satisfies Record<'cr' | 'health' | 'metrics' | 'info' | 'events', string>;
  console.log(
    `cross-source: B served ${JSON.stringify(Object.fromEntries(served))} for ${READERS.length} readers`,
  );
  expect(Object.fromEntries(served)).toEqual({
    // `cr` and the whole `endpoint` naming the same CR are one URL, and one request.
    [paths.cr]: 1,
    [paths.health]: 1,
    // `metrics` and `info` are one path, and one request.
    [paths.metrics]: 1,
    [paths.events]: 1,
  });
}, 300_000);

it('refuses a loopback address the allowance does not name, as an unavailable source', async () => {
  await custom().createNamespacedCustomObject({
    group: groupA,
    version: 'v1',
    namespace: env.namespace,
    plural: 'strays',
    body: { apiVersion: `${groupA}/v1`, kind: 'Stray', metadata: { name: 's1' } },
  });
  const condition = await waitFor(
    'the stray read refused',
    async () => {
      const cr = (await custom().getNamespacedCustomObject({
        group: groupA,
        version: 'v1',
        namespace: env.namespace,
        plural: 'strays',
        name: 's1',
      })) as { status?: { conditions?: Condition[] } };
      const found = cr.status?.conditions?.find((c) => c.type === 'CrossSourceUnavailable');
      return found?.status === 'True' ? found : undefined;
    },
    120_000,
  );
  expect(condition.message).toContain('cross.stray');
  expect(condition.message).toContain('127.0.0.2');
  expect(condition.message).toMatch(/refused 127\.0\.0\.2/);
  // The guard refused before connecting: the relay there, which would have answered, saw nothing.
  expect(strayed.size).toBe(0);
}, 200_000);

it('costs neither operator an API-server request per read at steady state', async () => {
  await custom().createNamespacedCustomObject({
    group: groupA,
    version: 'v1',
    namespace: env.namespace,
    plural: 'pollers',
    body: { apiVersion: `${groupA}/v1`, kind: 'Poller', metadata: { name: 'q1' } },
  });
  const path = `/katalog/loader/cr/${env.namespace}/l2`;
  await waitFor(
    'the poller to render l2',
    async () => {
      const cr = (await custom().getNamespacedCustomObject({
        group: groupA,
        version: 'v1',
        namespace: env.namespace,
        plural: 'pollers',
        name: 'q1',
      })) as { status?: { loaderPhase?: string } };
      return cr.status?.loaderPhase === 'Loading-2' ? true : undefined;
    },
    120_000,
  );
  // The answer expires every 2 s and re-queues the poller, which reads B again: count ten reads.
  const [readsBefore, ofABefore, ofBBefore] = [
    served.get(path) ?? 0,
    await apiRequests(a),
    await apiRequests(b),
  ];
  const reads = await waitFor(
    'ten reads of B',
    () => {
      const now = (served.get(path) ?? 0) - readsBefore;
      return now >= 10 ? now : undefined;
    },
    120_000,
  );
  // Both count their requests (start-up made some), so a zero below is a measurement.
  expect(ofABefore).toBeGreaterThan(0);
  expect(ofBBefore).toBeGreaterThan(0);
  const [ofA, ofB] = [(await apiRequests(a)) - ofABefore, (await apiRequests(b)) - ofBBefore];
  console.log(`cross-source: ${reads} reads of B's ${path}; API-server requests: A ${ofA}, B ${ofB}`);
  // B answers from its cache and caches its token and access reviews 30 s; A's reads touch no API.
  expect(ofB).toBeLessThan(reads);
  expect(ofA).toBeLessThan(reads);
}, 300_000);

it('lists a peer’s CRs by label over HTTP, first and all as in process, and names a label it cannot send', async () => {
  const picker = async (name: string) =>
    (await custom().getNamespacedCustomObject({
      group: groupA,
      version: 'v1',
      namespace: env.namespace,
      plural: 'pickers',
      name,
    })) as {
      status?: {
        oldest?: string;
        count?: unknown;
        batches?: string;
        namedCount?: unknown;
        namedPhases?: string;
        conditions?: Condition[];
      };
    };
  const create = (name: string, fleet: string, named = 'l2') =>
    custom().createNamespacedCustomObject({
      group: groupA,
      version: 'v1',
      namespace: env.namespace,
      plural: 'pickers',
      body: { apiVersion: `${groupA}/v1`, kind: 'Picker', metadata: { name }, spec: { fleet, named } },
    });
  await create('k1', 'a');
  const status = await waitFor(
    'k1 to list the fleet',
    async () => {
      const found = (await picker('k1')).status;
      return found?.oldest === 'l1' && String(found.count) === '2' ? found : undefined;
    },
    120_000,
  );
  // l1 was created before l2: `first` is l1, `all` lists both oldest first.
  expect(status.batches).toBe('9,2,');
  // `all` by name (ADR 0108): B's one CR at its own path, as a list of one.
  expect([String(status.namedCount), status.namedPhases]).toEqual(['1', 'Loading-2,']);
  expect(served.get(`/katalog/loader/cr/${env.namespace}/l2`) ?? 0).toBeGreaterThan(0);
  expect(status.conditions?.find((c) => c.type === 'CrossSourceUnavailable')?.status ?? 'False').toBe(
    'False',
  );
  // A name B has no CR for is an empty list, not a failure.
  await create('k3', 'a', 'l9');
  const none = await waitFor(
    'k3 to read no such loader',
    async () => {
      const found = (await picker('k3')).status;
      return found?.namedCount != null && String(found.count) === '2' ? found : undefined;
    },
    120_000,
  );
  expect([String(none.namedCount), none.namedPhases ?? '']).toEqual(['0', '']);
  expect(none.conditions?.find((c) => c.type === 'CrossSourceUnavailable')?.status ?? 'False').toBe('False');
  const list = `/katalog/loader/cr?labelSelector=fleet%3Da&detail=true&namespace=${env.namespace}`;
  // `first` and `all` of one selector are one URL, one request per cacheFor.
  expect(served.get(list) ?? 0).toBeGreaterThan(0);
  // A label value a selector cannot carry is named on the condition; nothing is asked of B.
  await create('k2', 'a,b');
  const condition = await waitFor(
    'k2 refused',
    async () => {
      const found = (await picker('k2')).status?.conditions?.find((c) => c.type === 'CrossSourceUnavailable');
      return found?.status === 'True' ? found : undefined;
    },
    120_000,
  );
  expect(condition.message).toContain('cross.oldest');
  expect(condition.message).toContain('selector.matchLabels.fleet');
  expect([...served.keys()].some((path) => path.includes('a%2Cb') || path.includes('a,b'))).toBe(false);
  // Steady state: B answers the label list from its cache, A from its answer cache.
  const [readsBefore, ofBBefore, byMethodBefore] = [
    served.get(list) ?? 0,
    await apiRequests(b),
    await apiRequestsByMethod(b),
  ];
  const reads = await waitFor(
    'five list reads of B',
    () => {
      const now = (served.get(list) ?? 0) - readsBefore;
      return now >= 5 ? now : undefined;
    },
    120_000,
  );
  const ofB = (await apiRequests(b)) - ofBBefore;
  const byMethod = Object.fromEntries(
    Object.entries(await apiRequestsByMethod(b)).map(([method, n]) => [
      method,
      n - (byMethodBefore[method] ?? 0),
    ]),
  );
  console.log(
    `cross-source: ${reads} label-list reads of B; API-server requests of B: ${ofB} ${JSON.stringify(byMethod)}`,
  );
  expect(ofB).toBeLessThan(reads);
  // B lists from its cache: no GET (a read or list of the API) for the label lists.
  expect(byMethod['GET'] ?? 0).toBe(0);
}, 300_000);

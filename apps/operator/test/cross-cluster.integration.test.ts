import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, CustomObjectsApi, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import type { KubeConfig } from '@kubernetes/client-node';
import { useControlPlane } from '@orkestra/testenv/vitest';
import type { ControlPlaneFixture } from '@orkestra/testenv/vitest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Operator } from '../src/process/operator.js';
import { startInProcessOperator } from './in-process-operator.js';

// A cross-cluster read (ADR 0043, docs/reference/katalog.md §15.2, runtime.md §14.2): the peer runs
// on its own control plane and serves `loader` CRs on its cross port; the reader runs on another
// control plane with an upstream Katalog and reads them through the peer's Live API, named the way
// upstream documents it (`source: {host, protocol: cr, cacheFor, auth.token: $VAR}`), with a token
// of the peer's cluster, which the peer checks with its own TokenReview and SubjectAccessReview.
// Neither operator can see the other's API server. The peer is then stopped: the reading CR gets
// `CrossSourceUnavailable` naming the read and the peer's address, keeps the last answer, and
// recovers when the peer restarts on the same address. A second read names the peer in upstream's
// documented cross-cluster form, a whole `source.endpoint` whose address is `$PEER_ADDRESS` from the
// reader's environment.

const home = useControlPlane();
const away = useControlPlane({ workloads: true });
const group = 'crosscluster.example.com';
let peer: Operator | undefined;
let reader: Operator | undefined;
let peerPort = 0;
const dir = mkdtempSync(join(tmpdir(), 'orkestra-cross-cluster-'));

function write(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

async function start(
  plane: ControlPlaneFixture,
  katalog: string,
  extra: string[],
  environment: Record<string, string>,
): Promise<Operator> {
  const operator = await startInProcessOperator({
    katalogFile: katalog,
    cwd: dir,
    kubeConfig: plane.kubeConfig,
    namespace: plane.namespace,
    args: extra,
    env: environment,
    options: { watchNamespace: plane.namespace },
  });
  await operator.synced;
  return operator;
}

const custom = (kubeConfig: KubeConfig) => kubeConfig.makeApiClient(CustomObjectsApi);

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 200));
  }
}

beforeAll(async () => {
  try {
    void home.namespace;
    void away.namespace;
  } catch {
    return; // no control plane: useControlPlane skips every test
  }
  expect(away.server).not.toBe(home.server);
  // On the peer's cluster: a ServiceAccount for the reader, allowed to read loaders, and its token.
  const core = away.kubeConfig.makeApiClient(CoreV1Api);
  await core.createNamespacedServiceAccount({
    namespace: away.namespace,
    body: { metadata: { name: 'reader' } },
  });
  const rbac = away.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
  await rbac.createNamespacedRole({
    namespace: away.namespace,
    body: {
      metadata: { name: 'loader-reader' },
      rules: [{ apiGroups: [group], resources: ['loaders'], verbs: ['get', 'list'] }],
    },
  });
  await rbac.createNamespacedRoleBinding({
    namespace: away.namespace,
    body: {
      metadata: { name: 'loader-reader' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'loader-reader' },
      subjects: [{ kind: 'ServiceAccount', name: 'reader', namespace: away.namespace }],
    },
  });
  const minted = await core.createNamespacedServiceAccountToken({
    name: 'reader',
    namespace: away.namespace,
    body: { spec: { audiences: ['orkestra-cross'], expirationSeconds: 3600 } },
  });
  peer = await startPeer('127.0.0.1:0');
  await custom(away.kubeConfig).createNamespacedCustomObject({
    group,
    version: 'v1',
    namespace: away.namespace,
    plural: 'loaders',
    body: { apiVersion: `${group}/v1`, kind: 'Loader', metadata: { name: 'l1' }, spec: { batch: 9 } },
  });
  peerPort = peer.crossAddress?.port ?? 0;
  const host = `http://127.0.0.1:${peerPort}`;
  reader = await start(
    home,
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
            selector: { name: "{{ .spec.loader }}", namespace: ${away.namespace} }
            source:
              host: "${host}"
              protocol: cr
              cacheFor: 10s
              auth: { token: $PEER_TOKEN }
            as: loader
          # Upstream's documented cross-cluster form: a whole endpoint, the peer's address from the
          # operator's environment (ADR 0098).
          - crd: loader
            source:
              endpoint: "http://$PEER_ADDRESS/katalog/loader/cr/${away.namespace}/{{ .spec.loader }}"
              cacheFor: 10s
              auth: { token: $PEER_TOKEN }
            as: loaderByEndpoint
        status:
          fields:
            - path: loaderPhase
              value: "{{ .cross.loader.status.phase }}"
            - path: loaderPhaseByEndpoint
              value: "{{ .cross.loaderByEndpoint.status.phase }}"
`,
    ),
    ['--cross-bind-address', '0', '--allow-private-addresses', '127.0.0.0/8'],
    { PEER_TOKEN: minted.status?.token ?? '', PEER_ADDRESS: `127.0.0.1:${peerPort}` },
  );
  await custom(home.kubeConfig).createNamespacedCustomObject({
    group,
    version: 'v1',
    namespace: home.namespace,
    plural: 'processors',
    body: { apiVersion: `${group}/v1`, kind: 'Processor', metadata: { name: 'p1' }, spec: { loader: 'l1' } },
  });
}, 240_000);

/** startPeer starts the peer on the away cluster, its cross port at `bind`. */
async function startPeer(bind: string): Promise<Operator> {
  return start(
    away,
    write(
      'peer.yaml',
      `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: { name: loader-runtime }
spec:
  crds:
    loader:
      apiTypes: { group: ${group}, version: v1, kind: Loader, plural: loaders }
      crossAccess: true
      schema:
        openAPIV3Schema: { type: object, x-kubernetes-preserve-unknown-fields: true }
      operatorBox:
        status:
          fields:
            - { path: phase, value: "Loading-{{ spec.batch }}" }
`,
    ),
    ['--cross-bind-address', bind],
    {},
  );
}

afterAll(async () => {
  await reader?.shutdown('test done');
  await peer?.shutdown('test done');
});

it('reads a CR served by an operator of another cluster through its Live API', async () => {
  const status = await until('the loader phase on the reader', async () => {
    const cr = (await custom(home.kubeConfig).getNamespacedCustomObject({
      group,
      version: 'v1',
      namespace: home.namespace,
      plural: 'processors',
      name: 'p1',
    })) as { status?: Record<string, unknown> };
    return cr.status?.['loaderPhase'] === 'Loading-9' && cr.status['loaderPhaseByEndpoint'] === 'Loading-9'
      ? cr.status
      : undefined;
  });
  expect(status['loaderPhase']).toBe('Loading-9');
  expect(status['loaderPhaseByEndpoint']).toBe('Loading-9');
  // The kind exists only on the peer's cluster: the reader did not read it from its own API server.
  await expect(
    custom(home.kubeConfig).getNamespacedCustomObject({
      group,
      version: 'v1',
      namespace: away.namespace,
      plural: 'loaders',
      name: 'l1',
    }),
  ).rejects.toThrow();
  // A spec change on the peer's cluster reaches the reader once its cached answer expires.
  await custom(away.kubeConfig).patchNamespacedCustomObject({
    group,
    version: 'v1',
    namespace: away.namespace,
    plural: 'loaders',
    name: 'l1',
    body: [{ op: 'replace', path: '/spec/batch', value: 10 }],
  });
  await until('the new phase on the reader', async () => {
    // A spec change of the reader's own CR re-queues it after the cached answer expired.
    await custom(home.kubeConfig).patchNamespacedCustomObject({
      group,
      version: 'v1',
      namespace: home.namespace,
      plural: 'processors',
      name: 'p1',
      body: [{ op: 'replace', path: '/spec/nudge', value: String(Date.now()) }],
    });
    const cr = (await custom(home.kubeConfig).getNamespacedCustomObject({
      group,
      version: 'v1',
      namespace: home.namespace,
      plural: 'processors',
      name: 'p1',
    })) as { status?: Record<string, unknown> };
    return cr.status?.['loaderPhase'] === 'Loading-10' ? true : undefined;
  });
}, 180_000);

interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
}

async function processor(): Promise<{
  status?: { loaderPhase?: string; loaderPhaseByEndpoint?: string; conditions?: Condition[] };
}> {
  return (await custom(home.kubeConfig).getNamespacedCustomObject({
    group,
    version: 'v1',
    namespace: home.namespace,
    plural: 'processors',
    name: 'p1',
  })) as { status?: { loaderPhase?: string; loaderPhaseByEndpoint?: string; conditions?: Condition[] } };
}

const unavailable = (cr: { status?: { conditions?: Condition[] } }): Condition | undefined =>
  cr.status?.conditions?.find((c) => c.type === 'CrossSourceUnavailable');

it('reports a stopped peer as an unavailable source, keeps the last answer, and recovers on restart', async () => {
  const before = await until('the reader to show the peer’s phase', async () => {
    const cr = await processor();
    return cr.status?.loaderPhase?.startsWith('Loading-') === true ? cr : undefined;
  });
  const lastPhase = before.status?.loaderPhase;
  await peer?.shutdown('peer stopped');
  peer = undefined;
  const downCr = await until('the reader to report the peer unavailable', async () => {
    const cr = await processor();
    return unavailable(cr)?.status === 'True' ? cr : undefined;
  });
  const down = unavailable(downCr);
  expect(down?.reason).toBe('CrossSourceUnavailable');
  expect(down?.message).toContain('cross.loader');
  expect(down?.message).toContain(`http://127.0.0.1:${peerPort}/katalog/loader/cr/${away.namespace}/l1`);
  // The status written with the condition still holds the last good answer (for another cacheFor).
  expect(down?.message).toContain('the last answer is used');
  expect(downCr.status?.loaderPhase).toBe(lastPhase);

  // While the peer is down its CR changes; the restarted peer serves the new phase on the same address.
  await custom(away.kubeConfig).patchNamespacedCustomObject({
    group,
    version: 'v1',
    namespace: away.namespace,
    plural: 'loaders',
    name: 'l1',
    body: [{ op: 'replace', path: '/spec/batch', value: 11 }],
  });
  peer = await startPeer(`127.0.0.1:${peerPort}`);
  const back = await until(
    'the reader to recover',
    async () => {
      const cr = await processor();
      return cr.status?.loaderPhase === 'Loading-11' &&
        cr.status.loaderPhaseByEndpoint === 'Loading-11' &&
        unavailable(cr)?.status === 'False'
        ? cr
        : undefined;
    },
    120_000,
  );
  expect(unavailable(back)?.reason).toBe('CrossSourcesAvailable');
}, 300_000);

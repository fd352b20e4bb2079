import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  AppsV1Api,
  CoordinationV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
} from '@kubernetes/client-node';
import { loadKatalog } from '@orkestra/types';
import { useControlPlane } from '@orkestra/testenv/vitest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { installCrds } from '../../src/process/install-crds.js';
import {
  buildOrk,
  forbiddenLines,
  serviceAccountKubeConfig,
  spawnOrk,
  tempDir,
  uniqueSuffix,
  waitFor,
  websiteKatalog,
} from './ork-process.js';
import type { LogLine, OrkProcess } from './ork-process.js';
import { createKubeClient } from '@orkestra/registry';

// Two `ork run` processes with the default timings (lease 15 s, renew deadline 10 s, retry 2 s):
// one leads, the other is a warm standby that reports ready; kill -9 of the leader hands over
// after the lease expires; SIGTERM of a leader releases the Lease for an immediate handover.
// Takeover times are printed, not asserted: they depend on the machine.

const env = useControlPlane();
const suffix = uniqueSuffix();
const website = websiteKatalog(suffix);
const dir = tempDir();
const katalogFile = join(dir, 'katalog.yaml');
const processes: OrkProcess[] = [];
let kubeconfig = '';

beforeAll(async () => {
  buildOrk();
  writeFileSync(katalogFile, website.text);
  const loaded = loadKatalog({ text: website.text });
  if (!loaded.ok) throw new Error('the derived website Katalog does not load');
  await installCrds(createKubeClient({ kubeConfig: env.kubeConfig }), loaded.katalog);
  kubeconfig = (await serviceAccountKubeConfig(env.kubeConfig, katalogFile, env.namespace, dir)).file;
}, 600_000);

afterAll(() => {
  for (const proc of processes) if (proc.child.exitCode == null) proc.child.kill('SIGKILL');
});

function start(): OrkProcess {
  const proc = spawnOrk([
    'run',
    katalogFile,
    '--kubeconfig',
    kubeconfig,
    '--namespace',
    env.namespace,
    '--metrics-bind-address',
    '127.0.0.1:0',
    '--health-probe-bind-address',
    '127.0.0.1:0',
    '--log-level',
    'debug',
  ]);
  processes.push(proc);
  return proc;
}

const becameLeader = (l: LogLine): boolean => l.msg === 'became leader';
const reconciledHello = (l: LogLine): boolean =>
  l['name'] === 'hello' && (l.msg === 'reconciled' || l.msg === 'reconciled (no change)');

async function readyz(proc: OrkProcess): Promise<number> {
  return (await fetch(`${await proc.healthUrl()}/readyz`)).status;
}

async function deploymentReplicas(): Promise<number | undefined> {
  const apps = env.kubeConfig.makeApiClient(AppsV1Api);
  return (await apps.readNamespacedDeployment({ name: 'hello-web', namespace: env.namespace })).spec
    ?.replicas;
}

it('keeps a warm standby that takes over after kill -9 of the leader, and at once after SIGTERM', async () => {
  const ns = env.namespace;
  const custom = env.kubeConfig.makeApiClient(CustomObjectsApi);
  const cr = { group: website.group, version: 'v1alpha1', namespace: ns, plural: 'websites' };
  const leases = env.kubeConfig.makeApiClient(CoordinationV1Api);
  const leaseName = `orkestra-${website.name}`;

  const a = start();
  await a.waitForLog('a to lead', becameLeader);
  const b = start();
  await b.waitForLog('b to sync its informers', (l) => l.msg === 'operator ready');
  // The standby is ready (warm informers) but does not lead.
  await waitFor('b /readyz 200', async () => ((await readyz(b)) === 200 ? true : undefined));
  expect(b.logs.some(becameLeader)).toBe(false);

  await custom.createNamespacedCustomObject({
    ...cr,
    body: {
      apiVersion: `${website.group}/v1alpha1`,
      kind: 'Website',
      metadata: { name: 'hello', namespace: ns },
      spec: { image: 'nginx:1.27', replicas: 2 },
    },
  });
  await waitFor('the leader to create the Deployment', async () =>
    (await deploymentReplicas()) === 2 ? true : undefined,
  );
  await a.waitForLog('a to reconcile hello', reconciledHello);
  const standbyView = (await (await fetch(`${await b.metricsUrl()}/katalog`)).json()) as {
    entries: { name: string; cachedObjects: number }[];
  };
  expect(standbyView.entries).toContainEqual(expect.objectContaining({ name: 'website', cachedObjects: 1 })); // the standby's cache is warm
  expect(b.logs.some(reconciledHello)).toBe(false);

  // Crash: kill -9 the leader; the standby takes over once the lease expires.
  const killedAt = Date.now();
  a.child.kill('SIGKILL');
  expect(await a.exited).toBe('SIGKILL');
  const takeover = await b.waitForLog('b to take over', becameLeader, 60_000);
  const crashTakeoverMs = Date.parse(String(takeover['time'])) - killedAt;
  await custom.patchNamespacedCustomObject(
    { ...cr, name: 'hello', body: { spec: { replicas: 4 } } },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
  await waitFor('the new leader to scale the Deployment', async () =>
    (await deploymentReplicas()) === 4 ? true : undefined,
  );
  expect((await leases.readNamespacedLease({ name: leaseName, namespace: ns })).spec?.holderIdentity).toBe(
    String(takeover['identity']),
  );

  // Graceful: SIGTERM releases the Lease, so a new standby takes over within a retry period.
  const c = start();
  await c.waitForLog('c to sync its informers', (l) => l.msg === 'operator ready');
  const stoppedAt = Date.now();
  b.child.kill('SIGTERM');
  expect(await b.exited).toBe(0);
  const handover = await c.waitForLog('c to take over', becameLeader, 60_000);
  const releaseTakeoverMs = Date.parse(String(handover['time'])) - stoppedAt;
  c.child.kill('SIGTERM');
  expect(await c.exited).toBe(0);

  console.log(
    `ork run leader takeover (lease 15 s, renew 10 s, retry 2 s): after kill -9 ${crashTakeoverMs} ms, after SIGTERM (lease released) ${releaseTakeoverMs} ms`,
  );
  expect(b.logs.some((l) => l.msg === 'leader lease released')).toBe(true);
  for (const proc of [a, b, c]) expect(forbiddenLines(proc.logs)).toEqual([]);
}, 240_000);

import { performance } from 'node:perf_hooks';
import { CoordinationV1Api, CoreV1Api, V1MicroTime } from '@kubernetes/client-node';
import { createKubeClient } from '@orkestra/registry';
import { useControlPlane } from '@orkestra/testenv/vitest';
import { afterEach, expect, it } from 'vitest';
import { LeaderElector, eventApiOf, leaseApiOf, leaseNameFor } from '../src/process/leader-election.js';

// Leader election against the real API server, with short timings (lease 3 s, renew deadline 2 s,
// retry 0.5 s). Takeover times are printed, not asserted: they depend on the machine.

const env = useControlPlane();
const electors: LeaderElector[] = [];

afterEach(async () => {
  await Promise.all(electors.splice(0).map((e) => e.stop()));
});

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function waitFor(condition: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

const client = () =>
  createKubeClient({
    kubeConfig: env.kubeConfig,
    resources: { 'coordination.k8s.io/v1/Lease': { plural: 'leases', namespaced: true } },
  });

function start(leaseName: string, identity: string, log: string[]): LeaderElector {
  const elector = new LeaderElector({
    // The operator's path: Lease reads and writes through the registry client (ADR 0035).
    api: leaseApiOf(client()),
    namespace: env.namespace,
    leaseName,
    identity,
    leaseDurationMs: 3_000,
    renewDeadlineMs: 2_000,
    retryPeriodMs: 500,
    onStartedLeading: () => log.push(`${identity} started`),
    onStoppedLeading: () => log.push(`${identity} stopped`),
    events: eventApiOf(client()),
  });
  electors.push(elector);
  elector.start();
  return elector;
}

async function readLease(name: string) {
  return env.kubeConfig
    .makeApiClient(CoordinationV1Api)
    .readNamespacedLease({ name, namespace: env.namespace });
}

it('elects exactly one leader, fails over after a crash, and hands over at once on release', async () => {
  const leaseName = leaseNameFor('election');
  const log: string[] = [];
  const a = start(leaseName, 'replica-a', log);
  const b = start(leaseName, 'replica-b', log);
  await waitFor(() => a.isLeader() || b.isLeader(), 'a leader');

  // For several lease durations, exactly one replica leads.
  for (let i = 0; i < 40; i++) {
    expect([a, b].filter((e) => e.isLeader())).toHaveLength(1);
    await sleep(100);
  }
  const [leader, standby] = a.isLeader() ? [a, b] : [b, a];
  const lease = await readLease(leaseName);
  expect(lease.spec).toMatchObject({
    holderIdentity: leader.identity,
    leaseDurationSeconds: 3,
    leaseTransitions: 0,
  });
  expect(standby.state().observedHolder).toBe(leader.identity);

  // Crash: the leader stops renewing without releasing; the standby waits for the lease to expire.
  await leader.stop();
  const crashAt = performance.now();
  await waitFor(() => standby.isLeader(), 'the standby to take over after a crash');
  const crashTakeoverMs = performance.now() - crashAt;
  expect((await readLease(leaseName)).spec).toMatchObject({
    holderIdentity: standby.identity,
    leaseTransitions: 1,
  });

  // Release: a fresh standby takes over at its next retry, without waiting for expiry.
  const c = start(leaseName, 'replica-c', log);
  await waitFor(() => c.state().observedHolder === standby.identity, 'c to see the leader');
  await sleep(600);
  expect(c.isLeader()).toBe(false);
  await standby.release();
  expect((await readLease(leaseName)).spec?.holderIdentity ?? '').toBe('');
  const releaseAt = performance.now();
  await waitFor(() => c.isLeader(), 'c to take over after a release');
  const releaseTakeoverMs = performance.now() - releaseAt;
  expect((await readLease(leaseName)).spec).toMatchObject({
    holderIdentity: 'replica-c',
    leaseTransitions: 2,
  });

  // Each new leader recorded a Normal LeaderElection event on the Lease.
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  const listEvents = () =>
    core.listNamespacedEvent({ namespace: env.namespace, fieldSelector: `involvedObject.name=${leaseName}` });
  let events = await listEvents();
  for (let i = 0; i < 50 && events.items.length < 3; i++) {
    await sleep(100);
    events = await listEvents();
  }
  expect(events.items.map((e) => [e.type, e.reason, e.involvedObject.kind, e.message]).sort()).toEqual(
    [leader, standby, c]
      .map((e) => ['Normal', 'LeaderElection', 'Lease', `${e.identity} became leader`])
      .sort(),
  );

  // stop() and release() never report a lost lease.
  expect(log).toEqual([`${leader.identity} started`, `${standby.identity} started`, 'replica-c started']);
  console.info(
    `leader takeover (lease 3s, renew 2s, retry 0.5s): after crash ${Math.round(crashTakeoverMs)} ms, after release ${Math.round(releaseTakeoverMs)} ms`,
  );
});

it('reports a lost lease when another holder overwrites it', async () => {
  const leaseName = leaseNameFor('stolen');
  const log: string[] = [];
  const a = start(leaseName, 'replica-a', log);
  await waitFor(() => a.isLeader(), 'a to lead');
  const api = env.kubeConfig.makeApiClient(CoordinationV1Api);
  const lease = await readLease(leaseName);
  await api.replaceNamespacedLease({
    name: leaseName,
    namespace: env.namespace,
    body: {
      ...lease,
      spec: {
        ...lease.spec,
        holderIdentity: 'someone-else',
        renewTime: new V1MicroTime(),
        acquireTime: new V1MicroTime(),
      },
    },
  });
  await waitFor(() => log.includes('replica-a stopped'), 'a to notice the loss');
  expect(a.isLeader()).toBe(false);
  expect((await readLease(leaseName)).spec?.holderIdentity).toBe('someone-else');
});

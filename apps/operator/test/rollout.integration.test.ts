/**
 * Health-gated rollouts of a changed Katalog (docs/reference/runtime.md §24) on a
 * control plane that runs workloads (kube-scheduler, kwok, workload controllers), with the
 * operator in this process and its hot reload:
 *
 * - a change whose template breaks readiness (a nodeSelector no node has) stops at the canary;
 *   every CR and child outside the canary keeps its resourceVersion (read from the API server);
 * - `ork rollout undo` restores the canary's children and revision;
 * - a good change goes out wave by wave — never more CRs on the new revision than the step
 *   admits — to every CR, and the steps are Events on the rollout ConfigMap.
 *
 * ORKESTRA_ROLLOUT_CRS sets the number of CRs (default 40; the acceptance run uses 200).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppsV1Api, CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { deleteCrd } from '@orkestra/testenv';
import { useControlPlane } from '@orkestra/testenv/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rolloutCommand } from '../src/commands/rollout.js';
import type { Operator } from '../src/process/operator.js';
import { startInProcessOperator } from './in-process-operator.js';

const env = useControlPlane({ workloads: true });
const N = Number(process.env['ORKESTRA_ROLLOUT_CRS'] ?? 40);
const CANARY = 2;
const WAVES = [25, 50, 100];
const group = `ro${randomBytes(3).toString('hex')}.test.orkestra.io`;
const katalogName = 'rollout';
const dir = mkdtempSync(join(tmpdir(), 'orkestra-rollout-'));
const file = join(dir, 'katalog.yaml');

/** katalogText is the Katalog; `child` is extra Deployment fields (the change under test). */
function katalogText(child: string, readyTimeout = '20s'): string {
  return `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: ${katalogName}}
spec:
  rollout:
    canary: {count: ${CANARY}}
    waves: [${WAVES.join(', ')}]
    readyTimeout: ${readyTimeout}
    onFailure: pause
  crds:
    app:
      apiTypes: {group: ${group}, version: v1, kind: App, plural: apps}
      workers: 8
      operatorBox:
        onReconcile:
          deployments:
            - name: "{{ metadata.name }}-web"
              image: nginx:1.27
              replicas: 1
${child}
`;
}
const GOOD_V1 = '';
const BAD = '              nodeSelector: {orkestra-test/nowhere: "true"}';
const GOOD_V2 = '              podAnnotations: {release: "2"}';

interface Cr {
  metadata: { name: string; uid: string; resourceVersion: string; generation?: number };
  status?: {
    katalogRevision?: string;
    conditions?: { type: string; status: string; observedGeneration?: number }[];
  };
}
interface RolloutStateView {
  target: string;
  stable: string;
  phase: string;
  step: number;
  message: string;
}

let operator: Operator;
let kubeconfigFile: string;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 240_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}${last == null ? '' : `: ${String(last)}`}`);
    await sleep(250);
  }
}

const custom = () => env.kubeConfig.makeApiClient(CustomObjectsApi);
const apps = () => env.kubeConfig.makeApiClient(AppsV1Api);
const core = () => env.kubeConfig.makeApiClient(CoreV1Api);

async function listCrs(): Promise<Cr[]> {
  const list = (await custom().listNamespacedCustomObject({
    group,
    version: 'v1',
    namespace: env.namespace,
    plural: 'apps',
  })) as { items: Cr[] };
  return list.items;
}
async function listDeployments(): Promise<Map<string, { rv: string; nodeSelector?: unknown }>> {
  const list = await apps().listNamespacedDeployment({ namespace: env.namespace });
  return new Map(
    list.items.map((d) => [
      d.metadata?.name ?? '',
      { rv: d.metadata?.resourceVersion ?? '', nodeSelector: d.spec?.template.spec?.nodeSelector },
    ]),
  );
}
async function rolloutState(): Promise<RolloutStateView> {
  const cm = await core().readNamespacedConfigMap({
    name: `orkestra-${katalogName}-rollout`,
    namespace: env.namespace,
  });
  return JSON.parse(cm.data?.['state'] ?? '{}') as RolloutStateView;
}
const readyOn = (cr: Cr, revision: string): boolean => {
  const ready = cr.status?.conditions?.find((c) => c.type === 'Ready');
  return (
    cr.status?.katalogRevision === revision &&
    ready?.status === 'True' &&
    ready.observedGeneration === cr.metadata.generation
  );
};
async function allReadyOn(revision: string): Promise<Cr[] | undefined> {
  const crs = await listCrs();
  return crs.length === N && crs.every((cr) => readyOn(cr, revision)) ? crs : undefined;
}

async function reloadWith(child: string, readyTimeout?: string): Promise<void> {
  writeFileSync(file, katalogText(child, readyTimeout));
  const result = await operator.reload();
  expect(result.outcome).toBe('reloaded');
}

async function ork(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await rolloutCommand.run(args, {
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (err += s) },
    env: { KUBECONFIG: kubeconfigFile },
    cwd: dir,
  });
  return { code, out, err };
}

beforeAll(async () => {
  kubeconfigFile = join(dir, 'kubeconfig');
  writeFileSync(kubeconfigFile, env.kubeConfig.exportConfig());
  writeFileSync(file, katalogText(GOOD_V1));
  operator = await startInProcessOperator({
    katalogFile: file,
    cwd: dir,
    kubeConfig: env.kubeConfig,
    namespace: env.namespace,
    options: { rolloutTickMs: 500 },
  });
  await operator.synced;
}, 120_000);

afterAll(async () => {
  await operator?.shutdown('test done');
  // The CRs keep the stopped operator's finalizer: release them, or the CRD stays terminating.
  await deleteCrd(env.kubeConfig, { group, version: 'v1', kind: 'App', plural: 'apps' });
});

describe(`rollout of a changed Katalog to ${N} CRs (kwok)`, () => {
  it(
    'stops a readiness-breaking change at the canary, undoes it, then rolls a good change out wave by wave',
    { timeout: 900_000 },
    async () => {
      const ns = env.namespace;
      for (let i = 0; i < N; i++)
        await custom().createNamespacedCustomObject({
          group,
          version: 'v1',
          namespace: ns,
          plural: 'apps',
          body: { apiVersion: `${group}/v1`, kind: 'App', metadata: { name: `app-${i}` }, spec: {} },
        });
      const first = await rolloutState();
      const r1 = first.target;
      expect(first.phase).toBe('Complete');
      await waitFor(`${N} CRs Ready on ${r1}`, () => allReadyOn(r1));
      // Quiet: nothing changes once every CR is Ready.
      await sleep(3000);
      const beforeCrs = new Map(
        (await listCrs()).map((cr) => [cr.metadata.name, cr.metadata.resourceVersion]),
      );
      const beforeDeployments = await listDeployments();

      // ---- a change that breaks readiness stops at the canary
      await reloadWith(BAD);
      const failed = await waitFor('the gate to fail', async () => {
        const state = await rolloutState();
        return state.phase === 'Failed' ? state : undefined;
      });
      const r2 = failed.target;
      expect(r2).not.toBe(r1);
      expect(failed.step).toBe(0);
      const crs = await listCrs();
      const canary = crs.filter((cr) => cr.status?.katalogRevision === r2).map((cr) => cr.metadata.name);
      expect(canary).toHaveLength(CANARY);
      const deployments = await listDeployments();
      for (const name of canary)
        expect(deployments.get(`${name}-web`)?.nodeSelector).toEqual({ 'orkestra-test/nowhere': 'true' });
      // From the API server: no CR outside the canary, nor its child, was written.
      const touched = crs
        .filter((cr) => !canary.includes(cr.metadata.name))
        .filter(
          (cr) =>
            beforeCrs.get(cr.metadata.name) !== cr.metadata.resourceVersion ||
            beforeDeployments.get(`${cr.metadata.name}-web`)?.rv !==
              deployments.get(`${cr.metadata.name}-web`)?.rv,
        )
        .map((cr) => cr.metadata.name);
      expect(touched).toEqual([]);
      const status = await ork(['status', katalogName, '-n', ns]);
      expect(status.code, status.err).toBe(0);
      expect(status.out).toContain('phase: Failed');
      expect(status.out).toContain(`CRs on ${r2}: ${CANARY}`);
      // The CRD's versions (runtime.md §24.4): one version, stored there, nothing to migrate.
      expect(status.out).toContain(`  CRD apps.${group}: storage v1; served v1\n`);

      // ---- undo restores the canary
      const undo = await ork(['undo', katalogName, '-n', ns]);
      expect(undo.code, undo.err).toBe(0);
      await waitFor(`${N} CRs Ready on ${r1} after undo`, () => allReadyOn(r1));
      const restored = await listDeployments();
      for (const name of canary) expect(restored.get(`${name}-web`)?.nodeSelector).toBeUndefined();

      // ---- a good change rolls out wave by wave
      await reloadWith(GOOD_V2, '5m');
      const admitted = (step: number): number =>
        step === 0 ? CANARY : Math.ceil(((WAVES[step - 1] ?? 100) / 100) * N);
      let r3 = '';
      const seen = new Set<number>();
      const overshoots: string[] = [];
      await waitFor(
        `${N} CRs Ready on the good revision`,
        async () => {
          const list = await listCrs();
          const state = await rolloutState();
          if (state.target === r1 || state.target === r2) return undefined;
          r3 = state.target;
          const onTarget = list.filter((cr) => cr.status?.katalogRevision === r3).length;
          // CRs listed before the state was read: the step can only have grown since.
          const allowed = state.phase === 'Complete' ? N : admitted(state.step);
          if (onTarget > allowed)
            overshoots.push(`${onTarget} CRs on ${r3} at step ${state.step} (${allowed} admitted)`);
          seen.add(state.phase === 'Complete' ? WAVES.length + 1 : state.step);
          return state.phase === 'Complete' && list.every((cr) => readyOn(cr, r3)) ? true : undefined;
        },
        600_000,
      );
      expect(overshoots).toEqual([]);
      expect(seen.has(WAVES.length + 1)).toBe(true);
      const events = await core().listNamespacedEvent({
        namespace: ns,
        fieldSelector: `involvedObject.name=orkestra-${katalogName}-rollout`,
      });
      const messages = events.items
        .filter((e) => e.message?.includes(r3) === true)
        .map((e) => `${e.reason ?? ''} ${e.message ?? ''}`);
      for (let step = 1; step <= WAVES.length; step++)
        expect(
          messages.some((m) =>
            m.startsWith(
              `RolloutStep revision ${r3}: wave ${step} (${WAVES[step - 1]}%): ${admitted(step)} of ${N}`,
            ),
          ),
          messages.join('\n'),
        ).toBe(true);
      expect(messages.some((m) => m.startsWith('RolloutComplete'))).toBe(true);
    },
  );
});

/**
 * A Katalog rollout across shards (docs/reference/runtime.md §25.5 and §24, ADR 0058) on the local
 * control plane, with 2 sharded operators in this process: both reload a changed Katalog; the
 * leader's gate counts every shard's CRs, the other shard follows the stored state, so the canary
 * and each wave admit CRs of both shards and the rollout completes with every CR — on either shard
 * — reconciled with the new revision. Without the follower, the other shard's CRs would stay on the
 * old revision after the rollout is `Complete`.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { OrkestraLabel } from '@orkestra/types';
import { useControlPlane } from '@orkestra/testenv/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startShardedReplica, waitForValue } from './sharded-replica.js';
import type { Operator } from '../src/process/operator.js';

const N = 16;
const CANARY = 3;
const env = useControlPlane();
const group = `shr${randomBytes(3).toString('hex')}.test.orkestra.io`;
const katalogName = `shardr${randomBytes(2).toString('hex')}`;
const dir = mkdtempSync(join(tmpdir(), 'orkestra-sharding-rollout-'));
const file = join(dir, 'katalog.yaml');
const katalogText = (greeting: string): string => `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: ${katalogName}}
spec:
  rollout:
    canary: {count: ${CANARY}}
    waves: [50, 100]
    readyTimeout: 60s
    onFailure: pause
  crds:
    app:
      apiTypes: {group: ${group}, version: v1, kind: App, plural: apps}
      workers: 4
      operatorBox:
        onReconcile:
          configMaps:
            - name: "{{ metadata.name }}-config"
              data: {GREETING: "${greeting}"}
`;
writeFileSync(file, katalogText('v1'));

const operators: Operator[] = [];
const waitFor = <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs?: number): Promise<T> =>
  waitForValue(what, probe, timeoutMs, 200);
async function startReplica(name: string): Promise<Operator> {
  const operator = await startShardedReplica({
    katalogFile: file,
    cwd: dir,
    kubeConfig: env.kubeConfig,
    namespace: env.namespace,
    name,
    options: { rolloutTickMs: 500 },
  });
  operators.push(operator);
  return operator;
}

interface App {
  metadata: { name: string; labels?: Record<string, string> };
  status?: { katalogRevision?: string; conditions?: { type: string; status: string }[] };
}
const custom = () => env.kubeConfig.makeApiClient(CustomObjectsApi);
async function apps(): Promise<App[]> {
  return (
    (await custom().listNamespacedCustomObject({
      group,
      version: 'v1',
      namespace: env.namespace,
      plural: 'apps',
    })) as { items: App[] }
  ).items;
}
async function rolloutState(): Promise<{ phase: string; step: number; target: string; stable: string }> {
  const cm = await env.kubeConfig
    .makeApiClient(CoreV1Api)
    .readNamespacedConfigMap({ namespace: env.namespace, name: `orkestra-${katalogName}-rollout` });
  return JSON.parse(cm.data?.['state'] ?? '{}') as {
    phase: string;
    step: number;
    target: string;
    stable: string;
  };
}
const ready = (app: App, revision: string): boolean =>
  app.status?.katalogRevision === revision &&
  app.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;

beforeAll(async () => {
  await startReplica('a');
  await startReplica('b');
}, 180_000);

afterAll(async () => {
  for (const operator of operators) await operator.shutdown('test done').catch(() => undefined);
});

describe('rollouts across shards', () => {
  it(
    'moves every shard’s CRs through the canary and waves to the new revision',
    { timeout: 300_000 },
    async () => {
      const [a, b] = operators as [Operator, Operator];
      const leader = await waitFor('a leader', async () => operators.find((o) => o.isLeader()));
      await waitFor('the sharder to see both shards', async () =>
        (leader.sharderStats()?.live.length ?? 0) === 2 ? true : undefined,
      );
      for (let i = 0; i < N; i++)
        await custom().createNamespacedCustomObject({
          group,
          version: 'v1',
          namespace: env.namespace,
          plural: 'apps',
          body: { apiVersion: `${group}/v1`, kind: 'App', metadata: { name: `app-${i}` }, spec: {} },
        });
      const first = await waitFor('every app ready on the first revision', async () => {
        const list = await apps();
        const revision = list[0]?.status?.katalogRevision;
        return list.length === N && revision != null && list.every((app) => ready(app, revision))
          ? revision
          : undefined;
      });
      const owners = new Set((await apps()).map((app) => app.metadata.labels?.[OrkestraLabel.Shard]));
      expect(owners).toEqual(new Set([a.shard, b.shard]));

      writeFileSync(file, katalogText('v2'));
      const started = Date.now();
      expect((await b.reload()).outcome).toBe('reloaded');
      expect((await a.reload()).outcome).toBe('reloaded');
      let maxOnCanary = 0;
      const target = await waitFor(
        'the rollout to complete with every app on the new revision',
        async () => {
          const state = await rolloutState();
          const list = await apps();
          if (state.target === first) return undefined;
          const onTarget = list.filter((app) => app.status?.katalogRevision === state.target).length;
          if (state.phase === 'Progressing' && state.step === 0)
            maxOnCanary = Math.max(maxOnCanary, onTarget);
          return state.phase === 'Complete' && list.every((app) => ready(app, state.target))
            ? state.target
            : undefined;
        },
        120_000,
      );
      expect(target).not.toBe(first);
      // The canary admitted at most its count across both shards.
      expect(maxOnCanary).toBeLessThanOrEqual(CANARY);
      console.log(
        `sharded rollout (2 replicas, ${N} CRs, canary ${CANARY}, waves 50/100): complete on every shard in ${Date.now() - started} ms`,
      );
    },
  );
});

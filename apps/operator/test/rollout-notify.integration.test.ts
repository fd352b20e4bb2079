/**
 * A rollout's outcomes told by email end to end (docs/reference/katalog.md §2.3 and §15.4, ADR
 * 0066): the operator in this process on the local control plane, its hot reload, and a real SMTP
 * server (Mailpit from `@orkestra/testenv`). A changed Katalog whose CRs are Ready on the new
 * revision completes its rollout and `spec.rollout.notify` mails the team `[orkestra] rollout
 * complete`; a change whose CRs never become Ready (a Deployment, and no node runs workloads here)
 * stops at the canary after `readyTimeout` and the team is mailed `[orkestra] rollout gateFailed`.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { deleteCrd } from '@orkestra/testenv';
import type { MailpitMessage } from '@orkestra/testenv';
import { useControlPlane, useMailpit } from '@orkestra/testenv/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Operator } from '../src/process/operator.js';
import { waitFor as waitUntil } from './e2e/ork-process.js';
import { startInProcessOperator } from './in-process-operator.js';

const env = useControlPlane();
const mail = useMailpit();
const group = `rn${randomBytes(3).toString('hex')}.test.orkestra.io`;
const katalogName = 'rollout-notify';
const dir = mkdtempSync(join(tmpdir(), 'orkestra-rollout-notify-'));
const file = join(dir, 'katalog.yaml');
const CRS = 3;

/** katalogText is the Katalog; `greeting` changes the revision, `deployment` adds a child that never becomes Ready. */
function katalogText(greeting: string, deployment = false): string {
  return `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: ${katalogName}}
spec:
  notification:
    smtp: {host: 127.0.0.1, port: ${mail().smtpPort}, from: ork@example.com}
    teams:
      ops: {email: [ops@example.com]}
  rollout:
    canary: {count: 1}
    waves: [100]
    readyTimeout: 10s
    onFailure: pause
    notify:
      teams: [ops]
      message: "{{ .katalog }}: rollout {{ .rollout.outcome }} of {{ .rollout.target }} ({{ .rollout.phase }})"
  crds:
    app:
      apiTypes: {group: ${group}, version: v1, kind: App, plural: apps}
      operatorBox:
        onReconcile:
          configMaps:
            - name: "{{ metadata.name }}-config"
              data: {GREETING: ${greeting}}
${
  deployment
    ? `          deployments:
            - name: "{{ metadata.name }}-web"
              image: nginx:1.27
              replicas: 1
`
    : ''
}`;
}

interface RolloutStateView {
  target: string;
  phase: string;
}

let operator: Operator;
/** waitFor polls `probe` until it gives a value, for up to 180 s (a rollout gate waits on readiness). */
const waitFor = <T>(what: string, probe: () => Promise<T | undefined>): Promise<T> =>
  waitUntil(what, probe, 180_000);

const custom = () => env.kubeConfig.makeApiClient(CustomObjectsApi);

async function rolloutState(): Promise<RolloutStateView> {
  const cm = await env.kubeConfig.makeApiClient(CoreV1Api).readNamespacedConfigMap({
    name: `orkestra-${katalogName}-rollout`,
    namespace: env.namespace,
  });
  return JSON.parse(cm.data?.['state'] ?? '{}') as RolloutStateView;
}

async function allReadyOn(revision: string): Promise<true | undefined> {
  const list = (await custom().listNamespacedCustomObject({
    group,
    version: 'v1',
    namespace: env.namespace,
    plural: 'apps',
  })) as {
    items: {
      metadata: { generation?: number };
      status?: {
        katalogRevision?: string;
        conditions?: { type: string; status: string; observedGeneration?: number }[];
      };
    }[];
  };
  const ready = list.items.filter((cr) => {
    const condition = cr.status?.conditions?.find((c) => c.type === 'Ready');
    return (
      cr.status?.katalogRevision === revision &&
      condition?.status === 'True' &&
      condition.observedGeneration === cr.metadata.generation
    );
  });
  return list.items.length === CRS && ready.length === CRS ? true : undefined;
}

async function reloadWith(text: string): Promise<void> {
  writeFileSync(file, text);
  expect((await operator.reload()).outcome).toBe('reloaded');
}

/** mailWith waits for the mail whose subject is `subject` and returns every mail so far. */
async function mailWith(subject: string): Promise<MailpitMessage[]> {
  return waitFor(`a mail "${subject}"`, async () => {
    const mails = await mail().messages();
    return mails.some((m) => m.Subject === subject) ? mails : undefined;
  });
}

beforeAll(async () => {
  writeFileSync(file, katalogText('one'));
  operator = await startInProcessOperator({
    katalogFile: file,
    cwd: dir,
    kubeConfig: env.kubeConfig,
    namespace: env.namespace,
    // Mailpit listens on loopback, which the address guard allows only explicitly.
    args: ['--allow-private-addresses', '127.0.0.0/8'],
    options: { rolloutTickMs: 500 },
  });
  await operator.synced;
}, 120_000);

afterAll(async () => {
  await operator?.shutdown('test done');
  await deleteCrd(env.kubeConfig, { group, version: 'v1', kind: 'App', plural: 'apps' });
});

describe('spec.rollout.notify by email', () => {
  it('mails the team when a rollout completes and when its gate fails', { timeout: 600_000 }, async () => {
    for (let i = 0; i < CRS; i++)
      await custom().createNamespacedCustomObject({
        group,
        version: 'v1',
        namespace: env.namespace,
        plural: 'apps',
        body: { apiVersion: `${group}/v1`, kind: 'App', metadata: { name: `app-${i}` }, spec: {} },
      });
    const first = await rolloutState();
    await waitFor(`${CRS} CRs Ready on ${first.target}`, () => allReadyOn(first.target));
    await mail().clear();

    // A change whose CRs become Ready: canary, then every CR, then one mail.
    await reloadWith(katalogText('two'));
    const second = await waitFor('the rollout to complete', async () => {
      const state = await rolloutState();
      return state.target !== first.target && state.phase === 'Complete' ? state : undefined;
    });
    const completed = await mailWith('[orkestra] rollout complete');
    expect(completed).toHaveLength(1);
    expect(completed[0]).toMatchObject({
      From: { Address: 'ork@example.com' },
      To: [{ Address: 'ops@example.com' }],
    });
    expect(completed[0]?.Text.trim()).toBe(`${katalogName}: rollout complete of ${second.target} (Complete)`);
    expect(completed[0]?.headers['X-Orkestra-Team']).toEqual(['ops']);
    expect(completed[0]?.headers['X-Orkestra-Katalog']).toEqual([katalogName]);

    // A change whose canary never becomes Ready: the gate fails after readyTimeout, one more mail.
    await reloadWith(katalogText('three', true));
    const third = await waitFor('the rollout to fail', async () => {
      const state = await rolloutState();
      return state.target !== second.target && state.phase === 'Failed' ? state : undefined;
    });
    const failed = (await mailWith('[orkestra] rollout gateFailed')).filter(
      (m) => m.Subject === '[orkestra] rollout gateFailed',
    );
    expect(failed).toHaveLength(1);
    expect(failed[0]?.Text.trim()).toBe(`${katalogName}: rollout gateFailed of ${third.target} (Failed)`);
  });
});

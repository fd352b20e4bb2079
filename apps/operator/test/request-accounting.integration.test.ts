/**
 * Every API request the operator makes is counted, and an idle operator makes none
 * (docs/reference/runtime.md §18.4–18.5, ADR 0034, ADR 0035). One control plane with an audit log
 * (every request at Metadata level); the operator runs as the Helm chart installs it: the
 * operator namespace present (revisions on), leader election on, the Control Center on with
 * token auth, CRDs installed by the operator.
 *
 * 1. A run that uses every request path — CRD install, Lease create and renewals and the
 *    LeaderElection Event, revision and rollout ConfigMaps (a reload rolls out a new revision
 *    through a canary), child writes, status patches, Events, TokenReview and SubjectAccessReview —
 *    then `rest_client_requests_total{method}` equals the audit log's count of requests with the
 *    operator's User-Agent, per method.
 * 2. With 20 converged CRs and no rollout under way, an idle window (ORKESTRA_IDLE_SECONDS, default
 *    60) holds no request from the operator but Lease renewals and watches, and the counter agrees.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, CustomObjectsApi, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { startControlPlane, sumMetric } from '@orkestra/testenv';
import type { ControlPlane } from '@orkestra/testenv';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { OPERATOR_PRODUCT } from '../src/process/api-transport.js';
import type { Operator } from '../src/process/operator.js';
import { startWithFlags } from './in-process-operator.js';

const CRS = 20;
const IDLE_SECONDS = Number(process.env['ORKESTRA_IDLE_SECONDS'] ?? 60);
const OPS = 'accounting-ops';
const APPS = 'accounting-apps';
const group = 'accounting.test.orkestra.io';
const dir = mkdtempSync(join(tmpdir(), 'orkestra-accounting-'));
const auditLog = join(dir, 'audit.log');
const katalogFile = join(dir, 'katalog.yaml');

const AUDIT_POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: Metadata
`;

function katalogText(greeting: string, rollout: boolean): string {
  return `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: accounting}
spec:
${rollout ? '  rollout: {canary: {count: 2}, waves: [100], readyTimeout: 60s, onFailure: pause}\n' : ''}  crds:
    app:
      apiTypes: {group: ${group}, version: v1, kind: App, plural: apps}
      workers: 4
      operatorBox:
        onReconcile:
          configMaps:
            - name: "{{ metadata.name }}-config"
              data: {GREETING: ${greeting}}
`;
}

let cp: ControlPlane | undefined;
let operator: Operator | undefined;
let metricsUrl = '';
let viewerToken = '';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}

interface AuditEvent {
  readonly auditID: string;
  readonly verb: string;
  readonly userAgent?: string;
  readonly objectRef?: { readonly resource?: string; readonly apiGroup?: string };
  readonly requestURI?: string;
}

/** operatorRequests reads the audit log from `offset`: each request of the operator once, by audit ID. */
function operatorRequests(offset = 0): AuditEvent[] {
  const seen = new Set<string>();
  const out: AuditEvent[] = [];
  for (const line of readFileSync(auditLog).subarray(offset).toString('utf8').split('\n')) {
    if (line.trim() === '') continue;
    const event = JSON.parse(line) as AuditEvent;
    if (seen.has(event.auditID)) continue;
    seen.add(event.auditID);
    if (event.userAgent?.startsWith(`${OPERATOR_PRODUCT}/`) === true) out.push(event);
  }
  return out;
}

const METHOD_OF: Record<string, string> = {
  get: 'GET',
  list: 'GET',
  watch: 'GET',
  create: 'POST',
  update: 'PUT',
  patch: 'PATCH',
  delete: 'DELETE',
  deletecollection: 'DELETE',
};

function byMethod(events: readonly AuditEvent[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const event of events) {
    const method = METHOD_OF[event.verb] ?? event.verb;
    out[method] = (out[method] ?? 0) + 1;
  }
  return out;
}

async function counter(): Promise<Record<string, number>> {
  const text = await (await fetch(metricsUrl)).text();
  const out: Record<string, number> = {};
  for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
    const n = sumMetric(text, 'rest_client_requests_total', { method });
    if (n > 0) out[method] = n;
  }
  return out;
}

/**
 * agreement reads the counter, the audit log, and the counter again until both counter reads are
 * equal (no request ended in between), then returns the two counts: a request that ends between
 * the reads could otherwise show on one side only.
 */
async function agreement(offset = 0, base: Record<string, number> = {}) {
  let last: { counted: Record<string, number>; audited: Record<string, number> } | undefined;
  for (let attempt = 0; attempt < 10; attempt++) {
    const before = await counter();
    const audited = byMethod(operatorRequests(offset));
    const after = await counter();
    if (JSON.stringify(before) !== JSON.stringify(after)) continue;
    const counted: Record<string, number> = {};
    for (const [method, n] of Object.entries(after))
      if (n - (base[method] ?? 0) > 0) counted[method] = n - (base[method] ?? 0);
    last = { counted, audited };
    if (JSON.stringify(sorted(counted)) === JSON.stringify(sorted(audited))) return last;
    await sleep(300);
  }
  return last ?? { counted: {}, audited: {} };
}

function sorted(record: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}

async function crs(): Promise<
  {
    metadata: { name: string };
    status?: { katalogRevision?: string; conditions?: { type: string; status: string }[] };
  }[]
> {
  const custom = cp!.kubeConfig.makeApiClient(CustomObjectsApi);
  const list = (await custom.listNamespacedCustomObject({
    group,
    version: 'v1',
    namespace: APPS,
    plural: 'apps',
  })) as { items: Awaited<ReturnType<typeof crs>> };
  return list.items;
}

async function rolloutState(): Promise<{ phase: string; target: string } | undefined> {
  const core = cp!.kubeConfig.makeApiClient(CoreV1Api);
  try {
    const cm = await core.readNamespacedConfigMap({ name: 'orkestra-accounting-rollout', namespace: OPS });
    return JSON.parse(cm.data?.['state'] ?? '{}') as { phase: string; target: string };
  } catch {
    return undefined;
  }
}

beforeAll(async () => {
  const policy = join(dir, 'audit-policy.yaml');
  writeFileSync(policy, AUDIT_POLICY);
  writeFileSync(auditLog, '');
  cp = await startControlPlane({
    controllerManager: false,
    apiserverArgs: [
      `--audit-policy-file=${policy}`,
      `--audit-log-path=${auditLog}`,
      '--audit-log-format=json',
      '--audit-log-mode=blocking',
    ],
  });
  const core = cp.kubeConfig.makeApiClient(CoreV1Api);
  for (const name of [OPS, APPS]) await core.createNamespace({ body: { metadata: { name } } });
  // A viewer for the Control Center's token gate: a ServiceAccount token for the gate's audience
  // (docs/reference/runtime.md §23.4), allowed to list Apps.
  await core.createNamespacedServiceAccount({ namespace: APPS, body: { metadata: { name: 'viewer' } } });
  viewerToken =
    (
      await core.createNamespacedServiceAccountToken({
        name: 'viewer',
        namespace: APPS,
        body: { spec: { audiences: ['orkestra-control-center'], expirationSeconds: 3600 } },
      })
    ).status?.token ?? '';
  const rbac = cp.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
  await rbac.createNamespacedRole({
    namespace: APPS,
    body: {
      metadata: { name: 'app-viewer' },
      rules: [{ apiGroups: [group], resources: ['apps'], verbs: ['get', 'list'] }],
    },
  });
  await rbac.createNamespacedRoleBinding({
    namespace: APPS,
    body: {
      metadata: { name: 'app-viewer' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'app-viewer' },
      subjects: [{ kind: 'ServiceAccount', name: 'viewer', namespace: APPS }],
    },
  });

  writeFileSync(katalogFile, katalogText('v1', false));
  // With leader election (the shared flags of startInProcessOperator turn it off).
  operator = await startWithFlags({
    flags: [
      '--katalog',
      katalogFile,
      '--leader-elect',
      '--install-crds',
      '--namespace',
      OPS,
      '--metrics-bind-address',
      '127.0.0.1:0',
      '--health-probe-bind-address',
      '0',
      '--log-level',
      'warn',
      '--control-center',
      '--control-center-auth',
      'token',
    ],
    cwd: dir,
    kubeConfig: cp.kubeConfig,
  });
  await operator.synced;
  metricsUrl = `http://127.0.0.1:${operator.metricsAddress?.port ?? 0}/metrics`;
  await waitFor('leadership', () => Promise.resolve(operator?.isLeader() === true));
}, 600_000);

afterAll(async () => {
  await operator?.shutdown('test done');
  await cp?.stop();
});

it('counts every request the operator makes: rest_client_requests_total equals the audit log by method', async () => {
  const custom = cp!.kubeConfig.makeApiClient(CustomObjectsApi);
  for (let i = 0; i < CRS; i++) {
    await custom.createNamespacedCustomObject({
      group,
      version: 'v1',
      namespace: APPS,
      plural: 'apps',
      body: {
        apiVersion: `${group}/v1`,
        kind: 'App',
        metadata: { name: `app-${i}`, namespace: APPS },
        spec: {},
      },
    });
  }
  const readyOn = async (revision?: string): Promise<boolean> => {
    const items = await crs();
    return (
      items.length === CRS &&
      items.every(
        (cr) =>
          (revision == null || cr.status?.katalogRevision === revision) &&
          cr.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true,
      )
    );
  };
  await waitFor('every CR Ready', () => readyOn());

  // A new revision with a rollout policy: the canary, then every CR, through the rollout ConfigMap.
  writeFileSync(katalogFile, katalogText('v2', true));
  expect((await operator!.reload()).outcome).toBe('reloaded');
  const target = (await rolloutState())?.target ?? '';
  await waitFor('the rollout to complete', async () => (await rolloutState())?.phase === 'Complete');
  await waitFor('every CR Ready on the new revision', () => readyOn(target));

  // The Control Center's token gate: a TokenReview and SubjectAccessReviews.
  const base = metricsUrl.replace(/\/metrics$/, '');
  const answer = await fetch(`${base}/api/v1/katalog`, {
    headers: { authorization: `Bearer ${viewerToken}` },
  });
  expect(answer.status).toBe(200); // a 401 here would mean the gate refused the token before any review
  await fetch(`${base}/api/v1/entries/app/crs`, { headers: { authorization: `Bearer ${viewerToken}` } });

  const { counted, audited } = await agreement();
  const audit = operatorRequests();
  const resources = new Set(
    audit.map((e) => `${e.verb} ${e.objectRef?.apiGroup ?? ''}/${e.objectRef?.resource ?? ''}`),
  );
  console.log(
    `request-accounting: counter ${JSON.stringify(sorted(counted))}, audit ${JSON.stringify(sorted(audited))}`,
  );
  console.log(`request-accounting: paths ${[...resources].sort().join(', ')}`);
  // Every path was used: the run is a test of each.
  for (const path of [
    'patch apiextensions.k8s.io/customresourcedefinitions',
    'create coordination.k8s.io/leases',
    'update coordination.k8s.io/leases',
    'create /configmaps',
    'patch /configmaps',
    'create /events',
    'create authentication.k8s.io/tokenreviews',
    'create authorization.k8s.io/subjectaccessreviews',
    `patch ${group}/apps`,
  ])
    expect(resources, path).toContain(path);
  expect(sorted(counted)).toEqual(sorted(audited));
}, 600_000);

it(`makes no request but Lease renewals and watches over ${IDLE_SECONDS} s idle with ${CRS} converged CRs, and its counter agrees`, async () => {
  // Quiet first: the last reconciles and Events of the previous test end.
  await sleep(5_000);
  const offset = readFileSync(auditLog).length;
  const base = await counter();
  await sleep(IDLE_SECONDS * 1000);
  const window = operatorRequests(offset);
  const { counted, audited } = await agreement(offset, base);
  const nonWatch = window.filter((e) => e.verb !== 'watch' && e.objectRef?.resource !== 'leases');
  const leases = window.filter((e) => e.objectRef?.resource === 'leases');
  console.log(
    `idle ${IDLE_SECONDS} s: ${window.length} operator requests (${leases.length} Lease, ${window.filter((e) => e.verb === 'watch').length} watch); counter ${JSON.stringify(sorted(counted))}`,
  );
  expect(nonWatch.map((e) => `${e.verb} ${e.requestURI ?? ''}`)).toEqual([]);
  expect(sorted(counted)).toEqual(sorted(audited));
}, 600_000);

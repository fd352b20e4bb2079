/**
 * Generated RBAC is least privilege: the Roles of `ork generate rbac` contain no wildcard (every
 * example Katalog), and an end-to-end run of `ork run` as the generated ServiceAccount (a real
 * token) passes with all rules and fails with any single rule removed. The e2e (operator in one
 * namespace, CRs in another): become leader (Lease, LeaderElection Event), renew the Lease (a PUT),
 * create a CR (finalizer, children with owner references, `once` Secret, Ready, an Event), create
 * two CRs whose child names an unmanaged ConfigMap and Secret already hold (ADR 0097: the
 * create-only apply is refused, then the object is read with `get` and judged: ChildConflict), store the
 * Katalog as a revision and roll a changed Katalog out (docs/reference/runtime.md §24: the revision ConfigMaps and the
 * rollout state in the operator namespace, recorded on the CR), correct a
 * child changed by hand (seen through the child watch: after a failed watch the informer retries the
 * watch, it does not relist, so without `watch` the drift is never seen), correct the same drift
 * again so the same Event repeats (ADR 0042: its count rises to 2 by a `patch`; without it the
 * recorder forgets the Event and the count stays 1), change it (apply, prune), delete it (finalizer
 * removed), then delete and re-create the CRD (docs/reference/runtime.md §2.9: the entry is
 * deactivated and reactivated, seen only through the CRD watch, which lists and watches the CRD
 * by name). The API server runs with
 * OwnerReferencesPermissionEnforcement, as many production clusters do, so `<plural>/finalizers`
 * is exercised too.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoordinationV1Api, CoreV1Api, KubeConfig, KubernetesObjectApi } from '@kubernetes/client-node';
import type { KubernetesObject } from '@kubernetes/client-node';
import { generateRbac } from '@orkestra/operator';
import type { Manifest } from '@orkestra/operator';
import { loadKatalog } from '@orkestra/types';
import { startControlPlane } from '@orkestra/testenv';
import type { ControlPlane } from '@orkestra/testenv';
import { useControlPlane } from '@orkestra/testenv/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadKatalogText } from '../src/chaos-katalog.js';
import {
  createNamespace,
  crClient,
  installCrd,
  isNotFound,
  isReadyAtGeneration,
  readyOf,
  uniqueSuffix,
} from '../src/custom-resources.js';
import { reportClaim, reportFigure } from '../src/figures.js';
import { spawnOperator } from '../src/operator-process.js';
import { forbiddenProof, parseAuditLog, rbacVariants, wildcardsIn } from '../src/rbac-variants.js';
import type { RbacVariant } from '../src/rbac-variants.js';
import { waitFor } from '../src/wait-for.js';

const SCENARIO = 'rbac';
const STEP_TIMEOUT_MS = 25_000;
/**
 * The first step also covers the operator process starting (module loading, first Lease write):
 * on a loaded 2-core machine with PARALLEL operators that alone can take longer than a step, so
 * it gets its own bound. It only delays a verdict; a step that passes returns at once.
 */
const LEADER_TIMEOUT_MS = 120_000;
const PARALLEL = 3;
/**
 * One e2e per verb (24 and more), three at a time: on a loaded 2-core machine that outgrows the
 * suite's 10-minute test bound. Like LEADER_TIMEOUT_MS it only delays a verdict.
 */
const E2E_TIMEOUT_MS = 1_800_000;

useControlPlane();
let cp: ControlPlane | undefined;
const dir = mkdtempSync(join(tmpdir(), 'orkestra-chaos-rbac-'));
/** The API server's audit log: every request of a ServiceAccount, with its response code. */
const auditLogPath = join(dir, 'audit.log');
const AUDIT_POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: Metadata
    userGroups: ["system:serviceaccounts"]
  - level: None
`;

beforeAll(async () => {
  const policyPath = join(dir, 'audit-policy.yaml');
  writeFileSync(policyPath, AUDIT_POLICY);
  cp = await startControlPlane({
    controllerManager: false,
    apiserverArgs: [
      '--enable-admission-plugins=OwnerReferencesPermissionEnforcement',
      `--audit-policy-file=${policyPath}`,
      `--audit-log-path=${auditLogPath}`,
      '--audit-log-mode=blocking',
    ],
  });
});

afterAll(async () => {
  await cp?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function e2eKatalog(name: string, group: string): string {
  return `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: ${name}}
spec:
  crds:
    shop:
      apiTypes: {group: ${group}, version: v1, kind: Shop, plural: shops}
      operatorBox:
        onReconcile:
          configMaps:
            - name: "{{ metadata.name }}-config"
              data: {greeting: "{{ spec.greeting }}"}
            - name: "{{ metadata.name }}-extra"
              when: [{field: spec.extra, equals: "true"}]
              data: {extra: "yes"}
          secrets:
            - name: "{{ metadata.name }}-creds"
              once: true
              data: {password: "{{ randomAlphanumeric 24 }}"}
            - name: "{{ metadata.name }}-plain"
              data: {greeting: "{{ spec.greeting }}"}
`;
}

/** E2eOutcome is the first step of the e2e that did not complete (undefined when all did) and the operator's user. */
interface E2eOutcome {
  readonly failedAt: string | undefined;
  readonly username: string;
  /** The run's API group (the variant's rules name the placeholder group). */
  readonly group: string;
}

/** e2e runs the scenario for one variant. */
async function e2e(plane: ControlPlane, variant: RbacVariant, index: number): Promise<E2eOutcome> {
  const suffix = `${index}-${uniqueSuffix()}`;
  // The ServiceAccount is named after the Katalog, in the operator's namespace (see e2eSteps).
  const username = `system:serviceaccount:rbac-op-${suffix}:rbac-${suffix}`;
  return { failedAt: await e2eSteps(plane, variant, suffix), username, group: groupOf(suffix) };
}

/** groupOf is the CRD's API group of one e2e run. */
function groupOf(suffix: string): string {
  return `rbac${suffix.replace('-', '')}.example.com`;
}

/** e2eSteps runs the scenario and returns the first step that did not complete, or undefined. */
async function e2eSteps(
  plane: ControlPlane,
  variant: RbacVariant,
  suffix: string,
): Promise<string | undefined> {
  const name = `rbac-${suffix}`;
  const group = groupOf(suffix);
  const katalogText = e2eKatalog(name, group);
  const katalog = loadKatalogText(katalogText);
  const api = { group, version: 'v1', kind: 'Shop', plural: 'shops' };
  // The operator's namespace (ServiceAccount, Lease) and the CRs' namespace differ, as in a real install.
  const opNs = `rbac-op-${suffix}`;
  const ns = `rbac-crs-${suffix}`;
  const admin = plane.kubeConfig;
  const removeCrd = await installCrd(admin, api);
  const removeOpNs = await createNamespace(admin, opNs);
  const removeNs = await createNamespace(admin, ns);
  const objects = admin.makeApiClient(KubernetesObjectApi);
  const variantManifests = remapVariant(variant, { katalog: katalog.metadata.name, namespace: opNs, group });
  for (const manifest of variantManifests) await objects.create(manifest as unknown as KubernetesObject);

  // A kubeconfig with a real token of the generated ServiceAccount.
  const core = admin.makeApiClient(CoreV1Api);
  const token = await core.createNamespacedServiceAccountToken({
    namespace: opNs,
    name: katalog.metadata.name,
    body: { spec: { expirationSeconds: 3600, audiences: [] } },
  });
  const cluster = admin.getCurrentCluster();
  if (cluster == null) throw new Error('no cluster');
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ ...cluster, name: 'sa' }],
    users: [{ name: 'sa', token: token.status?.token ?? '' }],
    contexts: [{ name: 'sa', cluster: 'sa', user: 'sa' }],
    currentContext: 'sa',
  });
  const kubeconfigPath = join(dir, `${suffix}.kubeconfig`);
  const katalogPath = join(dir, `${suffix}.yaml`);
  writeFileSync(kubeconfigPath, kc.exportConfig(), { mode: 0o600 });
  writeFileSync(katalogPath, katalogText);
  const operator = spawnOperator({
    katalogPath,
    kubeconfigPath,
    namespace: opNs,
    args: ['--lease-duration=4s', '--renew-deadline=3s', '--retry-period=1s'],
  });
  const crs = crClient(admin, api);
  const configMap = async (cm: string): Promise<Record<string, string> | undefined> => {
    try {
      return (await core.readNamespacedConfigMap({ namespace: ns, name: cm })).data ?? {};
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  };
  const plainGreeting = async (): Promise<string | undefined> => {
    const data = (await core.readNamespacedSecret({ namespace: ns, name: 'shop-plain' })).data;
    const value = data?.['greeting'];
    return value == null ? undefined : Buffer.from(value, 'base64').toString('utf8');
  };
  const step = async (
    what: string,
    check: () => Promise<boolean> | boolean,
    timeoutMs: number,
  ): Promise<string | undefined> => {
    try {
      await waitFor(what, async () => operator.running() && (await check()), {
        timeoutMs,
        intervalMs: 200,
      });
      return undefined;
    } catch {
      return operator.running() ? what : `${what} (the operator exited)`;
    }
  };
  try {
    const leases = admin.makeApiClient(CoordinationV1Api);
    let tampered = false;
    let reloaded = false;
    let retampered = 0;
    let crdDeleted = false;
    let crdRecreated = false;
    let conflictsMade = false;
    let conflictCrsDeleted = false;
    let firstRevision = '';
    const revisionStored = async (revision: string): Promise<boolean> =>
      core.readNamespacedConfigMap({ namespace: opNs, name: `orkestra-${name}-rev-${revision}` }).then(
        () => true,
        () => false,
      );
    const rolloutTarget = async (): Promise<string | undefined> => {
      const state = await core
        .readNamespacedConfigMap({ namespace: opNs, name: `orkestra-${name}-rollout` })
        .then((cm) => cm.data?.['state'])
        .catch(() => undefined);
      if (state == null) return undefined;
      const parsed = JSON.parse(state) as { target?: string; phase?: string };
      return parsed.phase === 'Complete' ? parsed.target : undefined;
    };
    const steps: [string, () => Promise<boolean> | boolean, number?][] = [
      ['leader', () => operator.logs().some((l) => l.msg === 'became leader'), LEADER_TIMEOUT_MS],
      [
        // Renewal replaces the Lease (PUT): renewTime moves past acquireTime while the operator keeps leading.
        'the Lease renewed',
        async () => {
          const lease = await leases.readNamespacedLease({ namespace: opNs, name: `orkestra-${name}` });
          const { acquireTime, renewTime } = lease.spec ?? {};
          return (
            acquireTime != null &&
            renewTime != null &&
            new Date(renewTime).getTime() > new Date(acquireTime).getTime()
          );
        },
      ],
      ['operator ready', () => operator.logs().some((l) => l.msg === 'operator ready')],
      [
        'the LeaderElection Event on the Lease',
        async () =>
          (await core.listNamespacedEvent({ namespace: opNs })).items.some(
            (e) => e.reason === 'LeaderElection',
          ),
      ],
      [
        'CR created: Ready, finalizer, children, once Secret',
        async () => {
          if (!(await crs.list(ns)).some((cr) => cr.metadata.name === 'shop'))
            await crs.create(ns, 'shop', { greeting: 'hi', extra: 'true' });
          const cr = await crs.get(ns, 'shop');
          const secret = await core
            .readNamespacedSecret({ namespace: ns, name: 'shop-creds' })
            .catch(() => undefined);
          return (
            isReadyAtGeneration(cr) &&
            (cr.metadata.finalizers ?? []).length > 0 &&
            (await configMap('shop-config'))?.['greeting'] === 'hi' &&
            (await configMap('shop-extra')) != null &&
            secret != null
          );
        },
      ],
      [
        // ADR 0097: a child is written by a create-only apply; when the API server refuses it (the
        // name is taken by an object the cache does not hold) the operator reads the object (`get`)
        // and judges it (ADR 0032). One CR per kind, since a CR reports only its first failed write.
        'a child name taken by an unmanaged ConfigMap and Secret: ChildConflict naming each',
        async () => {
          const taken = [
            { cr: 'taken-a', child: 'taken-a-config' },
            { cr: 'taken-b', child: 'taken-b-plain' },
          ];
          if (!conflictsMade) {
            // Made once; a 409 (made by an earlier poll) is fine.
            const unlessExists = (error: unknown): void => {
              if ((error as { code?: number }).code !== 409) throw error;
            };
            const body = { metadata: { name: 'taken-a-config' }, data: { mine: 'eWVz' } }; // base64, for the Secret
            await core.createNamespacedConfigMap({ namespace: ns, body }).catch(unlessExists);
            body.metadata.name = 'taken-b-plain';
            await core.createNamespacedSecret({ namespace: ns, body }).catch(unlessExists);
            const present = new Set((await crs.list(ns)).map((cr) => cr.metadata.name));
            for (const { cr } of taken)
              if (!present.has(cr)) await crs.create(ns, cr, { greeting: 'hi', extra: 'false' });
            conflictsMade = true;
            return false;
          }
          if (!conflictCrsDeleted) {
            for (const { cr, child } of taken) {
              const ready = readyOf(await crs.get(ns, cr));
              if (ready?.reason !== 'ChildConflict' || !(ready.message ?? '').includes(child)) return false;
            }
            for (const { cr } of taken) await crs.remove(ns, cr);
            conflictCrsDeleted = true;
          }
          const left = new Set((await crs.list(ns)).map((cr) => cr.metadata.name));
          return taken.every(({ cr }) => !left.has(cr));
        },
      ],
      [
        // docs/reference/runtime.md §24: the Katalog is stored as a revision (create, get) and the CR records it.
        'the Katalog revision stored and recorded on the CR',
        async () => {
          const revision = (await crs.get(ns, 'shop')).status?.['katalogRevision'];
          if (typeof revision !== 'string' || !/^[0-9a-f]{10}$/.test(revision)) return false;
          firstRevision = revision;
          return (await revisionStored(revision)) && (await rolloutTarget()) === revision;
        },
      ],
      [
        // A changed Katalog (no spec.rollout: every CR at once) moves the rollout state (patch).
        'the Katalog changed: the new revision stored, rolled out and recorded on the CR',
        async () => {
          if (!reloaded) {
            writeFileSync(
              katalogPath,
              katalogText.replace('data: {extra: "yes"}', 'data: {extra: "yes", v: "2"}'),
            );
            reloaded = true;
            return false;
          }
          const revision = (await crs.get(ns, 'shop')).status?.['katalogRevision'];
          return (
            typeof revision === 'string' &&
            revision !== firstRevision &&
            (await revisionStored(revision)) &&
            (await rolloutTarget()) === revision
          );
        },
      ],
      [
        'an Event about the CR',
        async () =>
          (await core.listNamespacedEvent({ namespace: ns })).items.some(
            (e) => e.involvedObject.name === 'shop',
          ),
      ],
      [
        'drift corrected: a child changed by hand is restored',
        async () => {
          if (!tampered) {
            const cm = await core.readNamespacedConfigMap({ namespace: ns, name: 'shop-config' });
            const secret = await core.readNamespacedSecret({ namespace: ns, name: 'shop-plain' });
            // A 409 (the operator wrote in between) is retried on the next poll.
            tampered = await Promise.all([
              core.replaceNamespacedConfigMap({
                namespace: ns,
                name: 'shop-config',
                body: { ...cm, data: { ...cm.data, greeting: 'tampered' } },
              }),
              core.replaceNamespacedSecret({
                namespace: ns,
                name: 'shop-plain',
                body: { ...secret, data: { greeting: Buffer.from('tampered').toString('base64') } },
              }),
            ]).then(
              () => true,
              () => false,
            );
            return false;
          }
          return (await configMap('shop-config'))?.['greeting'] === 'hi' && (await plainGreeting()) === 'hi';
        },
      ],
      [
        // ADR 0042: the same Event again raises the existing Event's count (a merge patch).
        'a repeated Event: its count raised to 2',
        async () => {
          const events = (await core.listNamespacedEvent({ namespace: ns })).items;
          if (
            events.some(
              (e) => e.involvedObject.name === 'shop' && e.reason === 'Updated' && (e.count ?? 0) >= 2,
            )
          )
            return true;
          // Change the same child by hand again once the last change was corrected (the drift
          // limiter allows 5 corrections a minute: at most 3 here).
          if (retampered < 3 && (await configMap('shop-config'))?.['greeting'] === 'hi') {
            const cm = await core.readNamespacedConfigMap({ namespace: ns, name: 'shop-config' });
            await core
              .replaceNamespacedConfigMap({
                namespace: ns,
                name: 'shop-config',
                body: { ...cm, data: { ...cm.data, greeting: 'tampered' } },
              })
              .then(
                () => retampered++,
                () => undefined,
              );
          }
          return false;
        },
      ],
      [
        'CR changed: child applied, child pruned',
        async () => {
          const cr = await crs.get(ns, 'shop');
          if (cr.spec?.['greeting'] !== 'bye')
            await crs.patchSpec(ns, 'shop', { greeting: 'bye', extra: 'false' });
          return (
            isReadyAtGeneration(await crs.get(ns, 'shop')) &&
            (await configMap('shop-config'))?.['greeting'] === 'bye' &&
            (await plainGreeting()) === 'bye' &&
            (await configMap('shop-extra')) == null
          );
        },
      ],
      [
        'CR deleted: finalizer removed',
        async () => {
          const list = await crs.list(ns);
          const cr = list.find((c) => c.metadata.name === 'shop');
          if (cr == null) return true;
          if (cr.metadata.deletionTimestamp == null) await crs.remove(ns, 'shop');
          return false;
        },
      ],
      [
        // docs/reference/runtime.md §2.9: the CRD watch (list, watch by name) sees the CRD go.
        'CRD deleted: entry deactivated',
        async () => {
          if (!crdDeleted) {
            await removeCrd();
            crdDeleted = true;
          }
          return operator
            .logs()
            .some((l) => l.msg === 'CRD deleted; entry deactivated until it is created again');
        },
      ],
      [
        'CRD created again: entry reactivated',
        async () => {
          if (!crdRecreated)
            // A 409 while the old CRD is still being removed is retried on the next poll.
            crdRecreated = await installCrd(admin, api).then(
              () => true,
              () => false,
            );
          return operator.logs().some((l) => l.msg === 'CRD created again; entry reactivated');
        },
      ],
    ];
    for (const [what, check, timeoutMs] of steps) {
      const failed = await step(what, check, timeoutMs ?? STEP_TIMEOUT_MS);
      if (failed != null) return failed;
    }
    return undefined;
  } finally {
    operator.kill('SIGKILL');
    await operator.exited;
    // Remove leftovers so a stuck finalizer does not block the namespace.
    const left = await crs.list(ns).catch(() => []);
    for (const cr of left) {
      await objects
        .patch(
          {
            apiVersion: `${group}/v1`,
            kind: 'Shop',
            metadata: { name: cr.metadata.name, namespace: ns, finalizers: [] },
          } as KubernetesObject,
          undefined,
          undefined,
          undefined,
          undefined,
          'application/merge-patch+json',
        )
        .catch(() => undefined);
    }
    await removeCrd();
    await removeNs();
    await removeOpNs();
  }
}

const PLACEHOLDER = { katalog: 'zzkatalogzz', namespace: 'zznamespacezz', group: 'zzgroupzz.example.com' };

/** remapVariant renames the placeholder Katalog name, namespace and API group in a variant's manifests. */
function remapVariant(variant: RbacVariant, to: typeof PLACEHOLDER): Manifest[] {
  const text = JSON.stringify(variant.manifests)
    .replaceAll(PLACEHOLDER.group, to.group)
    .replaceAll(PLACEHOLDER.katalog, to.katalog)
    .replaceAll(PLACEHOLDER.namespace, to.namespace);
  return JSON.parse(text) as Manifest[];
}

describe('generated RBAC', () => {
  it('has no wildcards for any example Katalog', () => {
    const examples = join(import.meta.dirname, '../../../examples');
    const found: string[] = [];
    let checked = 0;
    for (const name of readdirSync(examples)) {
      const loaded = (() => {
        try {
          return loadKatalog({ path: join(examples, name, 'katalog.yaml') });
        } catch {
          return undefined;
        }
      })();
      if (loaded == null || !loaded.ok) continue;
      checked++;
      found.push(
        ...wildcardsIn(generateRbac(loaded.katalog, { namespace: 'orkestra-system' }).manifests).map(
          (w) => `${name}: ${w}`,
        ),
      );
    }
    expect(checked).toBeGreaterThanOrEqual(5);
    expect(found).toEqual([]);
    reportFigure(SCENARIO, 'example Katalogs checked for wildcards', checked);
  });

  it(
    'every verb is needed: the e2e passes with all rules, and without any one verb it fails on a 403 for that verb and resource',
    async () => {
      if (cp == null) throw new Error('no control plane');
      const plane = cp;
      // Variants are computed once on placeholder names, then renamed per run.
      const template = loadKatalogText(e2eKatalog(PLACEHOLDER.katalog, PLACEHOLDER.group));
      const variants = rbacVariants(generateRbac(template, { namespace: PLACEHOLDER.namespace }).manifests);
      const started = performance.now();
      const baseline = await e2e(plane, variants[0] as RbacVariant, 0);
      expect(baseline.failedAt).toBeUndefined();
      const outcomes: { variant: RbacVariant; outcome: E2eOutcome }[] = [];
      const rest = variants.slice(1);
      for (let i = 0; i < rest.length; i += PARALLEL) {
        const batch = rest.slice(i, i + PARALLEL);
        const results = await Promise.all(batch.map((v, j) => e2e(plane, v, i + j + 1)));
        batch.forEach((variant, j) => outcomes.push({ variant, outcome: results[j] as E2eOutcome }));
      }
      const audit = parseAuditLog(existsSync(auditLogPath) ? readFileSync(auditLogPath, 'utf8') : '');
      const unproven: string[] = [];
      for (const { variant, outcome } of outcomes) {
        const removed = variant.removed;
        const proof =
          removed == null
            ? undefined
            : forbiddenProof(audit, outcome.username, {
                ...removed,
                apiGroup: removed.apiGroup === PLACEHOLDER.group ? outcome.group : removed.apiGroup,
              });
        const verdict =
          outcome.failedAt == null
            ? 'e2e PASSED (verb not needed)'
            : proof == null
              ? `fails at "${outcome.failedAt}" but no 403 for that verb and resource (not proven)`
              : `fails at "${outcome.failedAt}", proven by a 403 on ${proof.verb ?? ''} ${proof.objectRef?.resource ?? ''}${proof.objectRef?.subresource == null ? '' : `/${proof.objectRef.subresource}`}`;
        console.log(`[chaos] rbac: without ${variant.label} -> ${verdict}`);
        if (outcome.failedAt == null || proof == null) unproven.push(`${variant.label}: ${verdict}`);
      }
      expect(audit.length).toBeGreaterThan(0);
      expect(outcomes).toHaveLength(rest.length);
      expect(rest.length).toBeGreaterThan(0);
      reportClaim(SCENARIO, 'verbs granted (variants)', rest.length);
      reportClaim(
        SCENARIO,
        'verbs whose removal fails the e2e with a 403 for it',
        rest.length - unproven.length,
      );
      reportFigure(SCENARIO, 'e2e runs total time', Math.round(performance.now() - started), 'ms');
      expect(unproven).toEqual([]);
    },
    E2E_TIMEOUT_MS,
  );
});

/**
 * Helpers for the runtime integration tests: the shared per-file setup (useRuntimeTest: control
 * plane, a unique CRD, its CR client and the runtime's lifecycle), polling, typed access to custom
 * objects, ConfigMaps and Jobs as admin, and a quiet logger. CRD installation and the CR client
 * come from `@orkestra/testenv`.
 */
import { randomBytes } from 'node:crypto';
import { BatchV1Api, CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { KubeConfig } from '@kubernetes/client-node';
import { createKatalogRuntime } from '@orkestra/reconciler';
import type { KatalogRuntime } from '@orkestra/reconciler';
import type { CreateKatalogRuntimeOptions } from '../src/runtime/katalog-runtime.js';
import { crClient as testenvCrClient, installCrd } from '@orkestra/testenv';
import type {
  CrClient as TestenvCrClient,
  CustomObject,
  CustomObjectCondition,
  CustomResourceType,
} from '@orkestra/testenv';
import { useControlPlane } from '@orkestra/testenv/vitest';
import type { ControlPlaneFixture } from '@orkestra/testenv/vitest';
import { loadKatalog } from '@orkestra/types';
import type { Katalog, Logger } from '@orkestra/types';
import { pino } from 'pino';
import { afterAll, beforeAll } from 'vitest';

export { createNamespace, installCrd } from '@orkestra/testenv';

/** uniqueGroup returns an API group no other test file uses. */
export function uniqueGroup(prefix: string): string {
  return `${prefix}${randomBytes(3).toString('hex')}.example.com`;
}

/** katalogFrom loads inline Katalog text or throws with every issue. */
export function katalogFrom(text: string): Katalog {
  const result = loadKatalog({ text });
  if (!result.ok) throw new Error(result.errors.map((e) => `${e.path}: ${e.message}`).join('\n'));
  return result.katalog;
}

/** waitFor polls until `check` is true; the deadline only turns a hang into a failure. */
export async function waitFor(
  what: string,
  check: () => boolean | Promise<boolean>,
  deadlineMs = 30_000,
  intervalMs = 50,
): Promise<void> {
  const until = Date.now() + deadlineMs;
  let last: unknown;
  for (;;) {
    try {
      if (await check()) return;
    } catch (error) {
      last = error;
    }
    if (Date.now() > until) {
      throw new Error(
        `timed out after ${deadlineMs} ms waiting for ${what}${last == null ? '' : ` (last error: ${String(last)})`}`,
      );
    }
    await sleep(intervalMs);
  }
}

/** sleep resolves after `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** quietLogger is a pino logger at `warn` (set ORKESTRA_TEST_LOG=debug to see every reconcile). */
export function quietLogger(): Logger {
  return pino({ level: process.env['ORKESTRA_TEST_LOG'] ?? 'warn' }) as unknown as Logger;
}

/** CrObject is a custom object as read back, with the runtime's `status.inventory`. */
export interface CrObject extends CustomObject {
  readonly status?: CustomObject['status'] & {
    readonly inventory?: readonly {
      kind: string;
      name: string;
      namespace?: string;
      mode: string;
      source: string;
      /** The child's readiness at the last status write. */
      readiness?: { state: string; message?: string; since: string };
    }[];
  };
}

/** CrClient reads and writes the CRs of one kind as admin. */
export type CrClient = TestenvCrClient<CrObject>;

/** crClient returns a CrClient for apiTypes. */
export function crClient(kubeConfig: KubeConfig, api: CustomResourceType): CrClient {
  return testenvCrClient<CrObject>(kubeConfig, api);
}

/** readyOf returns a CR's Ready condition (Synced and every child ready). */
export function readyOf(cr: CustomObject): CustomObjectCondition | undefined {
  return cr.status?.conditions?.find((c) => c.type === 'Ready');
}

/**
 * syncedOf returns a CR's Synced condition: the outcome of the last reconcile. Without workload
 * controllers Deployments never become ready here, so tests of the reconcile itself read Synced.
 */
export function syncedOf(cr: CustomObject): CustomObjectCondition | undefined {
  return cr.status?.conditions?.find((c) => c.type === 'Synced');
}

/** isSyncedAtGeneration tells whether the CR reports Synced=True for its current generation. */
function isSyncedAtGeneration(cr: CustomObject): boolean {
  const synced = syncedOf(cr);
  return synced?.status === 'True' && synced.observedGeneration === cr.metadata.generation;
}

/** waitForSynced polls until the CR `namespace/name` is Synced=True for its current generation. */
export async function waitForSynced(crs: CrClient, namespace: string, name: string): Promise<void> {
  await waitFor(`${name} Synced=True`, async () => isSyncedAtGeneration(await crs.get(namespace, name)));
}

/** waitForReady polls until the CR `namespace/name` is Ready=True for its current generation. */
export async function waitForReady(crs: CrClient, namespace: string, name: string): Promise<void> {
  await waitFor(`${name} Ready=True`, async () => {
    const cr = await crs.get(namespace, name);
    const ready = readyOf(cr);
    return ready?.status === 'True' && ready.observedGeneration === cr.metadata.generation;
  });
}

/** readConfigMap returns a ConfigMap's data (`{}` when it has none), or undefined when it does not exist. */
export async function readConfigMap(
  kubeConfig: KubeConfig,
  namespace: string,
  name: string,
): Promise<Record<string, string> | undefined> {
  try {
    return (
      (await kubeConfig.makeApiClient(CoreV1Api).readNamespacedConfigMap({ namespace, name })).data ?? {}
    );
  } catch (error) {
    if ((error as { code?: number }).code === 404) return undefined;
    throw error;
  }
}

/** jobExists tells whether the Job `namespace/name` can be read. */
export async function jobExists(kubeConfig: KubeConfig, namespace: string, name: string): Promise<boolean> {
  try {
    await kubeConfig.makeApiClient(BatchV1Api).readNamespacedJob({ namespace, name });
    return true;
  } catch {
    return false;
  }
}

/** completeJob marks a Job succeeded as admin, as the Job controller would (no kubelet runs Pods here). */
export async function completeJob(kubeConfig: KubeConfig, namespace: string, name: string): Promise<void> {
  const now = new Date().toISOString();
  await kubeConfig.makeApiClient(BatchV1Api).patchNamespacedJobStatus(
    {
      namespace,
      name,
      body: {
        status: {
          startTime: now,
          completionTime: now,
          succeeded: 1,
          conditions: [
            { type: 'SuccessCriteriaMet', status: 'True', lastProbeTime: now, lastTransitionTime: now },
            { type: 'Complete', status: 'True', lastProbeTime: now, lastTransitionTime: now },
          ],
        },
      },
    },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
}

/** RuntimeTestOptions names the one custom resource kind of a test file. */
export interface RuntimeTestOptions {
  /** API group prefix; a random suffix makes the group unique to the file. */
  readonly prefix: string;
  readonly kind: string;
  readonly plural: string;
  /** Run this file on its own control plane with workloads (kube-scheduler, kwok). Default false. */
  readonly workloads?: boolean;
}

/** StartRuntimeOptions is createKatalogRuntime's options; kubeConfig (admin) and logger (quiet) have defaults. */
export type StartRuntimeOptions = Omit<CreateKatalogRuntimeOptions, 'kubeConfig' | 'logger'> &
  Partial<Pick<CreateKatalogRuntimeOptions, 'kubeConfig' | 'logger'>>;

/** RuntimeTest is a runtime test file's shared setup; see {@link useRuntimeTest}. */
export interface RuntimeTest {
  readonly env: ControlPlaneFixture;
  /** The file's unique API group. */
  readonly group: string;
  /** The file's kind in that group, version v1. */
  readonly api: {
    readonly group: string;
    readonly version: 'v1';
    readonly kind: string;
    readonly plural: string;
  };
  /** The CR client for `api` (usable from the first hook on). */
  readonly crs: CrClient;
  /** startRuntime creates and starts a runtime; the last one started is stopped after all tests. */
  startRuntime(options: StartRuntimeOptions): Promise<KatalogRuntime>;
  /** onCleanup registers work for after all tests, once the runtime stopped (run last-in first-out). */
  onCleanup(cleanup: () => Promise<void>): void;
}

/**
 * useRuntimeTest is the preamble of a runtime integration test file: the control plane and its
 * namespace, a unique API group with one kind whose CRD is installed before the file's own
 * `beforeAll`, and an `afterAll` that stops the runtime, then runs the registered cleanups and
 * removes the CRD. Call it once at the top of the file.
 *
 * @example
 * const { env, group, crs, startRuntime } = useRuntimeTest({ prefix: 'rt', kind: 'Website', plural: 'websites' });
 * beforeAll(async () => {
 *   runtime = await startRuntime({ katalog });
 * });
 */
export function useRuntimeTest(options: RuntimeTestOptions): RuntimeTest {
  const env = useControlPlane({ workloads: options.workloads === true });
  const group = uniqueGroup(options.prefix);
  const api = { group, version: 'v1', kind: options.kind, plural: options.plural } as const;
  const cleanups: (() => Promise<void>)[] = [];
  let runtime: KatalogRuntime | undefined;
  let client: CrClient | undefined;
  const crs = (): CrClient => (client ??= crClient(env.kubeConfig, api));

  beforeAll(async () => {
    cleanups.push(await installCrd(env.kubeConfig, api));
  });
  afterAll(async () => {
    await runtime?.stop({ timeoutMs: 5000 });
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  return {
    env,
    group,
    api,
    crs: {
      create: (namespace, name, spec) => crs().create(namespace, name, spec),
      get: (namespace, name) => crs().get(namespace, name),
      list: (namespace) => crs().list(namespace),
      patchSpec: (namespace, name, spec) => crs().patchSpec(namespace, name, spec),
      remove: (namespace, name) => crs().remove(namespace, name),
      exists: (namespace, name) => crs().exists(namespace, name),
    },
    async startRuntime(startOptions) {
      runtime = createKatalogRuntime({ kubeConfig: env.kubeConfig, logger: quietLogger(), ...startOptions });
      await runtime.start();
      return runtime;
    },
    onCleanup: (cleanup) => {
      cleanups.push(cleanup);
    },
  };
}

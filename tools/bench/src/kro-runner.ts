/**
 * startKro runs the peer, kro (github.com/kubernetes-sigs/kro), built from the Go module proxy by
 * build-kro.sh: installs kro's CRDs, starts its controller against the control plane with leader
 * election off, its HTTP listeners on free loopback ports and the same reconcile concurrency and
 * resync period as Orkestra, applies the bench ResourceGraphDefinition and waits until kro has
 * made the instance CRD and reports the graph Active.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubernetesObjectApi, PatchStrategy } from '@kubernetes/client-node';
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import { sumMetric } from '@orkestra/testenv';
import { freePort } from './free-port.js';
import { installCrds } from './install-crds.js';
import { procRss } from './proc-rss.js';
import { sleep } from './sleep.js';
import type { SystemUnderTest } from './system-under-test.js';
import { KRO_RESOURCE, kroGraph } from './workload.js';
import type { CrResource } from './workload.js';

/** KRO_VERSION is the kro release the benchmark builds (override: ORKESTRA_KRO_VERSION). */
export const KRO_VERSION = process.env['ORKESTRA_KRO_VERSION'] ?? 'v0.9.4';

/** KroBuild is where build-kro.sh put the binary and kro's CRDs. */
export interface KroBuild {
  readonly binary: string;
  readonly crdDir: string;
}

/**
 * buildKro runs build-kro.sh (a no-op when the cached binary's stamp matches) and returns the
 * binary's path, or throws with the script's last lines (no Go, no network, build failure).
 */
export async function buildKro(logPath: string): Promise<KroBuild> {
  const script = fileURLToPath(new URL('../build-kro.sh', import.meta.url));
  const logFd = openSync(logPath, 'a');
  let stdout = '';
  try {
    const child = spawn('bash', [script], {
      stdio: ['ignore', 'pipe', logFd],
      env: { ...process.env, ORKESTRA_KRO_VERSION: KRO_VERSION },
    });
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => (stdout += chunk));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    if (code !== 0) {
      const tail = readFileSync(logPath, 'utf8').trim().split('\n').slice(-5).join(' | ');
      throw new Error(`build-kro.sh exited with ${code}: ${tail}`);
    }
  } finally {
    closeSync(logFd);
  }
  const binary = stdout.trim().split('\n').pop() ?? '';
  return { binary, crdDir: join(binary, '..', 'crds') };
}

/** KroRunnerOptions configures startKro. */
export interface KroRunnerOptions {
  readonly build: KroBuild;
  readonly kubeConfig: KubeConfig;
  readonly kubeconfigPath: string;
  readonly namespace: string;
  /** `--dynamic-controller-concurrent-reconciles`. */
  readonly workers: number;
  /** `--dynamic-controller-default-resync-period`, seconds; undefined keeps kro's default (10 h). */
  readonly resyncSeconds?: number | undefined;
  /** The instance type (and graph) this run uses. Default KRO_RESOURCE. */
  readonly resource?: CrResource;
  /** File receiving kro's log. */
  readonly logPath: string;
  readonly startTimeoutMs?: number;
}

/** KRO_FLAGS_NOTE says which kro flags the benchmark sets and why (printed in the report). */
export const KRO_FLAGS_NOTE =
  'leader election off; client QPS 1000 / burst 2000 (default 100/150) so no client-side rate limit is measured; ' +
  'instance reconciles and resync period set to the same values as Orkestra';

/** startKro starts kro and returns it as a SystemUnderTest once the bench graph is Active. */
export async function startKro(options: KroRunnerOptions): Promise<SystemUnderTest> {
  const crds = readdirSync(options.build.crdDir)
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => readFileSync(join(options.build.crdDir, f), 'utf8'));
  await installCrds(options.kubeConfig, crds);

  const [metricsPort, probePort] = [await freePort(), await freePort()];
  const logFd = openSync(options.logPath, 'a');
  let child: ChildProcess;
  try {
    child = spawn(
      options.build.binary,
      [
        `--metrics-bind-address=127.0.0.1:${metricsPort}`,
        `--health-probe-bind-address=127.0.0.1:${probePort}`,
        '--leader-elect=false',
        `--dynamic-controller-concurrent-reconciles=${options.workers}`,
        ...(options.resyncSeconds == null
          ? []
          : [`--dynamic-controller-default-resync-period=${options.resyncSeconds}`]),
        '--client-qps=1000',
        '--client-burst=2000',
        '--graceful-shutdown-timeout=5s',
        `--kubeconfig=${options.kubeconfigPath}`,
        '--zap-log-level=info',
      ],
      { stdio: ['ignore', logFd, logFd], env: { ...process.env, KUBECONFIG: options.kubeconfigPath } },
    );
  } finally {
    closeSync(logFd);
  }
  let exited: string | undefined;
  child.on(
    'exit',
    (code, signal) => (exited = `kro exited with ${signal ?? code} (log: ${options.logPath})`),
  );
  const resource = options.resource ?? KRO_RESOURCE;
  const graph = kroGraph(resource);
  const objects = KubernetesObjectApi.makeApiClient(options.kubeConfig);
  const kill = async (): Promise<void> => {
    if (exited != null) return;
    child.kill('SIGTERM');
    for (let i = 0; i < 100 && exited == null; i++) await sleep(100);
    if (exited == null) child.kill('SIGKILL');
  };
  // The graph is deleted (while kro runs, so kro removes its finalizer) before kro stops: a later
  // kro process on the same API server then starts no controller for it.
  const stop = async (): Promise<void> => {
    if (exited != null) return;
    const ref = { apiVersion: graph.apiVersion, kind: graph.kind, metadata: { name: graph.metadata.name } };
    try {
      await objects.delete(ref);
      for (let i = 0; i < 300 && exited == null; i++) {
        const gone = await objects.read(ref).then(
          () => false,
          () => true,
        );
        if (gone) break;
        await sleep(100);
      }
    } catch {
      // Never applied, or already gone.
    }
    await kill();
  };

  try {
    const deadline = Date.now() + (options.startTimeoutMs ?? 120_000);
    const alive = (): void => {
      if (exited != null) throw new Error(exited);
      if (Date.now() > deadline)
        throw new Error(`kro did not become ready in time (log: ${options.logPath})`);
    };
    for (;;) {
      alive();
      const ok = await fetch(`http://127.0.0.1:${probePort}/readyz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      await sleep(250);
    }
    await objects.patch(
      graph as KubernetesObject,
      undefined,
      undefined,
      'bench',
      true,
      PatchStrategy.ServerSideApply,
    );
    let lastStatus = 'no status yet';
    for (;;) {
      if (exited != null) throw new Error(exited);
      if (Date.now() > deadline) {
        throw new Error(`ResourceGraphDefinition ${graph.metadata.name} not Active in time: ${lastStatus}`);
      }
      const current = (await objects.read({
        apiVersion: graph.apiVersion,
        kind: graph.kind,
        metadata: { name: graph.metadata.name },
      })) as KubernetesObject & {
        status?: { state?: string; conditions?: { type?: string; status?: string; message?: string }[] };
      };
      if (current.status?.state === 'Active') break;
      const failing = (current.status?.conditions ?? []).filter((c) => c.status !== 'True');
      if (failing.length > 0) lastStatus = failing.map((c) => `${c.type}: ${c.message ?? ''}`).join('; ');
      await sleep(250);
    }
    // The instance CRD is kro's; wait until it is served.
    await waitForCrd(options.kubeConfig, `${resource.plural}.${resource.group}`, alive);
  } catch (error) {
    await stop();
    throw error;
  }

  const metrics = async (): Promise<string> => {
    const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    return res.text();
  };
  const pid = child.pid ?? 0;
  return {
    name: `kro ${KRO_VERSION}${options.resyncSeconds == null ? ' (default resync)' : ` (${options.resyncSeconds} s resync)`}`,
    resource,
    namespace: options.namespace,
    pid,
    async memory() {
      const rssBytes = await procRss(pid);
      const heap = sumMetric(await metrics(), 'go_memstats_heap_alloc_bytes');
      return {
        rssBytes,
        ...(heap > 0 ? { heapUsedBytes: heap } : {}),
        method:
          'VmRSS of the kro process (/proc) and go_memstats_heap_alloc_bytes; no forced GC (Go cannot be asked to from outside)',
      };
    },
    async reconciles() {
      return sumMetric(await metrics(), 'dynamic_controller_reconcile_total');
    },
    async cpuMs() {
      return sumMetric(await metrics(), 'process_cpu_seconds_total') * 1000;
    },
    stop,
  };
}

async function waitForCrd(kubeConfig: KubeConfig, name: string, alive: () => void): Promise<void> {
  const objects = KubernetesObjectApi.makeApiClient(kubeConfig);
  for (;;) {
    alive();
    try {
      const crd = (await objects.read({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name },
      })) as KubernetesObject & { status?: { conditions?: { type: string; status: string }[] } };
      if (crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') === true)
        return;
    } catch {
      // Not created yet.
    }
    await sleep(250);
  }
}

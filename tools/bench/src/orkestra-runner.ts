/**
 * startOrkestra runs the Orkestra operator as the Helm chart installs it (`startOperator` of
 * @orkestra/operator: revisions, leader election and the Control Center on, metrics scraped every
 * 15 s) on the bench Katalog in a child Node process (runtime-child.ts, run through tsx with
 * `--expose-gc`; the operator's packages load from their built JavaScript, as in the image), so
 * its memory is measured alone, and returns
 * it as a SystemUnderTest once its informers have synced and it leads.
 */
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { openSync, closeSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CoreV1Api } from '@kubernetes/client-node';
import type { KubeConfig } from '@kubernetes/client-node';
import type { ChildMessage, ChildSample, ChildStats, ChildSteps, ParentMessage } from './child-protocol.js';
import { installCrds } from './install-crds.js';
import type { SystemUnderTest } from './system-under-test.js';
import { ORKESTRA_RESOURCE, orkestraCrd, orkestraKatalogText } from './workload.js';

/** OPERATOR_NAMESPACE is the chart's default operator namespace. */
const OPERATOR_NAMESPACE = 'orkestra-system';

/** OPERATOR_CLIENT is the operator's User-Agent product in the audit log (ADR 0035). */
const OPERATOR_CLIENT = 'orkestra-operator';

/** OrkestraRunnerOptions configures startOrkestra. */
export interface OrkestraRunnerOptions {
  readonly kubeConfig: KubeConfig;
  readonly kubeconfigPath: string;
  readonly namespace: string;
  /** The operator namespace (Lease, revision and rollout ConfigMaps); created when missing. Default `orkestra-system`. */
  readonly operatorNamespace?: string;
  /** The Katalog entry's `workers`. */
  readonly workers: number;
  /** The Katalog entry's `resync` (a duration, e.g. `30s`). */
  readonly resync: string;
  /** File receiving the child's stdout and stderr (the runtime's JSON log). */
  readonly logPath: string;
  /**
   * Directory for a V8 CPU profile of the runtime child (`node --cpu-prof`), written when it
   * stops; undefined: no profile.
   */
  readonly cpuProfileDir?: string | undefined;
  /** How long start-up may take. Default 180 000 ms. */
  readonly startTimeoutMs?: number;
  /**
   * Runtime children sharing the CRs as shards (`--sharding`, docs/reference/runtime.md §25); each
   * logs to `logPath` with `-<i>` before its extension. Default 1 (not sharded).
   */
  readonly replicas?: number;
  /** The Katalog the runtime runs instead of the benchmark's (the admission bench). */
  readonly katalogText?: string;
  /** More `ork run` flags. */
  readonly args?: readonly string[];
}

/** ReplicaSample is one replica's figures in a sharded run. */
export interface ReplicaSample {
  readonly shard: string;
  readonly rssBytes: number;
  readonly cpuMs: number;
  readonly reconciles: number;
  readonly sharderPatches: number;
}

/** OrkestraSystem is Orkestra as a SystemUnderTest; sharded runs also answer per replica. */
export interface OrkestraSystem extends SystemUnderTest {
  /** Every replica's memory (after a full collection) and counters; one item when not sharded. */
  replicaSamples(): Promise<ReplicaSample[]>;
}

/**
 * startOrkestra installs the CRD, starts the runtime child (or `replicas` sharded children) and
 * waits for `started`. Sharded: memory, CPU and reconciles are summed over the replicas.
 */
export async function startOrkestra(options: OrkestraRunnerOptions): Promise<OrkestraSystem> {
  await installCrds(options.kubeConfig, [JSON.stringify(orkestraCrd())]);
  const operatorNamespace = options.operatorNamespace ?? OPERATOR_NAMESPACE;
  await options.kubeConfig
    .makeApiClient(CoreV1Api)
    .createNamespace({ body: { metadata: { name: operatorNamespace } } })
    .catch((error: unknown) => {
      if ((error as { code?: unknown }).code !== 409) throw error;
    });
  const replicas = options.replicas ?? 1;
  if (replicas <= 1) return startReplicas(options, [undefined]);
  const shards = Array.from({ length: replicas }, (_, i) => `bench-${i}-${randomBytes(4).toString('hex')}`);
  return startReplicas(options, shards);
}

async function startReplicas(
  options: OrkestraRunnerOptions,
  shards: readonly (string | undefined)[],
): Promise<OrkestraSystem> {
  const started = await Promise.allSettled(
    shards.map((shard, i) =>
      startOne(
        shards.length === 1
          ? options
          : { ...options, logPath: options.logPath.replace(/(\.[a-z]+)?$/, `-${i}$1`) },
        shard == null ? undefined : { id: shard, replicas: shards.length },
      ),
    ),
  );
  const ok = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = started.find((s) => s.status === 'rejected');
  if (failed != null) {
    await Promise.all(ok.map((one) => one.system.stop()));
    throw failed.reason;
  }
  if (ok.length === 1 && ok[0] != null) return ok[0].system;
  const sum = async (read: (one: SystemUnderTest) => Promise<number | null>): Promise<number | null> => {
    const values = await Promise.all(ok.map((one) => read(one.system)));
    return values.some((v) => v == null) ? null : values.reduce<number>((a, v) => a + (v ?? 0), 0);
  };
  const first = ok[0] as Started;
  return {
    ...first.system,
    name: `orkestra ×${ok.length}`,
    async memory() {
      const samples = await Promise.all(ok.map((one) => one.system.memory()));
      return {
        rssBytes: samples.reduce((a, s) => a + s.rssBytes, 0),
        heapUsedBytes: samples.reduce((a, s) => a + (s.heapUsedBytes ?? 0), 0),
        method: `process.memoryUsage() in each of the ${ok.length} runtime children after global.gc(), summed`,
      };
    },
    reconciles: () => sum((one) => one.reconciles()),
    cpuMs: () => sum((one) => one.cpuMs()),
    resyncsAdded: () => sum((one) => one.resyncsAdded?.() ?? Promise.resolve(null)),
    async replicaSamples() {
      return (await Promise.all(ok.map((one) => one.system.replicaSamples()))).flat();
    },
    async stop() {
      await Promise.all(ok.map((one) => one.system.stop()));
    },
  };
}

interface Started {
  readonly system: OrkestraSystem;
}

async function startOne(
  options: OrkestraRunnerOptions,
  shard: { readonly id: string; readonly replicas: number } | undefined,
): Promise<Started> {
  const operatorNamespace = options.operatorNamespace ?? OPERATOR_NAMESPACE;
  const childPath = fileURLToPath(new URL('./runtime-child.ts', import.meta.url));
  const packageDir = fileURLToPath(new URL('..', import.meta.url));
  const logFd = openSync(options.logPath, 'a');
  let child: ChildProcess;
  try {
    child = fork(childPath, [], {
      cwd: packageDir,
      // The operator's packages load from their built JavaScript (dist/), as in the image; tsx
      // only compiles the runtime child itself. `pnpm build` first (main.ts checks it).
      execArgv: [
        '--import',
        import.meta.resolve('tsx'),
        '--expose-gc',
        ...(options.cpuProfileDir == null ? [] : ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDir}`]),
      ],
      stdio: ['ignore', logFd, logFd, 'ipc'],
    });
  } finally {
    closeSync(logFd);
  }
  const channel = new ChildChannel(child, options.logPath);
  try {
    await channel.request(
      {
        type: 'start',
        kubeconfigPath: options.kubeconfigPath,
        katalogText:
          options.katalogText ?? orkestraKatalogText({ workers: options.workers, resync: options.resync }),
        ...(options.args == null ? {} : { args: options.args }),
        namespace: options.namespace,
        operatorNamespace,
        ...(shard == null ? {} : { shard }),
      },
      'started',
      options.startTimeoutMs ?? 180_000,
    );
  } catch (error) {
    channel.kill();
    throw error;
  }
  let stopped = false;
  const pid = child.pid ?? 0;
  const system: OrkestraSystem = {
    name: 'orkestra',
    client: OPERATOR_CLIENT,
    resource: ORKESTRA_RESOURCE,
    namespace: options.namespace,
    pid,
    async memory() {
      const s = (await channel.request({ type: 'sample' }, 'sample', 30_000)) as ChildSample;
      return {
        rssBytes: s.rssBytes,
        heapUsedBytes: s.heapUsedBytes,
        method: 'process.memoryUsage() in the runtime child after global.gc()',
      };
    },
    async reconciles() {
      const s = (await channel.request({ type: 'stats' }, 'stats', 30_000)) as ChildStats;
      return s.reconciles;
    },
    async cpuMs() {
      const s = (await channel.request({ type: 'stats' }, 'stats', 30_000)) as ChildStats;
      return s.cpuMs;
    },
    async resyncsAdded() {
      const s = (await channel.request({ type: 'stats' }, 'stats', 30_000)) as ChildStats;
      return s.resyncsAdded;
    },
    async reconcileSteps() {
      const s = (await channel.request({ type: 'steps' }, 'steps', 30_000)) as ChildSteps;
      return s.steps;
    },
    async replicaSamples() {
      const m = (await channel.request({ type: 'sample' }, 'sample', 30_000)) as ChildSample;
      const s = (await channel.request({ type: 'stats' }, 'stats', 30_000)) as ChildStats;
      return [
        {
          shard: shard?.id ?? '',
          rssBytes: m.rssBytes,
          cpuMs: s.cpuMs,
          reconciles: s.reconciles,
          sharderPatches: s.sharderPatches ?? 0,
        },
      ];
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      try {
        await channel.request({ type: 'stop' }, 'stopped', 15_000);
        // Let it exit by itself (a CPU profile is written on exit), then make sure.
        await channel.exited(10_000);
      } catch {
        // Fall through to the kill below.
      }
      channel.kill();
    },
  };
  return { system };
}

/** ChildChannel sends one request at a time to the child and waits for the reply type. */
class ChildChannel {
  readonly #child: ChildProcess;
  readonly #logPath: string;
  #pending: { type: string; resolve: (m: ChildMessage) => void; reject: (e: Error) => void } | undefined;
  #exited: string | undefined;

  constructor(child: ChildProcess, logPath: string) {
    this.#child = child;
    this.#logPath = logPath;
    child.on('message', (message: ChildMessage) => {
      const pending = this.#pending;
      if (pending == null) return;
      if (message.type === 'error') {
        this.#pending = undefined;
        pending.reject(new Error(`Orkestra runtime child: ${message.message} (log: ${this.#logPath})`));
      } else if (message.type === pending.type) {
        this.#pending = undefined;
        pending.resolve(message);
      }
    });
    child.on('exit', (code, signal) => {
      this.#exited = `exited with ${signal ?? code}`;
      this.#pending?.reject(new Error(`Orkestra runtime child ${this.#exited} (log: ${this.#logPath})`));
      this.#pending = undefined;
    });
  }

  request(message: ParentMessage, replyType: ChildMessage['type'], timeoutMs: number): Promise<ChildMessage> {
    if (this.#exited != null) {
      return Promise.reject(new Error(`Orkestra runtime child ${this.#exited} (log: ${this.#logPath})`));
    }
    return new Promise<ChildMessage>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending = undefined;
        reject(
          new Error(
            `Orkestra runtime child: no "${replyType}" within ${timeoutMs} ms (log: ${this.#logPath})`,
          ),
        );
      }, timeoutMs);
      this.#pending = {
        type: replyType,
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      };
      this.#child.send(message);
    });
  }

  /** exited resolves when the child has exited, or after `timeoutMs`. */
  exited(timeoutMs: number): Promise<void> {
    if (this.#exited != null) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      this.#child.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  kill(): void {
    if (this.#exited == null) this.#child.kill('SIGKILL');
  }
}

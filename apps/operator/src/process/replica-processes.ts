/**
 * The extra replicas of `ork dev --replicas N` (docs/reference/runtime.md §25.1): N − 1 `ork run
 * --sharding` child processes against the dev control plane, each with its own event loop, shard
 * Lease and loopback ports, so killing one (`kill -9 <pid>`) shows the hand-off a crashed pod gives.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CliOutput } from '../commands/command.js';
import type { RunConfig } from './config.js';

/** The built `ork` entry point beside this module's `dist/` (the image has the same layout). */
const ORK_BIN = fileURLToPath(new URL('../../bin/ork.mjs', import.meta.url));

/** Flags a replica process gets from ork dev, not from the user's arguments. */
const BOOLEAN_OVERRIDES = ['leader-elect', 'install-crds'] as const;

/** ReplicaProcessesOptions says what the extra replicas run against and where their output goes. */
export interface ReplicaProcessesOptions {
  /** How many processes (ork dev's `--replicas` minus the one in its own process). */
  readonly count: number;
  /** The run flags ork dev was given (its `--replicas` and `--kubeconfig-out` taken off). */
  readonly runArgs: readonly string[];
  /** ork dev's parsed configuration of those flags with its defaults. */
  readonly config: RunConfig;
  /** The dev control plane's admin kubeconfig file. */
  readonly kubeconfigFile: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** Where the replicas' JSON log lines go (ork dev's stdout). */
  readonly stdout: CliOutput;
  /** Where the replicas' stderr and ork dev's lines about them go. */
  readonly stderr: CliOutput;
  /** The `ork` entry point. Default: the one beside this build. */
  readonly orkBin?: string;
}

/** ReplicaProcesses are the running extra replicas. */
export interface ReplicaProcesses {
  /** The process IDs, in start order. */
  readonly pids: readonly number[];
  /**
   * stop sends SIGTERM to the replicas still running (they release their Leases after their
   * workers stop, as on a pod's termination), then SIGKILL to any left after `graceMs`.
   */
  stop(graceMs?: number): Promise<void>;
}

/**
 * replicaArgs builds one replica's `ork run` arguments: the user's run flags, then ork dev's own
 * for a replica beside the first (its kubeconfig, leader election and sharding on, no CRD install,
 * loopback ports picked by the system, no cross-read port, the webhook endpoint only when ork dev
 * serves one, its own work directory).
 */
export function replicaArgs(
  runArgs: readonly string[],
  config: RunConfig,
  kubeconfigFile: string,
  index: number,
): string[] {
  const kept = runArgs.filter(
    (arg) =>
      !BOOLEAN_OVERRIDES.some(
        (flag) => arg === `--${flag}` || arg === `--no-${flag}` || arg.startsWith(`--${flag}=`),
      ),
  );
  return [
    'run',
    ...kept,
    // parseArgs keeps the last value of a string flag, so these win over the user's.
    '--kubeconfig',
    kubeconfigFile,
    '--namespace',
    config.namespace,
    '--leader-elect',
    '--no-install-crds',
    '--sharding',
    '--metrics-bind-address',
    '127.0.0.1:0',
    '--health-probe-bind-address',
    '127.0.0.1:0',
    '--cross-bind-address',
    '0',
    // The endpoint stays off when ork dev's is off; on, each replica takes a free port.
    '--webhook-bind-address',
    config.webhookBindAddress === '0' ? '0' : '127.0.0.1:0',
    '--webhook-service',
    config.webhookService,
    ...(config.allowPrivateAddresses.length === 0
      ? []
      : ['--allow-private-addresses', config.allowPrivateAddresses.join(',')]),
    '--work-dir',
    join(config.workDir, `replica-${index}`),
  ];
}

/**
 * startReplicaProcesses spawns the extra replicas. A replica that exits on its own is reported and
 * not restarted: its CRs move to the others once its Lease expires (§25.4). Every replica still
 * running is killed when ork dev's process exits, however it exits.
 */
export function startReplicaProcesses(options: ReplicaProcessesOptions): ReplicaProcesses {
  const replicas: Replica[] = [];
  const env = { ...options.env, KUBECONFIG: undefined };
  for (let i = 0; i < options.count; i++) {
    const number = i + 2;
    const args = replicaArgs(options.runArgs, options.config, options.kubeconfigFile, number);
    const child = spawn(process.execPath, [options.orkBin ?? ORK_BIN, ...args], {
      cwd: options.cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const replica: Replica = { child, stopping: false, exited: Promise.resolve() };
    const name = `Replica ${number} (pid ${child.pid ?? '?'})`;
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => options.stderr.write(chunk));
    // Whole lines, so the replicas' JSON lines never interleave mid-line on ork dev's stdout.
    onLines(child, (line) => {
      options.stdout.write(`${line}\n`);
      const shard = line.includes('"shard lease held"') ? shardOf(line) : undefined;
      if (shard != null) options.stderr.write(`${name} holds shard ${shard}.\n`);
    });
    replica.exited = new Promise<void>((resolve) => {
      child.on('exit', (code, signal) => {
        if (!replica.stopping)
          options.stderr.write(
            `${name} exited (${signal ?? `code ${code ?? '?'}`}); the others go on and take its CRs once its Lease expires.\n`,
          );
        resolve();
      });
      child.on('error', (error) => {
        options.stderr.write(`Replica ${number} did not start: ${error.message}\n`);
        resolve();
      });
    });
    replicas.push(replica);
  }
  const running = (): Replica[] =>
    replicas.filter(({ child }) => child.pid != null && child.exitCode == null && child.signalCode == null);
  const killAll = (): void => {
    for (const { child } of running()) child.kill('SIGKILL');
  };
  process.once('exit', killAll);
  return {
    pids: replicas.flatMap(({ child }) => (child.pid == null ? [] : [child.pid])),
    async stop(graceMs = 15_000) {
      const left = running();
      for (const replica of left) {
        replica.stopping = true;
        replica.child.kill('SIGTERM');
      }
      const timer = setTimeout(killAll, graceMs);
      await Promise.all(left.map(({ exited }) => exited));
      clearTimeout(timer);
      process.removeListener('exit', killAll);
    },
  };
}

/** Replica is one running extra replica. */
interface Replica {
  readonly child: ChildProcess;
  /** ork dev is stopping it: its exit is expected and not reported. */
  stopping: boolean;
  exited: Promise<void>;
}

/** onLines calls `each` with every whole line the child writes to stdout. */
function onLines(child: ChildProcess, each: (line: string) => void): void {
  let pending = '';
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => {
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) each(line);
  });
}

/** shardOf reads the `shard` field of a JSON log line, or undefined. */
function shardOf(line: string): string | undefined {
  try {
    const shard = (JSON.parse(line) as { shard?: unknown }).shard;
    return typeof shard === 'string' ? shard : undefined;
  } catch {
    return undefined;
  }
}

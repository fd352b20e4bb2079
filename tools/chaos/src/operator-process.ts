/**
 * `ork run` as a child process (from source through tsx), with its JSON log lines captured, for
 * the scenarios that SIGKILL operators or run several replicas.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

/** SpawnOperatorOptions configures {@link spawnOperator}. */
export interface SpawnOperatorOptions {
  /** Katalog file. */
  readonly katalogPath: string;
  /** Kubeconfig file the operator uses. */
  readonly kubeconfigPath: string;
  /** The operator namespace (holds the Lease). */
  readonly namespace: string;
  /** Extra `ork run` flags, e.g. `--lease-duration=4s`. */
  readonly args?: readonly string[];
  /** Log level. Default `info`. */
  readonly logLevel?: string;
  /** Echo the operator's output to this process's stderr. Default false. */
  readonly echo?: boolean;
}

/** ProcessExit is how an operator process ended. */
interface ProcessExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** LogLine is one parsed JSON log line of the operator. */
interface LogLine {
  readonly msg?: string;
  readonly level?: string;
  readonly [key: string]: unknown;
}

/** OperatorProcess is a running `ork run`. */
export interface OperatorProcess {
  readonly pid: number;
  /** stdout and stderr, as written so far. */
  readonly output: () => string;
  /** The JSON log lines parsed so far (other lines are skipped). */
  readonly logs: () => readonly LogLine[];
  /** Resolves once the process has exited. */
  readonly exited: Promise<ProcessExit>;
  /** True until the process has exited. */
  readonly running: () => boolean;
  /** kill sends a signal (no-op after exit). */
  kill(signal: NodeJS.Signals): void;
}

const ENTRY = join(import.meta.dirname, 'ork-entry.ts');

/**
 * spawnOperator starts `ork run <katalog>` with metrics and health servers disabled, the given
 * kubeconfig and operator namespace; the caller ends it (SIGTERM for a graceful stop).
 *
 * @example
 * const op = spawnOperator({ katalogPath, kubeconfigPath, namespace: 'ops', args: ['--leader-elect=false'] });
 * op.kill('SIGKILL');
 * await op.exited;
 */
export function spawnOperator(options: SpawnOperatorOptions): OperatorProcess {
  const child = spawn(
    process.execPath,
    [
      '--conditions=@orkestra/source',
      '--import',
      import.meta.resolve('tsx'),
      ENTRY,
      'run',
      options.katalogPath,
      `--kubeconfig=${options.kubeconfigPath}`,
      `--namespace=${options.namespace}`,
      '--metrics-bind-address=0',
      '--health-probe-bind-address=0',
      `--log-level=${options.logLevel ?? 'info'}`,
      ...(options.args ?? []),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_OPTIONS: '' } },
  );
  let output = '';
  const logs: LogLine[] = [];
  let partial = '';
  const onData = (chunk: Buffer): void => {
    const text = chunk.toString('utf8');
    output += text;
    if (options.echo === true) process.stderr.write(text);
    partial += text;
    const lines = partial.split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.startsWith('{')) continue;
      try {
        logs.push(JSON.parse(line) as LogLine);
      } catch {
        // not a log line
      }
    }
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  let done = false;
  const exited = new Promise<ProcessExit>((resolve) => {
    child.once('exit', (code, signal) => {
      done = true;
      resolve({ code, signal });
    });
  });
  // Never leave an operator behind when the test process ends.
  const killOnExit = (): void => {
    if (!done) child.kill('SIGKILL');
  };
  process.once('exit', killOnExit);
  void exited.then(() => process.removeListener('exit', killOnExit));
  if (child.pid == null) throw new Error('ork run could not be spawned');
  return {
    pid: child.pid,
    output: () => output,
    logs: () => logs,
    exited,
    running: () => !done,
    kill(signal) {
      if (!done) child.kill(signal);
    },
  };
}

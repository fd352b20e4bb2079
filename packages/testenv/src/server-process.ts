import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createTrackedDirectory, trackProcess } from './cleanup.js';
import { TestenvError, TestenvErrorCode } from './testenv-error.js';

/** StartServerOptions describes one server process for {@link startServer}. */
export interface StartServerOptions {
  /** Short name used for the log file (`<dir>/<name>.log`) and in errors. */
  readonly name: string;
  /** Executable path. */
  readonly command: string;
  /** Arguments. */
  readonly args: readonly string[];
  /** Temporary directory of the environment: working directory and log location. */
  readonly dir: string;
  /** Extra environment variables on top of `process.env`. */
  readonly env?: Readonly<Record<string, string>>;
  /** Resolves true once the server is ready; errors count as "not yet". */
  readonly isReady: () => Promise<boolean>;
  /** Give up after this many milliseconds. Default 120 000. */
  readonly timeoutMs?: number;
  /** Delay between readiness probes. Default 250 ms. */
  readonly pollMs?: number;
  /** Directory the guardian removes if this process is orphaned. */
  readonly guardDir?: string;
  /** Run as this user and group (servers that refuse root, such as PostgreSQL). Default the current ones. */
  readonly user?: { readonly uid: number; readonly gid: number };
}

/** ServerProcess is a started, ready server. */
export interface ServerProcess {
  /** Name given at start. */
  readonly name: string;
  /** Operating-system process id. */
  readonly pid: number;
  /** Path of the combined stdout/stderr log. */
  readonly logPath: string;
  /** Last `lines` lines of the log. */
  tail(lines?: number): string;
  /** SIGTERM, then SIGKILL after `graceMs` (default 10 000); resolves once the process has exited. */
  stop(graceMs?: number): Promise<void>;
}

/** tailFile returns the last `lines` lines of a text file, or a note when it cannot be read. */
function tailFile(path: string, lines = 30): string {
  try {
    const text = readFileSync(path, 'utf8').trimEnd();
    return text.split('\n').slice(-lines).join('\n');
  } catch (error) {
    return `(no log: ${String(error)})`;
  }
}

/**
 * startServer spawns a server with its output in `<dir>/<name>.log`, tracks it for cleanup and
 * polls `isReady` until it holds. On exit or timeout it kills the process and throws a
 * {@link TestenvError} (`StartFailed`) that ends with the last lines of the log.
 */
export async function startServer(options: StartServerOptions): Promise<ServerProcess> {
  const logPath = join(options.dir, `${options.name}.log`);
  const fd = openSync(logPath, 'a');
  const child = (() => {
    try {
      return spawn(options.command, options.args, {
        cwd: options.dir,
        env: { ...process.env, ...options.env },
        stdio: ['ignore', fd, fd],
        ...(options.user == null ? {} : { uid: options.user.uid, gid: options.user.gid }),
      });
    } finally {
      closeSync(fd);
    }
  })();
  let spawnError: Error | undefined;
  child.once('error', (error) => {
    spawnError = error;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  trackProcess(child, options.guardDir);

  const stop = async (graceMs = 10_000): Promise<void> => {
    if (child.exitCode != null || child.signalCode != null || child.pid == null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  };
  const fail = async (why: string): Promise<never> => {
    await stop(2000);
    throw new TestenvError(
      `${options.name} ${why}; last lines of ${logPath}:\n${tailFile(logPath)}`,
      spawnError == null
        ? { code: TestenvErrorCode.StartFailed }
        : { code: TestenvErrorCode.StartFailed, cause: spawnError },
    );
  };

  const timeoutMs = options.timeoutMs ?? 120_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (spawnError != null) return await fail(`could not be spawned (${spawnError.message})`);
    if (child.exitCode != null || child.signalCode != null) {
      return await fail(
        `exited during start-up (${child.exitCode != null ? `code ${child.exitCode}` : child.signalCode})`,
      );
    }
    if (await options.isReady().catch(() => false)) break;
    if (Date.now() > deadline) return await fail(`was not ready within ${timeoutMs / 1000} s`);
    await sleep(options.pollMs ?? 250);
  }
  if (child.pid == null) return await fail('has no process id');
  return { name: options.name, pid: child.pid, logPath, tail: (lines) => tailFile(logPath, lines), stop };
}

/** ServerSetup is what a {@link startServerProcess} setup returns: the process to start and what its caller gets. */
export interface ServerSetup<T> {
  /** The process, run in the server's directory (also the directory the guardian removes). */
  readonly server: Omit<StartServerOptions, 'dir' | 'guardDir'>;
  /** What the caller gets besides `pid` and `stop`, made once the server is ready (may talk to it). */
  readonly value: (server: ServerProcess) => T | Promise<T>;
}

/** StartedServer is the part of a {@link startServerProcess} answer every server shares. */
export interface StartedServer {
  /** The server's process id. */
  readonly pid: number;
  /** stop terminates the server (SIGTERM, SIGKILL after 10 s) and removes its directory. Idempotent. */
  stop(): Promise<void>;
}

/**
 * startServerProcess runs one server in a tracked temporary directory of its own
 * (`<directoryPrefix>XXXXXX`): `setup` writes its configuration there and names the process,
 * {@link startServer} spawns it (argv array, log `<dir>/<name>.log`) and waits until it is ready,
 * then `value` makes the caller's handle. When any step fails the server is stopped and the
 * directory removed before the error is passed on; `stop` does both once.
 *
 * @example
 * return await startServerProcess('orkestra-redis-', async (dir) => ({
 *   server: { name: 'redis', command: bin, args: [config], isReady: async () => await tcpProbe(port) },
 *   value: () => ({ port }),
 * }));
 */
export async function startServerProcess<T extends object>(
  directoryPrefix: string,
  setup: (dir: string) => Promise<ServerSetup<T>> | ServerSetup<T>,
): Promise<T & StartedServer> {
  const workDir = createTrackedDirectory(directoryPrefix);
  const dir = workDir.path;
  let server: ServerProcess | undefined;
  try {
    const spec = await setup(dir);
    server = await startServer({ ...spec.server, dir, guardDir: dir });
    const started = server;
    const value = await spec.value(started);
    let stopped = false;
    return {
      ...value,
      pid: started.pid,
      async stop() {
        if (stopped) return;
        stopped = true;
        await started.stop();
        workDir.remove();
      },
    };
  } catch (error) {
    await server?.stop();
    workDir.remove();
    throw error;
  }
}

/**
 * Runs a command for the git and docker hooks: `spawn` without a shell, a timeout (SIGTERM, then
 * SIGKILL after a grace period, to the whole process group), an abort signal, captured stdout and
 * the last bytes of the combined output for error messages.
 */
import { spawn } from 'node:child_process';
import type { Clock, TimerHandle } from '../clock.js';

/** RunProcessOptions configures one run. */
export interface RunProcessOptions {
  readonly cwd?: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** 0 or less: no timeout. */
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  /** Between SIGTERM and SIGKILL. Default 5000 ms. */
  readonly killGraceMs?: number;
  readonly clock: Clock;
  /** How much of the combined output `tail` keeps. Default 4096 bytes. */
  readonly tailBytes?: number;
  /** Called with each output chunk (stdout and stderr). */
  readonly onOutput?: (chunk: Buffer) => void;
}

/** ProcessResult is how a run ended. */
export interface ProcessResult {
  /** Exit code, or null when killed by a signal or never started. */
  readonly code: number | null;
  readonly stdout: string;
  /** The last `tailBytes` of stdout and stderr, interleaved as received. */
  readonly tail: string;
  readonly timedOut: boolean;
  readonly aborted: boolean;
  /** Set when the command could not be started (e.g. ENOENT). */
  readonly spawnError?: NodeJS.ErrnoException;
}

const MAX_STDOUT = 1024 * 1024;

/** runProcess runs `command` with `args` and resolves when it has exited; it never rejects. */
export function runProcess(
  command: string,
  args: readonly string[],
  options: RunProcessOptions,
): Promise<ProcessResult> {
  const tailBytes = options.tailBytes ?? 4096;
  const grace = options.killGraceMs ?? 5000;
  return new Promise((resolve) => {
    let stdout = '';
    let tail = Buffer.alloc(0);
    let timedOut = false;
    let aborted = false;
    let spawnError: NodeJS.ErrnoException | undefined;
    const timers: TimerHandle[] = [];
    if (options.signal?.aborted === true) {
      resolve({ code: null, stdout: '', tail: '', timedOut: false, aborted: true });
      return;
    }
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(options.env)) if (v != null) env[k] = v;
    const child = spawn(command, [...args], {
      cwd: options.cwd,
      env,
      shell: false,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const kill = (signal: NodeJS.Signals): void => {
      if (child.exitCode != null || child.signalCode != null) return;
      try {
        if (child.pid != null) process.kill(-child.pid, signal);
        else child.kill(signal);
      } catch {
        child.kill(signal);
      }
    };
    const stop = (): void => {
      kill('SIGTERM');
      timers.push(options.clock.setTimeout(() => kill('SIGKILL'), grace));
    };
    const onAbort = (): void => {
      aborted = true;
      stop();
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (options.timeoutMs > 0) {
      timers.push(
        options.clock.setTimeout(() => {
          timedOut = true;
          stop();
        }, options.timeoutMs),
      );
    }
    const keep = (chunk: Buffer): void => {
      tail = Buffer.concat([tail, chunk]);
      if (tail.length > tailBytes) tail = tail.subarray(tail.length - tailBytes);
      options.onOutput?.(chunk);
    };
    child.stdout.on('data', (chunk: Buffer) => {
      if (stdout.length < MAX_STDOUT) stdout += chunk.toString('utf8');
      keep(chunk);
    });
    child.stderr.on('data', keep);
    child.on('error', (error: NodeJS.ErrnoException) => {
      spawnError = error;
    });
    child.on('close', (code) => {
      options.signal?.removeEventListener('abort', onAbort);
      for (const timer of timers) options.clock.clearTimeout(timer);
      resolve({
        code: spawnError != null ? null : code,
        stdout,
        tail: tail.toString('utf8'),
        timedOut,
        aborted,
        ...(spawnError == null ? {} : { spawnError }),
      });
    });
  });
}

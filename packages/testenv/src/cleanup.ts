import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Process-wide record of what must not outlive this process. It lives on `globalThis` because
 * vitest may evaluate this module once per project in the same main process.
 */
interface CleanupState {
  readonly processes: Set<ChildProcess>;
  readonly directories: Set<string>;
  installed: boolean;
}

const stateKey = Symbol.for('@orkestra/testenv.cleanup');
const exitSignals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

function state(): CleanupState {
  const holder = globalThis as typeof globalThis & { [stateKey]?: CleanupState };
  holder[stateKey] ??= { processes: new Set(), directories: new Set(), installed: false };
  return holder[stateKey];
}

/** cleanupNow kills every tracked server with SIGKILL and removes tracked directories, synchronously. */
function cleanupNow(): void {
  const s = state();
  for (const child of s.processes) {
    if (child.exitCode == null && child.signalCode == null) child.kill('SIGKILL');
  }
  s.processes.clear();
  for (const dir of s.directories) rmSync(dir, { recursive: true, force: true });
  s.directories.clear();
}

function onSignal(signal: NodeJS.Signals): void {
  cleanupNow();
  // When nobody else handles the signal, restore the default behaviour (terminate) and re-raise.
  if (process.listenerCount(signal) === 1) {
    process.removeListener(signal, onSignal);
    process.kill(process.pid, signal);
  }
}

function install(): void {
  const s = state();
  if (s.installed) return;
  s.installed = true;
  process.once('exit', cleanupNow);
  for (const signal of exitSignals) process.on(signal, onSignal);
}

// A guardian polls its parent once a second; when the parent disappears (even by SIGKILL) it
// stops the server (TERM, then KILL after 5 s) and removes the server's temporary directory.
// It exits on its own as soon as the server has gone.
const guardianScript = `
parent=$1; child=$2; dir=$3
while kill -0 "$parent" 2>/dev/null; do
  kill -0 "$child" 2>/dev/null || exit 0
  sleep 1
done
kill -TERM "$child" 2>/dev/null
i=0
while kill -0 "$child" 2>/dev/null && [ "$i" -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
kill -KILL "$child" 2>/dev/null
if [ -n "$dir" ]; then rm -rf "$dir"; fi
`;

/**
 * trackProcess makes sure `child` dies with this process: on `stop`, on normal exit, on
 * SIGINT/SIGTERM/SIGHUP, and (through a detached guardian shell) when this process is killed
 * outright. `dir`, if given, is removed by the guardian in that last case.
 */
export function trackProcess(child: ChildProcess, dir?: string): void {
  install();
  const s = state();
  s.processes.add(child);
  child.once('exit', () => s.processes.delete(child));
  if (child.pid != null) spawnGuardian(process.pid, child.pid, dir);
}

/**
 * spawnGuardian starts a detached shell that waits for `parentPid` to disappear, then stops
 * `childPid` (TERM, KILL after 5 s) and removes `dir`. It exits by itself once the child is gone.
 * Returns the guardian's pid.
 */
export function spawnGuardian(parentPid: number, childPid: number, dir?: string): number | undefined {
  const guardian = spawn(
    'sh',
    ['-c', guardianScript, 'testenv-guardian', String(parentPid), String(childPid), dir ?? ''],
    {
      detached: true,
      stdio: 'ignore',
    },
  );
  guardian.unref();
  return guardian.pid;
}

/** trackDirectory removes `dir` when this process exits or is interrupted; untrack it once removed. */
function trackDirectory(dir: string): void {
  install();
  state().directories.add(dir);
}

/** untrackDirectory forgets a directory registered with {@link trackDirectory}. */
function untrackDirectory(dir: string): void {
  state().directories.delete(dir);
}

/** TrackedDirectory is a temporary directory removed on `remove()` or, failing that, at exit. */
export interface TrackedDirectory {
  readonly path: string;
  /** remove deletes the directory and forgets it. Idempotent. */
  remove(): void;
}

/**
 * createTrackedDirectory makes a fresh directory under the system temp dir (`<prefix>XXXXXX`) and
 * registers it with {@link trackDirectory}, so it goes away even when its owner never stops.
 */
export function createTrackedDirectory(prefix: string): TrackedDirectory {
  const path = mkdtempSync(join(tmpdir(), prefix));
  trackDirectory(path);
  return {
    path,
    remove: () => {
      rmSync(path, { recursive: true, force: true });
      untrackDirectory(path);
    },
  };
}

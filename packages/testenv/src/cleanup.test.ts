import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnGuardian } from './cleanup.js';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitFor(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (check()) return true;
    await sleep(100);
  }
  return check();
}

describe('spawnGuardian', () => {
  const pids: number[] = [];
  const dirs: string[] = [];
  afterEach(() => {
    for (const pid of pids.splice(0)) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  function sleeper(): number {
    const child = spawn('sleep', ['300'], { stdio: 'ignore' });
    if (child.pid == null) throw new Error('could not spawn sleep');
    pids.push(child.pid);
    return child.pid;
  }

  it('kills the server and removes its directory when the parent is SIGKILLed', async () => {
    const parent = sleeper();
    const server = sleeper();
    const dir = mkdtempSync(join(tmpdir(), 'guardian-test-'));
    dirs.push(dir);
    const guardian = spawnGuardian(parent, server, dir);
    expect(guardian).toEqual(expect.any(Number));
    process.kill(parent, 'SIGKILL');
    // The guardian polls once a second; a killed `sleep` stays a zombie until we reap it, so
    // watch the directory (removed only after the server is gone).
    expect(await waitFor(() => !existsSync(dir), 15_000)).toBe(true);
  });

  it('leaves the server alone while the parent lives and exits once the server is gone', async () => {
    const server = sleeper();
    const dir = mkdtempSync(join(tmpdir(), 'guardian-test-'));
    dirs.push(dir);
    const guardian = spawnGuardian(process.pid, server, dir);
    if (guardian == null) throw new Error('no guardian pid');
    await sleep(1500);
    expect(existsSync(dir)).toBe(true);
    process.kill(server, 'SIGKILL');
    expect(await waitFor(() => !isAlive(guardian), 15_000)).toBe(true);
    expect(existsSync(dir)).toBe(true);
  });
});

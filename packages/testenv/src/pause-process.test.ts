import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { pauseProcess } from './pause-process.js';

/** states lists the state letter of every thread of `pid`. */
function states(pid: number): string[] {
  return readdirSync(`/proc/${pid}/task`).map((tid) => {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  });
}

describe('pauseProcess', () => {
  it('resolves only when every thread of a busy multi-threaded process is stopped, and resumes it', async () => {
    // A node process spinning on its main thread (node has several threads).
    const child = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
    try {
      const pid = child.pid ?? 0;
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(states(pid).length).toBeGreaterThan(1);
      const resume = await pauseProcess(pid);
      expect(states(pid).every((s) => s === 'T')).toBe(true);
      resume();
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(states(pid).some((s) => s !== 'T')).toBe(true);
    } finally {
      child.kill('SIGKILL');
    }
  });
});

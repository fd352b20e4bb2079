import { readFileSync, readdirSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { TestenvError, TestenvErrorCode } from './testenv-error.js';

/**
 * pauseProcess stops a server with SIGSTOP and resolves only once every one of its threads is
 * stopped (state `T` in `/proc/<pid>/task/<tid>/stat`), so a request sent afterwards cannot be
 * answered by a thread that was still running when the signal was sent (on a loaded machine a
 * multi-threaded server answered a query after `process.kill` had returned). Resolves with the
 * function that resumes it (SIGCONT). Linux only, as the local servers are.
 *
 * @example
 * const resume = await pauseProcess(server().pid);
 * try { ...a request that must time out... } finally { resume(); }
 */
export async function pauseProcess(pid: number, timeoutMs = 5000): Promise<() => void> {
  process.kill(pid, 'SIGSTOP');
  const resume = (): void => {
    try {
      process.kill(pid, 'SIGCONT');
    } catch {
      // Already gone: nothing to resume.
    }
  };
  const until = Date.now() + timeoutMs;
  while (!allThreadsStopped(pid)) {
    if (Date.now() > until) {
      resume();
      throw new TestenvError(`process ${pid} did not stop within ${timeoutMs} ms of SIGSTOP`, {
        code: TestenvErrorCode.RequestFailed,
      });
    }
    await sleep(5);
  }
  return resume;
}

/** allThreadsStopped tells whether every thread of `pid` is in the stopped state. */
function allThreadsStopped(pid: number): boolean {
  const tasks = readdirSync(`/proc/${pid}/task`);
  return tasks.every((tid) => {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    // The state follows the command name, which is in parentheses and may hold spaces.
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'T';
  });
}

import { CoreV1Api } from '@kubernetes/client-node';
import { isTestenvError, startControlPlane, TestenvErrorCode } from '@orkestra/testenv';
import { useControlPlane } from '@orkestra/testenv/vitest';
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

// These tests start their own control planes (without the controller manager, to stay cheap)
// next to the shared one. useControlPlane gives them the same rule as every other suite: skipped
// with a reason locally when the binaries are missing, a failure under CI.
useControlPlane();

describe('startControlPlane', () => {
  it('serves requests and leaves no process or directory behind after stop', async () => {
    const cp = await startControlPlane({ controllerManager: false });
    let stopped = false;
    try {
      expect(cp.processes.map((p) => p.name)).toEqual(['etcd', 'kube-apiserver']);
      expect(cp.processes.every((p) => isAlive(p.pid))).toBe(true);
      const namespaces = await cp.kubeConfig.makeApiClient(CoreV1Api).listNamespace();
      expect(namespaces.items.map((n) => n.metadata?.name)).toContain('default');
      await cp.stop();
      stopped = true;
      expect(cp.processes.filter((p) => isAlive(p.pid))).toEqual([]);
      expect(existsSync(cp.dir)).toBe(false);
      await cp.stop(); // idempotent
    } finally {
      if (!stopped) await cp.stop();
    }
  });

  it('reports the failing server and the end of its log, and cleans up', async () => {
    let caught: unknown;
    try {
      const cp = await startControlPlane({ controllerManager: false, apiserverArgs: ['--no-such-flag=1'] });
      await cp.stop();
    } catch (error) {
      caught = error;
    }
    expect(isTestenvError(caught, TestenvErrorCode.StartFailed)).toBe(true);
    const message = (caught as Error).message;
    expect(message).toMatch(/^kube-apiserver exited during start-up/);
    expect(message).toContain('unknown flag: --no-such-flag');
    const logPath = /last lines of (\S+):/.exec(message)?.[1];
    expect(logPath).toEqual(expect.stringMatching(/kube-apiserver\.log$/));
    expect(existsSync(dirname(logPath ?? '/'))).toBe(false);
  });

  it('stops and restarts kube-apiserver on the same port and etcd, keeping the data', async () => {
    const cp = await startControlPlane({ controllerManager: false });
    try {
      const core = cp.kubeConfig.makeApiClient(CoreV1Api);
      await core.createNamespacedConfigMap({
        namespace: 'default',
        body: { metadata: { name: 'survives' }, data: { a: '1' } },
      });
      const before = cp.processes.find((p) => p.name === 'kube-apiserver');
      await cp.startApiServer(); // a no-op while it runs
      expect(cp.processes.find((p) => p.name === 'kube-apiserver')?.pid).toBe(before?.pid);

      await cp.stopApiServer();
      expect(isAlive(before?.pid ?? 0)).toBe(false);
      await expect(core.listNamespace()).rejects.toThrow();
      await cp.stopApiServer(); // idempotent

      await cp.startApiServer();
      const after = cp.processes.find((p) => p.name === 'kube-apiserver');
      expect(after?.pid).not.toBe(before?.pid);
      expect(isAlive(after?.pid ?? 0)).toBe(true);
      const read = await core.readNamespacedConfigMap({ namespace: 'default', name: 'survives' });
      expect(read.data).toEqual({ a: '1' });

      await cp.restartApiServer();
      expect(cp.processes.find((p) => p.name === 'kube-apiserver')?.pid).not.toBe(after?.pid);
      expect((await core.readNamespacedConfigMap({ namespace: 'default', name: 'survives' })).data).toEqual({
        a: '1',
      });
    } finally {
      await cp.stop();
    }
    expect(cp.processes.filter((p) => isAlive(p.pid))).toEqual([]);
    await expect(cp.startApiServer()).rejects.toSatisfy((e) =>
      isTestenvError(e, TestenvErrorCode.StartFailed),
    );
    // Three kube-apiserver starts: 60 s was not enough on a loaded 2-core machine (110 s once).
  }, 240_000);
});

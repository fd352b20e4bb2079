/**
 * The Orkestra side of the benchmark, run as its own Node process (see orkestra-runner.ts):
 * loads the bench Katalog, starts `createKatalogRuntime` against the control plane and answers
 * memory and reconcile-count samples over IPC. Started with `--expose-gc` so samples are taken
 * after a full collection.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { createKatalogRuntime } from '@orkestra/reconciler';
import type { KatalogRuntime } from '@orkestra/reconciler';
import { loadKatalog } from '@orkestra/types';
import type { ChildMessage, ParentMessage } from './child-protocol.js';

let runtime: KatalogRuntime | undefined;

const send = (message: ChildMessage): void => {
  process.send?.(message);
};

const describe = (error: unknown): string =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error);

async function start(kubeconfigPath: string, katalogText: string, namespace?: string): Promise<void> {
  const loaded = loadKatalog({ text: katalogText, file: 'bench-katalog.yaml' });
  if (!loaded.ok) {
    throw new Error(
      `the bench Katalog does not load: ${loaded.errors.map((e) => JSON.stringify(e)).join('; ')}`,
    );
  }
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(kubeconfigPath);
  runtime = createKatalogRuntime({
    katalog: loaded.katalog,
    kubeConfig,
    ...(namespace == null ? {} : { options: { namespace } }),
  });
  await runtime.start();
}

async function sample(): Promise<ChildMessage> {
  // Two full collections half a second apart, so memory freed by the first is returned before
  // the reading.
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  await new Promise((resolve) => setTimeout(resolve, 500));
  gc?.();
  const usage = process.memoryUsage();
  let reconciles = 0;
  for (const entry of runtime?.entries.values() ?? []) reconciles += entry.dispatcher.stats().finished;
  return {
    type: 'sample',
    rssBytes: usage.rss,
    heapUsedBytes: usage.heapUsed,
    reconciles,
  };
}

function stats(): ChildMessage {
  let reconciles = 0;
  let resyncsAdded = 0;
  for (const entry of runtime?.entries.values() ?? []) {
    reconciles += entry.dispatcher.stats().finished;
    resyncsAdded += entry.resync.added;
  }
  const cpu = process.cpuUsage();
  return { type: 'stats', reconciles, cpuMs: (cpu.user + cpu.system) / 1000, resyncsAdded };
}

process.on('message', (message: ParentMessage) => {
  void (async () => {
    try {
      switch (message.type) {
        case 'start':
          await start(message.kubeconfigPath, message.katalogText, message.namespace);
          send({ type: 'started' });
          break;
        case 'sample':
          send(await sample());
          break;
        case 'stats':
          send(stats());
          break;
        case 'stop':
          await runtime?.stop({ timeoutMs: 5000 });
          send({ type: 'stopped' });
          process.disconnect?.();
          setTimeout(() => process.exit(0), 100).unref();
          break;
      }
    } catch (error) {
      send({ type: 'error', message: describe(error) });
    }
  })();
});
process.on('disconnect', () => process.exit(0));

/**
 * The Orkestra side of the benchmark, run as its own Node process (see orkestra-runner.ts): the
 * operator as the Helm chart installs it (`startOperator` of @orkestra/operator, what `ork run`
 * runs): the operator namespace present, so Katalog revisions are on; leader election on; the
 * Control Center on; `/metrics` scraped every 15 s as Prometheus would. It answers memory and
 * reconcile-count samples over IPC. Started with `--expose-gc` so samples are taken after a full
 * collection.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// The KubeConfig module alone, as the operator loads it (docs/reference/runtime.md §20): the package
// index would load every generated API class into the measured process.
import { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import { parseRunConfig, startOperator } from '@orkestra/operator';
import type { Operator } from '@orkestra/operator';
import type { ChildMessage, ParentMessage, StepTotal } from './child-protocol.js';
import { parseStepTotals } from './step-totals.js';

/** SCRAPE_INTERVAL_MS is Prometheus's usual scrape interval, the chart's ServiceMonitor's. */
const SCRAPE_INTERVAL_MS = 15_000;

let operator: Operator | undefined;
let scraper: NodeJS.Timeout | undefined;

const send = (message: ChildMessage): void => {
  process.send?.(message);
};

const describe = (error: unknown): string =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error);

async function start(message: Extract<ParentMessage, { type: 'start' }>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'orkestra-bench-operator-'));
  const katalogFile = join(dir, 'katalog.yaml');
  writeFileSync(katalogFile, message.katalogText);
  const parsed = parseRunConfig(
    [
      '--katalog',
      katalogFile,
      '--leader-elect',
      '--namespace',
      message.operatorNamespace,
      '--metrics-bind-address',
      '127.0.0.1:0',
      '--health-probe-bind-address',
      '127.0.0.1:0',
      '--control-center',
      '--log-level',
      'info',
      // Sharded: each replica serves the shard-assignment webhook on loopback and installs its
      // configuration (ADR 0110), as the chart's replicas do behind their Service.
      ...(message.shard == null
        ? []
        : [
            '--sharding',
            '--install-crds',
            '--webhook-bind-address',
            '127.0.0.1:0',
            '--webhook-service',
            'loopback',
          ]),
      ...(message.args ?? []),
    ],
    { env: {} },
  );
  if (!parsed.ok) throw new Error(`run flags: ${parsed.errors.join('; ')}`);
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(message.kubeconfigPath);
  operator = await startOperator({
    config: parsed.config,
    env: {},
    cwd: dir,
    kubeConfig,
    handleSignals: false,
    watchKatalog: false,
    ...(message.namespace == null ? {} : { watchNamespace: message.namespace }),
    ...(message.shard == null ? {} : { shardId: message.shard.id }),
  });
  await operator.synced;
  const deadline = Date.now() + 60_000;
  const shard = message.shard;
  // Not sharded: the one replica leads. Sharded: every replica answers once synced, the leader
  // once its sharder counts every shard live (so no CR is assigned to fewer shards and moved later).
  const ready = (): boolean =>
    shard == null
      ? (operator?.isLeader() ?? false)
      : operator?.isLeader() !== true || (operator.sharderStats()?.live.length ?? 0) >= shard.replicas;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error('the operator did not become ready to measure within 60 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const metrics = `http://127.0.0.1:${operator.metricsAddress?.port ?? 0}/metrics`;
  scraper = setInterval(() => {
    void fetch(metrics)
      .then((answer) => answer.text())
      .catch(() => undefined);
  }, SCRAPE_INTERVAL_MS);
}

function counts(): { reconciles: number; resyncsAdded: number } {
  let reconciles = 0;
  let resyncsAdded = 0;
  for (const entry of operator?.engine().entries.values() ?? []) {
    reconciles += entry.dispatcher.stats().finished;
    resyncsAdded += entry.resync.added;
  }
  return { reconciles, resyncsAdded };
}

async function sample(): Promise<ChildMessage> {
  // Two full collections half a second apart, so memory freed by the first is returned before
  // the reading.
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  await new Promise((resolve) => setTimeout(resolve, 500));
  gc?.();
  const usage = process.memoryUsage();
  return {
    type: 'sample',
    rssBytes: usage.rss,
    heapUsedBytes: usage.heapUsed,
    reconciles: counts().reconciles,
  };
}

/** steps reads the step histogram's sums and counts from the operator's own /metrics. */
async function steps(): Promise<Record<string, StepTotal>> {
  const port = operator?.metricsAddress?.port;
  if (port == null) return {};
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  return parseStepTotals(text);
}

function stats(): ChildMessage {
  const cpu = process.cpuUsage();
  return {
    type: 'stats',
    ...counts(),
    cpuMs: (cpu.user + cpu.system) / 1000,
    sharderPatches: operator?.sharderStats()?.patches ?? 0,
  };
}

process.on('message', (message: ParentMessage) => {
  void (async () => {
    try {
      switch (message.type) {
        case 'start':
          await start(message);
          send({ type: 'started' });
          break;
        case 'sample':
          send(await sample());
          break;
        case 'stats':
          send(stats());
          break;
        case 'steps':
          send({ type: 'steps', steps: await steps().catch(() => ({})) });
          break;
        case 'stop':
          clearInterval(scraper);
          await operator?.shutdown('benchmark done');
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

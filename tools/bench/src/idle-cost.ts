/**
 * `pnpm --filter @orkestra/bench idle-cost`: the idle cost of each operator over a long window
 * (docs/performance.md), counted at the API server and attributed to its client. One control plane with an
 * audit log (every request at Metadata level); Orkestra and kro run side by side, each with N CRs
 * in its own namespace; once both converged and went quiet, the benchmark closes its own watches
 * and sleeps through the window (default 12 minutes: longer than the informers' watch timeout,
 * 5–10 minutes, and their 5-minute watchdog), then counts every request each client made in it,
 * relists and re-opened watches included, by the user agent the audit log records. Orkestra runs
 * as the Helm chart installs it (orkestra-runner.ts: revisions, leader election and the Control
 * Center on, metrics scraped every 15 s) and is counted as `orkestra-operator`; its Lease requests
 * are reported apart.
 */
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, KubernetesObjectApi } from '@kubernetes/client-node';
import type { KubeConfig } from '@kubernetes/client-node';
import { startControlPlane } from '@orkestra/testenv';
import { AUDIT_POLICY, auditLogArgs, clientWindow, countByClient, readFrom } from './audit-log.js';
import type { ClientRequests } from './audit-log.js';
import { buildKro, KRO_VERSION, startKro } from './kro-runner.js';
import { waitForQuiet } from './measure-system.js';
import { ObjectTracker } from './object-tracker.js';
import { startOrkestra } from './orkestra-runner.js';
import { runLimited } from './run-limited.js';
import { sleep } from './sleep.js';
import type { SystemUnderTest } from './system-under-test.js';
import {
  childNames,
  crManifest,
  crName,
  initialSpec,
  KRO_DEFAULT_RESYNC_RESOURCE,
  KRO_RESOURCE,
} from './workload.js';
import { callerPath } from './caller-path.js';

const log = (message: string): void => {
  process.stderr.write(`[idle-cost ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
};

interface IdleArgs {
  readonly size: number;
  readonly minutes: number;
  /** kro's resync period in seconds; undefined: its default. */
  readonly kroResyncSeconds: number | undefined;
  readonly peer: boolean;
  readonly out: string | undefined;
}

function parseArgs(argv: readonly string[]): IdleArgs {
  let size = 1000;
  let minutes = 12;
  let kroResyncSeconds: number | undefined;
  let peer = true;
  let out: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const next = (): string => {
      const v = argv[++i];
      if (v == null) throw new Error(`${flag} needs a value`);
      return v;
    };
    if (flag === '--') continue;
    else if (flag === '--size') size = Number(next());
    else if (flag === '--minutes') minutes = Number(next());
    else if (flag === '--kro-resync') kroResyncSeconds = Number(next());
    else if (flag === '--no-peer') peer = false;
    else if (flag === '--out') out = next();
    else
      throw new Error(
        `unknown option ${flag}; options: --size N --minutes M --kro-resync S --no-peer --out FILE`,
      );
  }
  if (!(size > 0) || !(minutes > 0)) throw new Error('--size and --minutes must be positive');
  return { size, minutes, kroResyncSeconds, peer, out };
}

async function populate(kubeConfig: KubeConfig, sut: SystemUnderTest, size: number): Promise<void> {
  const ns = sut.namespace;
  const tracker = new ObjectTracker({
    kubeConfig,
    resources: [
      { key: 'configmaps', path: `/api/v1/namespaces/${ns}/configmaps` },
      { key: 'secrets', path: `/api/v1/namespaces/${ns}/secrets` },
      { key: 'services', path: `/api/v1/namespaces/${ns}/services` },
      { key: 'deployments', path: `/apis/apps/v1/namespaces/${ns}/deployments` },
    ],
  });
  const api = KubernetesObjectApi.makeApiClient(kubeConfig);
  const names = Array.from({ length: size }, (_, i) => crName(i));
  try {
    await tracker.start();
    const t0 = performance.now();
    await runLimited(names, 8, async (name) => {
      await api.create(crManifest(sut.resource, name, ns, initialSpec(name)));
    });
    await tracker.waitFor(
      () =>
        names.every((name) => {
          const c = childNames(name);
          return (
            tracker.get('configmaps', c.configMap) != null &&
            tracker.get('secrets', c.secret) != null &&
            tracker.get('services', c.service) != null &&
            tracker.get('deployments', c.deployment) != null
          );
        }),
      Math.max(120_000, size * 1000),
      `${size * 4} children of ${sut.name}`,
    );
    log(`${sut.name}: ${size} CRs converged in ${(performance.now() - t0).toFixed(0)} ms`);
  } finally {
    // The benchmark's own watches are closed before the window, so every request in it is an operator's or the API server's.
    tracker.stop();
  }
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const logDir = mkdtempSync(join(tmpdir(), 'orkestra-idle-'));
  const policy = join(logDir, 'audit-policy.yaml');
  const auditLog = join(logDir, 'audit.log');
  writeFileSync(policy, AUDIT_POLICY);
  writeFileSync(auditLog, '');
  log(
    `size ${args.size}, window ${args.minutes} min, kro resync ${args.kroResyncSeconds ?? 'default'}; logs in ${logDir}`,
  );
  const kroBuild = args.peer ? await buildKro(join(logDir, 'build-kro.log')) : undefined;
  const cp = await startControlPlane({
    controllerManager: false,
    apiserverArgs: ['--service-cluster-ip-range=10.0.0.0/16', ...auditLogArgs(policy, auditLog)],
  });
  const systems: SystemUnderTest[] = [];
  try {
    const core = cp.kubeConfig.makeApiClient(CoreV1Api);
    for (const ns of ['bench-idle-orkestra', 'bench-idle-kro'])
      await core.createNamespace({ body: { metadata: { name: ns } } });
    const orkestra = await startOrkestra({
      kubeConfig: cp.kubeConfig,
      kubeconfigPath: cp.kubeconfigPath,
      namespace: 'bench-idle-orkestra',
      workers: 8,
      resync: '30s',
      logPath: join(logDir, 'orkestra.log'),
    });
    systems.push(orkestra);
    await populate(cp.kubeConfig, orkestra, args.size);
    if (kroBuild != null) {
      const kro = await startKro({
        build: kroBuild,
        kubeConfig: cp.kubeConfig,
        kubeconfigPath: cp.kubeconfigPath,
        namespace: 'bench-idle-kro',
        workers: 8,
        resyncSeconds: args.kroResyncSeconds,
        resource: args.kroResyncSeconds == null ? KRO_DEFAULT_RESYNC_RESOURCE : KRO_RESOURCE,
        logPath: join(logDir, 'kro.log'),
      });
      systems.push(kro);
      await populate(cp.kubeConfig, kro, args.size);
    }
    const quiet = await waitForQuiet(() => cp.metrics(), { quietMs: 10_000, timeoutMs: 120_000 });
    log(
      `${quiet.quiet ? 'quiet' : 'still writing'} after ${quiet.waitedMs.toFixed(0)} ms; window of ${args.minutes} min starts`,
    );
    const offset = statSync(auditLog).size;
    const windowStart = performance.now();
    await sleep(args.minutes * 60_000);
    const windowMs = performance.now() - windowStart;
    const clients = countByClient(readFrom(auditLog, offset));
    const perCrHour = (c: ClientRequests, exclude?: string): number =>
      (Object.entries(c.byRequest)
        .filter(([k]) => exclude == null || !k.startsWith(exclude))
        .reduce((sum, [, n]) => sum + n, 0) /
        args.size) *
      (3_600_000 / windowMs);
    const result = {
      size: args.size,
      windowMs: Math.round(windowMs),
      kro: args.peer
        ? `${KRO_VERSION} (${args.kroResyncSeconds == null ? 'default resync' : `${args.kroResyncSeconds} s resync`})`
        : null,
      orkestraResync: '30s',
      clients: clients.map((c) => {
        const split = clientWindow(clients, c.client);
        return {
          ...c,
          requestsPerCrHour: Math.round(perCrHour(c) * 1000) / 1000,
          requestsPerCrHourWithoutWatch: Math.round(perCrHour(c, 'WATCH') * 1000) / 1000,
          // What an idle operator should not make: neither watches nor leader election's Lease requests.
          requestsPerCrHourWithoutWatchOrLeases:
            Math.round((split.requests / args.size) * (3_600_000 / windowMs) * 1000) / 1000,
          leaseRequestsPerHour: Math.round(split.leases * (3_600_000 / windowMs)),
        };
      }),
      logs: logDir,
    };
    const out = args.out == null ? join(logDir, 'idle-cost.json') : callerPath(args.out);
    writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
    for (const c of result.clients) {
      process.stdout.write(
        `${c.client}: ${c.total} requests in ${(windowMs / 60_000).toFixed(1)} min = ${c.requestsPerCrHour} per CR per hour ` +
          `(${c.requestsPerCrHourWithoutWatch} without WATCH, ${c.requestsPerCrHourWithoutWatchOrLeases} without WATCH and ` +
          `Leases; Leases ${c.leaseRequestsPerHour} per hour): ${JSON.stringify(c.byRequest)}\n`,
      );
    }
    process.stdout.write(`wrote ${out}\n`);
  } finally {
    for (const s of systems.reverse()) await s.stop().catch(() => undefined);
    await cp.stop();
  }
}

main().catch((error: unknown) => {
  log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exitCode = 1;
});

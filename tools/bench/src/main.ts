/**
 * `pnpm bench`: for each size, `--rounds` rounds; each round runs every system once, each on a
 * fresh local control plane of its own (@orkestra/testenv) after an untimed warm-up, in an order
 * rotated from round to round: the children-only floor, the full floor, Orkestra
 * (runtime child process), kro at a 30 s resync and kro at its default resync. It prints a table
 * of medians and ranges over the rounds, writes `bench/results/latest.json` (the medians at the
 * top, every round below) and the charts, and with `--docs` regenerates docs/performance.md. A
 * system that cannot run is reported with its reason; no figure is ever made up.
 */
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { cpuShare, readCpuCounters } from './cpu-share.js';
import { ADMISSION_RESULTS, isAdmissionDocument } from './admission-summary.js';
import { isReplicasDocument } from './replicas-section.js';
import type { ReplicasDocument } from './replicas-section.js';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CoreV1Api } from '@kubernetes/client-node';
import type { KubeConfig } from '@kubernetes/client-node';
import { readVersions, startControlPlane } from '@orkestra/testenv';
import { BENCH_USAGE, SystemId, parseBenchArgs } from './bench-args.js';
import type { BenchArgs } from './bench-args.js';
import { buildResults } from './bench-report.js';
import type { BenchResults, Outcome } from './bench-report.js';
import { convergenceChart, rssChart } from './chart.js';
import { runFullFloor } from './full-floor.js';
import type { FullFloorResult } from './full-floor.js';
import { installCrds } from './install-crds.js';
import { keepAliveKubeConfig } from './keep-alive.js';
import { KRO_FLAGS_NOTE, KRO_VERSION, buildKro, startKro } from './kro-runner.js';
import type { KroBuild } from './kro-runner.js';
import { measureSystem } from './measure-system.js';
import { apiServerCpuMs } from './api-requests.js';
import { AUDIT_POLICY, auditLogArgs, shardWriters } from './audit-log.js';
import type { MeasureOptions, SystemResult } from './measure-system.js';
import { startOrkestra } from './orkestra-runner.js';
import { performanceDoc } from './performance-doc.js';
import { runRawFloor } from './raw-floor.js';
import type { RawFloorResult } from './raw-floor.js';
import { formatReplicaTable, summarizeReplicas } from './replicas-summary.js';
import type { ReplicaRun } from './replicas-summary.js';
import { rotatedOrder } from './round-summary.js';
import { formatSizeTable, mergeSameMethod, sizeDocument } from './size-document.js';
import type { SizeDocument } from './size-document.js';
import type { SystemUnderTest } from './system-under-test.js';
import { KRO_DEFAULT_RESYNC_RESOURCE, KRO_RESOURCE, orkestraCrd } from './workload.js';
import { callerPath } from './caller-path.js';

const RESYNC_SECONDS = 30;
/** kro's default `--dynamic-controller-default-resync-period` (v0.9.4): 36 000 s, 10 hours. */
const KRO_DEFAULT_RESYNC_SECONDS = 36_000;

const log = (message: string): void => {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
};

const reasonOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

async function attempt<T>(what: string, run: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await run() };
  } catch (error) {
    log(`${what} could not run: ${reasonOf(error)}`);
    return { ok: false, reason: reasonOf(error) };
  }
}

async function measureWith(
  start: () => Promise<SystemUnderTest>,
  options: MeasureOptions,
): Promise<SystemResult> {
  const sut = await start();
  try {
    return await measureSystem(sut, options);
  } finally {
    await sut.stop();
  }
}

async function createNamespace(kubeConfig: KubeConfig, name: string): Promise<void> {
  await kubeConfig.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name } } });
}

const load1 = (): number => Math.round((loadavg()[0] ?? 0) * 100) / 100;

interface RoundContext {
  readonly args: BenchArgs;
  readonly size: number;
  readonly round: number;
  readonly logDir: string;
  readonly kroBuild: Outcome<KroBuild> | undefined;
}

/**
 * WARMUP_FLOOR_CRS caps the untimed warm-up on each fresh control plane: enough CRs' worth of
 * children-only floor writes (4 objects each) to pay the API server's first writes of each kind,
 * TLS and caches, without filling etcd before the measured system starts.
 */
const WARMUP_FLOOR_CRS = 200;
/** CONTROL_PLANE_PER_SYSTEM is the `settings.controlPlane` of runs that give every system its own control plane. */
const CONTROL_PLANE_PER_SYSTEM = 'per-system';

/** ControlPlaneRun is what one system's measurement gets: its own control plane and namespace. */
interface ControlPlaneRun {
  readonly cp: Awaited<ReturnType<typeof startControlPlane>>;
  /** cp.kubeConfig with one keep-alive connection pool (keep-alive.ts): every request the bench makes. */
  readonly kubeConfig: KubeConfig;
  readonly namespace: string;
  readonly measure: (resyncSeconds: number) => MeasureOptions;
}

/**
 * onFreshControlPlane runs one system of a round on a control plane of its own: a fresh etcd and
 * kube-apiserver, the bench CRD, an untimed warm-up, then `run`; the control plane is stopped
 * afterwards whatever `run` did. No system ever works against what another system left behind.
 */
async function onFreshControlPlane<T>(
  ctx: RoundContext,
  id: string,
  run: (on: ControlPlaneRun) => Promise<T>,
): Promise<T> {
  const { args, size, round } = ctx;
  // Every run creates thousands of Services with a ClusterIP: testenv's /24 service range is far
  // too small, so the API server gets a /16 (the later flag wins). An audit log names each
  // request's client, so idle requests are counted by the operator's User-Agent.
  const auditDir = mkdtempSync(join(ctx.logDir, `audit-${id}-`));
  const auditLog = join(auditDir, 'audit.log');
  writeFileSync(join(auditDir, 'policy.yaml'), AUDIT_POLICY);
  writeFileSync(auditLog, '');
  const cp = await startControlPlane({
    controllerManager: false,
    apiserverArgs: [
      '--service-cluster-ip-range=10.0.0.0/16',
      ...auditLogArgs(join(auditDir, 'policy.yaml'), auditLog),
    ],
  });
  try {
    const kubeConfig = keepAliveKubeConfig(cp.kubeConfig);
    const namespace = `bench-r${round}-${id}`;
    const warmupNamespace = `bench-r${round}-${id}-warmup`;
    for (const name of [warmupNamespace, namespace]) await createNamespace(kubeConfig, name);
    await installCrds(kubeConfig, [JSON.stringify(orkestraCrd())]);
    // An untimed warm-up first: the API server's first writes of each kind (etcd, caches, TLS
    // connections) are slower, and no system should pay for them.
    const warmupCrs = Math.min(size, WARMUP_FLOOR_CRS);
    log(`${id}: fresh control plane; untimed warm-up floor of ${warmupCrs * 4} objects`);
    await attempt('warm-up', () =>
      runRawFloor({
        kubeConfig: kubeConfig,
        namespace: warmupNamespace,
        size: warmupCrs,
        concurrency: args.concurrency,
      }),
    );
    const measure = (resyncSeconds: number): MeasureOptions => ({
      kubeConfig: kubeConfig,
      metrics: () => cp.metrics(),
      size,
      warmup: Math.min(10, size),
      concurrency: args.concurrency,
      idleMs: args.idleSeconds * 1000,
      resyncMs: resyncSeconds * 1000,
      edits: args.edits,
      editGapMs: 250,
      convergeTimeoutMs: Math.max(120_000, size * 1000),
      log,
      auditLog,
    });
    return await run({ cp, kubeConfig, namespace, measure });
  } finally {
    await cp.stop();
    // The figures are in the results; the log itself grows with every request of the run.
    rmSync(auditDir, { recursive: true, force: true });
  }
}

/** methodSettings are the settings every round and size document records about how it was measured. */
function methodSettings(args: BenchArgs, size: number): Readonly<Record<string, unknown>> {
  return {
    concurrency: args.concurrency,
    idleSeconds: args.idleSeconds,
    edits: args.edits,
    warmupCrs: Math.min(10, size),
    warmupFloorCrs: Math.min(size, WARMUP_FLOOR_CRS),
    controlPlane: CONTROL_PLANE_PER_SYSTEM,
    resyncSeconds: RESYNC_SECONDS,
    kroFlags: KRO_FLAGS_NOTE,
    ...(args.operatorArgs.length === 0 ? {} : { operatorArgs: args.operatorArgs }),
  };
}

/** runRound runs every selected system once, each on a fresh control plane, and returns the round document. */
async function runRound(ctx: RoundContext): Promise<BenchResults> {
  const { args, size, round } = ctx;
  const order = rotatedOrder(args.systems, round);
  const started = Date.now();
  const loadAtStart = load1();
  const cpuAtStart = readCpuCounters();
  log(`size ${size}, round ${round + 1}/${args.rounds}: ${order.join(' → ')} (load ${loadAtStart})`);
  let floor: Outcome<RawFloorResult> = { ok: false, reason: 'not selected (--systems)' };
  let fullFloor: Outcome<FullFloorResult> | undefined;
  let orkestra: Outcome<SystemResult> = { ok: false, reason: 'not selected (--systems)' };
  let peer: { name: string; outcome: Outcome<SystemResult> } | null = null;
  let peerDefault: { name: string; outcome: Outcome<SystemResult> } | null = null;
  const kro = async (
    on: ControlPlaneRun,
    resyncSeconds: number | undefined,
    id: string,
  ): Promise<{ name: string; outcome: Outcome<SystemResult> }> => {
    const name = `kro ${KRO_VERSION} (${resyncSeconds == null ? 'default resync' : `${resyncSeconds} s resync`})`;
    const build = ctx.kroBuild;
    if (build == null || !build.ok) return { name, outcome: build ?? { ok: false, reason: 'not built' } };
    log(`${name}: starting`);
    const outcome = await attempt(name, () =>
      measureWith(
        () =>
          startKro({
            build: build.value,
            kubeConfig: on.kubeConfig,
            kubeconfigPath: on.cp.kubeconfigPath,
            namespace: on.namespace,
            workers: args.concurrency,
            resyncSeconds,
            resource: resyncSeconds == null ? KRO_DEFAULT_RESYNC_RESOURCE : KRO_RESOURCE,
            logPath: join(ctx.logDir, `kro-${size}-r${round}-${id}.log`),
          }),
        on.measure(resyncSeconds ?? KRO_DEFAULT_RESYNC_SECONDS),
      ),
    );
    return { name, outcome };
  };

  for (const id of order) {
    const ran = await attempt(`${id}: control plane`, () =>
      onFreshControlPlane(ctx, id, async (on) => {
        switch (id) {
          case SystemId.Floor:
            log(`floor: server-side apply of ${size * 4} objects, ${args.concurrency} CRs at a time`);
            floor = await attempt('floor', () =>
              runRawFloor({
                kubeConfig: on.kubeConfig,
                namespace: on.namespace,
                size,
                concurrency: args.concurrency,
              }),
            );
            if (floor.ok) log(`floor: ${floor.value.convergenceMs.toFixed(0)} ms`);
            break;
          case SystemId.FullFloor:
            log(`full floor: ${size} CR creates, then 4 applies with owner metadata + 1 status patch each`);
            fullFloor = await attempt('full floor', async () => {
              const before = apiServerCpuMs(await on.cp.metrics());
              const result = await runFullFloor({
                kubeConfig: on.kubeConfig,
                namespace: on.namespace,
                size,
                concurrency: args.concurrency,
                crdEntry: 'benchapp',
                warmup: Math.min(10, size),
              });
              return { ...result, apiServerCpuMs: apiServerCpuMs(await on.cp.metrics()) - before };
            });
            if (fullFloor.ok) {
              log(
                `full floor: ${fullFloor.value.convergenceMs.toFixed(0)} ms, ` +
                  `API server CPU ${fullFloor.value.apiServerCpuMs?.toFixed(0) ?? '?'} ms`,
              );
            }
            break;
          case SystemId.Orkestra:
            log('orkestra: starting the runtime child');
            orkestra = await attempt('orkestra', () =>
              measureWith(
                () =>
                  startOrkestra({
                    kubeConfig: on.kubeConfig,
                    kubeconfigPath: on.cp.kubeconfigPath,
                    namespace: on.namespace,
                    workers: args.concurrency,
                    resync: `${RESYNC_SECONDS}s`,
                    logPath: join(ctx.logDir, `orkestra-${size}-r${round}.log`),
                    cpuProfileDir: args.cpuProfileDir == null ? undefined : callerPath(args.cpuProfileDir),
                    ...(args.operatorArgs.length === 0 ? {} : { args: args.operatorArgs }),
                  }),
                on.measure(RESYNC_SECONDS),
              ),
            );
            break;
          case SystemId.Kro:
            peer = await kro(on, RESYNC_SECONDS, id);
            break;
          case SystemId.KroDefault:
            peerDefault = await kro(on, undefined, id);
            break;
        }
      }),
    );
    // A control plane that would not start is the measured system's failure, with the reason.
    if (!ran.ok) {
      const failed = { ok: false as const, reason: `control plane: ${ran.reason}` };
      if (id === SystemId.Floor) floor = failed;
      else if (id === SystemId.FullFloor) fullFloor = failed;
      else if (id === SystemId.Orkestra) orkestra = failed;
      else if (id === SystemId.Kro) peer = { name: `kro ${KRO_VERSION} (30 s resync)`, outcome: failed };
      else peerDefault = { name: `kro ${KRO_VERSION} (default resync)`, outcome: failed };
    }
  }
  return buildResults({
    size,
    settings: { round, order, ...methodSettings(args, size) },
    environment: {
      date: new Date(started).toISOString(),
      durationS: Math.round((Date.now() - started) / 1000),
      loadAverage1m: { start: loadAtStart, end: load1() },
      cpuShare: cpuShare(cpuAtStart, readCpuCounters()),
    },
    floor,
    ...(fullFloor == null ? {} : { fullFloor }),
    orkestra,
    peer,
    peerDefault,
  });
}

async function main(): Promise<void> {
  const args = parseBenchArgs(process.argv.slice(2));
  if (args.help) {
    process.stdout.write(`${BENCH_USAGE}\n`);
    return;
  }
  const sharded = args.replicas.length > 1 || args.replicas.some((n) => n > 1);
  const outPath =
    args.out == null
      ? join(repoRoot, 'bench', 'results', sharded ? 'replicas.json' : 'latest.json')
      : callerPath(args.out);
  if (args.docsFrom.length === 0 && !existsSync(join(repoRoot, 'apps/operator/dist/index.js'))) {
    throw new Error('the runtime child loads the built operator: run `pnpm build` first');
  }
  if (sharded) {
    await runReplicas(args, outPath);
    return;
  }
  if (args.docsFrom.length > 0) {
    // No measurement: the page and charts from earlier runs' results, smallest size first.
    // A file from a several-size run holds every size under `sizes`.
    const read = args.docsFrom.map((file) => JSON.parse(readFileSync(callerPath(file), 'utf8')) as unknown);
    const replicas = read.filter(isReplicasDocument);
    const sizeDocuments = read
      .filter((d) => !isReplicasDocument(d))
      .flatMap((d) => {
        const doc = d as SizeDocument & { sizes?: SizeDocument[] };
        return doc.sizes ?? [doc];
      });
    const documents = mergeSameMethod(sizeDocuments).sort((a, b) => a.size - b.size);
    const durationS = documents.reduce(
      (sum, d) => sum + Number((d.environment as { durationS?: number }).durationS ?? 0),
      0,
    );
    writeDocs(repoRoot, documents, durationS, replicas);
    process.stdout.write(`regenerated docs/performance.md from ${args.docsFrom.join(', ')}\n`);
    return;
  }
  const logDir = mkdtempSync(join(tmpdir(), 'orkestra-bench-'));
  // The separators pnpm passes through (`pnpm bench -- --size …`) are not part of the command.
  const command = `pnpm bench ${process.argv
    .slice(2)
    .filter((a) => a !== '--')
    .join(' ')}`.trim();
  log(
    `sizes ${args.sizes.join(', ')}, ${args.rounds} rounds, systems ${args.systems.join(', ')}, ` +
      `concurrency ${args.concurrency}, idle ${args.idleSeconds} s, ${args.edits} edits; logs in ${logDir}`,
  );
  const started = Date.now();
  const loadAtStart = load1();

  // Build the peer before any control plane starts, so a cold Go build does not share the CPU
  // with anything measured.
  const wantsKro = args.systems.includes(SystemId.Kro) || args.systems.includes(SystemId.KroDefault);
  const kroBuild = wantsKro
    ? await attempt(`kro ${KRO_VERSION} build`, async () => {
        log(`building kro ${KRO_VERSION} if not cached (tools/bench/build-kro.sh)`);
        return buildKro(join(logDir, 'build-kro.log'));
      })
    : undefined;

  const versions = readVersions();
  const documents: SizeDocument[] = [];
  for (const size of args.sizes) {
    const rounds: BenchResults[] = [];
    const sizeStarted = Date.now();
    const sizeCpuAtStart = readCpuCounters();
    const docOf = (): SizeDocument =>
      sizeDocument({
        size,
        rounds,
        settings: {
          command,
          rounds: args.rounds,
          systems: args.systems,
          ...methodSettings(args, size),
          kroDefaultResyncSeconds: KRO_DEFAULT_RESYNC_SECONDS,
        },
        environment: {
          date: new Date(sizeStarted).toISOString(),
          durationS: Math.round((Date.now() - sizeStarted) / 1000),
          node: process.version,
          cpus: cpus().length,
          cpuModel: cpus()[0]?.model ?? 'unknown',
          memoryGb: Math.round(totalmem() / 2 ** 30),
          // The machine is shared: the 1-minute load average says how busy it was.
          loadAverage1m: { start: loadAtStart, end: load1() },
          // Load counts runnable processes at any priority; this says who had the CPU.
          cpuShare: cpuShare(sizeCpuAtStart, readCpuCounters()),
          // orkestra-runner.ts: the runtime child loads the operator's built JavaScript.
          operatorModules: 'built',
          commit: sourceCommit(repoRoot),
          kubernetes: versions.kubernetes,
          etcd: versions.etcd,
          kro: KRO_VERSION,
          logs: logDir,
        },
      });
    for (let round = 0; round < args.rounds; round++) {
      rounds.push(await runRound({ args, size, round, logDir, kroBuild }));
      // Written after every round, so an interrupted run keeps the rounds it finished.
      writeOutputs(args, repoRoot, outPath, [...documents, docOf()], started);
    }
    const doc = docOf();
    documents.push(doc);
    writeOutputs(args, repoRoot, outPath, documents, started);
    process.stdout.write(`\n${formatSizeTable(doc)}\n`);
  }
  process.stdout.write(`\nwrote ${outPath}\n`);
}

/** The repository root (the bench lives in tools/bench/src). */
const repoRoot = resolve(fileURLToPath(new URL('../../../', import.meta.url)));

/**
 * sourceCommit names the code measured: the checkout's HEAD commit, with `+changes` when the work
 * tree differs from it (the runtime child loads that tree's built packages).
 */
function sourceCommit(root: string): string {
  try {
    const head = execFileSync('git', ['-C', root, 'rev-parse', '--short=12', 'HEAD'], {
      encoding: 'utf8',
    }).trim();
    const dirty = execFileSync('git', ['-C', root, 'status', '--porcelain', '--untracked-files=no'], {
      encoding: 'utf8',
    }).trim();
    return dirty === '' ? head : `${head}+changes`;
  } catch {
    return 'unknown';
  }
}

/** The child kinds of the bench Katalog (audit-log resources), for double reconciles. */
const CHILD_RESOURCES = ['secrets', 'configmaps', 'services', 'deployments'];

/**
 * runReplicas is `pnpm bench --replicas 1,2,4`: Orkestra alone, sharded over each replica count,
 * every count once per round on a fresh control plane, the order rotated per round (interleaved).
 * Besides the usual figures: each replica's RSS, CPU and reconciles, the sharder's patches, and
 * double reconciles — child objects written by two shards' identities (the audit log's User-Agents).
 */
async function runReplicas(args: BenchArgs, outPath: string): Promise<void> {
  const logDir = mkdtempSync(join(tmpdir(), 'orkestra-bench-replicas-'));
  const command = `pnpm bench ${process.argv
    .slice(2)
    .filter((a) => a !== '--')
    .join(' ')}`.trim();
  log(
    `replicas ${args.replicas.join(', ')}, sizes ${args.sizes.join(', ')}, ${args.rounds} rounds; logs in ${logDir}`,
  );
  const started = Date.now();
  const loadAtStart = load1();
  const cpuAtStart = readCpuCounters();
  const sizes: { size: number; runs: ReplicaRun[]; summaries: ReturnType<typeof summarizeReplicas> }[] = [];
  const write = (): void => {
    mkdirSync(dirname(outPath), { recursive: true });
    writeFileSync(
      outPath,
      `${JSON.stringify(
        {
          settings: { command, replicas: args.replicas, rounds: args.rounds, ...methodSettings(args, 0) },
          environment: {
            date: new Date(started).toISOString(),
            durationS: Math.round((Date.now() - started) / 1000),
            node: process.version,
            cpus: cpus().length,
            cpuModel: cpus()[0]?.model ?? 'unknown',
            loadAverage1m: { start: loadAtStart, end: load1() },
            cpuShare: cpuShare(cpuAtStart, readCpuCounters()),
            operatorModules: 'built',
            commit: sourceCommit(repoRoot),
            logs: logDir,
          },
          sizes,
        },
        null,
        2,
      )}\n`,
    );
  };
  for (const size of args.sizes) {
    const runs: ReplicaRun[] = [];
    const entry = { size, runs, summaries: summarizeReplicas(runs) };
    sizes.push(entry);
    for (let round = 0; round < args.rounds; round++) {
      const order = rotatedOrder(args.replicas, round);
      log(`size ${size}, round ${round + 1}/${args.rounds}: replicas ${order.join(' → ')} (load ${load1()})`);
      for (const replicas of order) {
        const id = `orkestra-x${replicas}`;
        const ctx = { args, size, round, logDir, kroBuild: undefined };
        const ran = await attempt(id, () =>
          onFreshControlPlane(ctx, id, async (on) => {
            const options = on.measure(RESYNC_SECONDS);
            const sut = await startOrkestra({
              kubeConfig: on.kubeConfig,
              kubeconfigPath: on.cp.kubeconfigPath,
              namespace: on.namespace,
              workers: args.concurrency,
              resync: `${RESYNC_SECONDS}s`,
              logPath: join(logDir, `${id}-${size}-r${round}.log`),
              replicas,
            });
            try {
              const result = await measureSystem(sut, options);
              const perReplica = await sut.replicaSamples();
              const writers =
                options.auditLog == null
                  ? { objects: 0, doubles: [] }
                  : shardWriters(readFileSync(options.auditLog, 'utf8'), CHILD_RESOURCES);
              return {
                replicas,
                round,
                result,
                perReplica,
                childObjectsWritten: writers.objects,
                // CR children only: each replica also stores the Katalog revision ConfigMap in the
                // operator namespace at start-up (not a reconcile).
                doubleReconciles: writers.doubles.filter((key) => key.includes(` ${on.namespace}/`)),
              };
            } finally {
              await sut.stop();
            }
          }),
        );
        if (ran.ok) {
          runs.push(ran.value);
          log(
            `${id}: ${ran.value.result.convergenceMs.toFixed(0)} ms, ` +
              `double reconciles ${ran.value.doubleReconciles.length}`,
          );
        }
        entry.summaries = summarizeReplicas(runs);
        write();
      }
    }
    process.stdout.write(`\n${formatReplicaTable(size, entry.summaries)}\n`);
  }
  write();
  process.stdout.write(`\nwrote ${outPath}\n`);
}

function writeOutputs(
  args: BenchArgs,
  repoRoot: string,
  outPath: string,
  documents: readonly SizeDocument[],
  started: number,
): void {
  const last = documents[documents.length - 1];
  if (last == null) return;
  mkdirSync(dirname(outPath), { recursive: true });
  // The top-level keys are the last size's; every size (with its rounds) is under `sizes`.
  const latest = { ...last, sizes: documents.length > 1 ? documents : undefined };
  writeFileSync(outPath, `${JSON.stringify(latest, null, 2)}\n`);
  const charts = { convergence: convergenceChart(documents), rss: rssChart(documents) };
  writeFileSync(join(dirname(outPath), 'convergence.svg'), charts.convergence);
  writeFileSync(join(dirname(outPath), 'rss.svg'), charts.rss);
  if (args.docs) writeDocs(repoRoot, documents, Math.round((Date.now() - started) / 1000));
}

/** writeDocs regenerates docs/performance.md and docs/performance/*.svg from size documents. */
function writeDocs(
  repoRoot: string,
  documents: readonly SizeDocument[],
  durationS: number,
  replicas: readonly ReplicasDocument[] = [],
): void {
  const docsDir = join(repoRoot, 'docs');
  mkdirSync(join(docsDir, 'performance'), { recursive: true });
  writeFileSync(join(docsDir, 'performance', 'convergence.svg'), convergenceChart(documents));
  writeFileSync(join(docsDir, 'performance', 'rss.svg'), rssChart(documents));
  // The committed admission results keep their section (admission-doc writes it alone).
  const admission = readdirSync(join(docsDir, 'performance'))
    .filter((name) => ADMISSION_RESULTS.test(name))
    .map((name) => JSON.parse(readFileSync(join(docsDir, 'performance', name), 'utf8')) as unknown)
    .filter(isAdmissionDocument);
  writeFileSync(
    join(docsDir, 'performance.md'),
    performanceDoc({ documents, durationS, replicas, admission }),
  );
  // The page is formatted as `pnpm lint` checks it (aligned tables); argv, no shell.
  execFileSync('pnpm', ['exec', 'prettier', '--write', join(docsDir, 'performance.md')], {
    cwd: repoRoot,
    stdio: 'ignore',
  });
}

// `pnpm bench rollout …` (docs/reference/runtime.md §24) is its own benchmark: src/rollout.ts.
const sub = process.argv.slice(2).find((a) => a !== '--');
(sub === 'rollout' ? import('./rollout.js').then(() => undefined) : main()).catch((error: unknown) => {
  log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exitCode = 1;
});

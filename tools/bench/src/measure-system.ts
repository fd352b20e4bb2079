/**
 * measureSystem drives one started operator through the benchmark phases on the shared API
 * server: create N CRs and wait for their 4N children (convergence), an idle window with resyncs
 * (idle requests, no-op resync writes), a series of one-field edits (writes per edit and edit →
 * child latency), and memory before and after.
 */
import { meanStepMs } from './step-totals.js';
import { statSync } from 'node:fs';
import { KubernetesObjectApi, PatchStrategy } from '@kubernetes/client-node';
import type { KubeConfig } from '@kubernetes/client-node';
import {
  apiServerCpuMs,
  countRequests,
  describeRequests,
  diffRequestCounts,
  onlyWrites,
  readRequestCounts,
} from './api-requests.js';
import type { RequestCounts } from './api-requests.js';
import { clientWindow, countByClient, readFrom } from './audit-log.js';
import { ObjectTracker } from './object-tracker.js';
import { runLimited } from './run-limited.js';
import { sleep } from './sleep.js';
import { mbPerThousand, percentile, perCrHour, ratio } from './stats.js';
import type { MemorySample, SystemUnderTest } from './system-under-test.js';
import { classifyWrites, netOfBackground, perEdit, totalWrites } from './write-classes.js';
import type { WriteClasses } from './write-classes.js';
import { childNames, crManifest, crName, initialSpec, warmName } from './workload.js';

/** How long one edit's child change may take before the edit phase ends, ms. */
const EDIT_TIMEOUT_MS = 30_000;

/** MeasureOptions are the knobs shared by every system in one run. */
export interface MeasureOptions {
  readonly kubeConfig: KubeConfig;
  /** Reads kube-apiserver's `/metrics`. */
  readonly metrics: () => Promise<string>;
  /** Number of CRs timed. */
  readonly size: number;
  /**
   * CRs created (and converged) before the clock starts, so the first timed reconcile does not
   * pay for JIT compilation, connection set-up or the API server's first writes of a kind. They
   * stay, and count as CRs in the idle and memory figures.
   */
  readonly warmup: number;
  /** CRs created at the same time by the benchmark (and reconciled at the same time by the operator). */
  readonly concurrency: number;
  /** Length of the idle window, ms; a multiple of resyncMs, so every CR is resynced a whole number of times. */
  readonly idleMs: number;
  /** The resync period both operators are configured with, ms. */
  readonly resyncMs: number;
  /** Number of one-field edits. */
  readonly edits: number;
  /** Pause after each edit's child change, so edits do not overlap, ms. */
  readonly editGapMs: number;
  /** Longest wait for convergence, ms. */
  readonly convergeTimeoutMs: number;
  /** Progress lines. */
  readonly log: (message: string) => void;
  /**
   * kube-apiserver's audit log (JSON lines, AUDIT_POLICY): a system that names its `client` has its
   * idle requests counted there by User-Agent, Lease requests apart. Default: none, idle requests
   * come from `apiserver_request_total`.
   */
  readonly auditLog?: string;
}

/** IdleResult is what the idle window saw. */
interface IdleResult {
  readonly windowMs: number;
  /** Requests (watches and API server upkeep excluded). */
  readonly requests: number;
  readonly writes: number;
  /** Resyncs due in the window: CRs × window ÷ resync period. */
  readonly resyncs: number;
  /** Reconciles the operator reports finishing in the window (resyncs and whatever they triggered). */
  readonly reconciles: number | null;
  /** The counted requests, by verb and resource. */
  readonly breakdown: string;
  /** Where `requests` were counted: `audit log (<client>)` or `apiserver_request_total`. */
  readonly source: string;
  /** The system's Lease requests (leader election) in the window, from the audit log; null without it. */
  readonly leaseRequests: number | null;
}

/** EditResult is what the one-field edits cost. */
interface EditResult {
  readonly edits: number;
  /** Length of the edit window (first edit → quiet), ms. */
  readonly windowMs: number;
  /** Writes per edit, net of the idle window's write rate (resyncs) over the same time. */
  readonly perEdit: WriteClasses;
  /** Writes per edit as counted, resync writes that fell into the window included. */
  readonly rawPerEdit: WriteClasses;
  /**
   * Share of the window's writes the idle rate predicts (resyncs). Above 0.5 the resyncs dominate
   * the edits and the net figures are not a measurement (a saturated operator resyncs at a
   * different rate while edits queue), so the report shows the raw figures instead.
   */
  readonly resyncShare: number;
  /**
   * Set when an edit's child change was not seen within the edit timeout: the phase ends there
   * (each further edit would wait as long), this is the number of edits made, the timed-out one
   * included, and the latencies below count it at the timeout (a lower bound).
   */
  readonly timedOutAt?: number;
  /** Edit → ConfigMap carries the new value, as seen through a watch, ms. */
  readonly latencyMs: {
    readonly p50: number | null;
    readonly p99: number | null;
    readonly max: number | null;
  };
  readonly breakdown: string;
}

/** SystemResult is every figure of one system. */
export interface SystemResult {
  readonly name: string;
  /** CRs present during the idle and memory phases (timed plus warm-up). */
  readonly crs: number;
  /** First CR create → last of the 4N children observed, ms. */
  readonly convergenceMs: number;
  /** How long creating the N CRs took, ms (inside convergenceMs). */
  readonly createMs: number;
  /**
   * CPU time the API server spent over convergenceMs (`process_cpu_seconds_total`), ms: what the
   * system cost the API server, to compare with the full floor's on the same machine.
   */
  readonly apiServerCpuMs?: number;
  /** Convergence → no more writes, ms. */
  readonly settleMs: number;
  /**
   * The writes made from the first create to the end of the settle phase, per timed CR, by what
   * they wrote to; the benchmark's own CR creates are left out (the full floor makes 4 child writes
   * and 1 status write per CR).
   */
  readonly writesPerNewCr?: WriteClasses;
  readonly idle: IdleResult;
  readonly idleRequestsPerCrHour: number | null;
  /** Lease requests per hour in the idle window (leader election; not per CR), from the audit log. */
  readonly idleLeaseRequestsPerHour?: number | null;
  /** Writes in the idle window per resync due in it (nothing else happens then). */
  readonly noopResyncWrites: number | null;
  readonly edit: EditResult;
  /**
   * CPU time of the operator process from the first create to the end of the settle phase, and
   * the reconciles it reported finishing in that span.
   */
  readonly cpu?: {
    readonly ms: number;
    readonly reconciles: number;
    /** CPU ms per finished reconcile. */
    readonly msPerReconcile: number | null;
    /** Finished reconciles per timed CR (1 is the minimum: one reconcile per new CR). */
    readonly reconcilesPerCr: number | null;
    /** Keys the operator's resync queued over the same span, per timed CR (null: not reported). */
    readonly resyncsPerCr?: number | null;
    /** Mean ms per reconcile in each pipeline step over the same span (Orkestra's step histogram). */
    readonly stepMs?: Readonly<Record<string, number>>;
  };
  /** Child + status + CR + other writes per edit, net of resyncs (events listed separately). */
  readonly oneFieldChangeWrites: number;
  readonly memory: {
    /** Before the timed CRs (after the warm-up). */
    readonly empty: MemorySample;
    /** After convergence and the idle window. */
    readonly full: MemorySample;
    /** (full − empty) RSS ÷ timed CRs × 1 000, MiB. */
    readonly rssMbPer1kCrs: number | null;
    /** The same from the heap figure, when the system reports one. */
    readonly heapMbPer1kCrs: number | null;
  };
}

/**
 * waitForQuiet polls the API server's counters until no write (watches and upkeep excluded) has
 * happened for `quietMs`, or `timeoutMs` passed; returns how long it waited.
 */
export async function waitForQuiet(
  metrics: () => Promise<string>,
  options: { readonly quietMs: number; readonly timeoutMs: number; readonly pollMs?: number },
): Promise<{ readonly waitedMs: number; readonly quiet: boolean }> {
  const start = performance.now();
  const poll = options.pollMs ?? 500;
  let last: RequestCounts = readRequestCounts(await metrics());
  let quietSince = performance.now();
  while (performance.now() - start < options.timeoutMs) {
    await sleep(poll);
    const now = readRequestCounts(await metrics());
    if (countRequests(diffRequestCounts(last, now), { verbs: 'writes' }) > 0) quietSince = performance.now();
    last = now;
    if (performance.now() - quietSince >= options.quietMs) {
      return { waitedMs: quietSince - start, quiet: true };
    }
  }
  return { waitedMs: performance.now() - start, quiet: false };
}

/**
 * steadyMemory samples the operator's memory every 2 s until RSS moves by less than 1 MiB between
 * two samples (at most 10 samples), so start-up memory still being returned to the OS is not
 * mistaken for the cost of the CRs; returns the last sample.
 */
async function steadyMemory(sut: SystemUnderTest): Promise<MemorySample> {
  let last = await sut.memory();
  for (let i = 0; i < 9; i++) {
    await sleep(2000);
    const next = await sut.memory();
    const settled = Math.abs(next.rssBytes - last.rssBytes) < 1_048_576;
    last = next;
    if (settled) break;
  }
  return last;
}

/** measureSystem runs every phase against `sut` and returns its figures. */
export async function measureSystem(sut: SystemUnderTest, options: MeasureOptions): Promise<SystemResult> {
  const { log } = options;
  const api = KubernetesObjectApi.makeApiClient(options.kubeConfig);
  const ns = sut.namespace;
  const tracker = new ObjectTracker({
    kubeConfig: options.kubeConfig,
    resources: [
      { key: 'configmaps', path: `/api/v1/namespaces/${ns}/configmaps` },
      { key: 'secrets', path: `/api/v1/namespaces/${ns}/secrets` },
      { key: 'services', path: `/api/v1/namespaces/${ns}/services` },
      { key: 'deployments', path: `/apis/apps/v1/namespaces/${ns}/deployments` },
    ],
  });
  const names = Array.from({ length: options.size }, (_, i) => crName(i));
  const warmNames = Array.from({ length: options.warmup }, (_, i) => warmName(i));
  const allChildrenExist = (list: readonly string[]) => (): boolean =>
    list.every((name) => {
      const c = childNames(name);
      return (
        tracker.get('configmaps', c.configMap) != null &&
        tracker.get('secrets', c.secret) != null &&
        tracker.get('services', c.service) != null &&
        tracker.get('deployments', c.deployment) != null
      );
    });

  try {
    await tracker.start();
    // Discovery for the CR type is cached by the client before the clock starts.
    await api.list(`${sut.resource.group}/${sut.resource.version}`, sut.resource.kind, ns);

    // ---- warm-up (untimed)
    if (warmNames.length > 0) {
      log(`${sut.name}: warm-up with ${warmNames.length} CRs`);
      await runLimited(warmNames, options.concurrency, async (name) => {
        await api.create(crManifest(sut.resource, name, ns, initialSpec(name)));
      });
      await tracker.waitFor(allChildrenExist(warmNames), options.convergeTimeoutMs, 'the warm-up children');
      await waitForQuiet(options.metrics, { quietMs: 3000, timeoutMs: 30_000 });
    }

    // The "empty" process: started, warmed up, then left idle as long as the idle window that
    // precedes the full reading, so both readings are taken in the same state (V8 and Go give
    // memory back to the OS lazily, minutes after a burst). Taken after the warm-up so start-up
    // garbage (module loading, first compilations) is not counted against the CRs; the memory
    // figures divide by the timed CRs only.
    log(`${sut.name}: idle ${(options.idleMs / 1000).toFixed(0)} s before the "empty" memory reading`);
    await sleep(options.idleMs);
    const empty = await steadyMemory(sut);
    log(`${sut.name}: RSS before the timed CRs ${(empty.rssBytes / 1_048_576).toFixed(1)} MiB`);

    // ---- convergence
    log(`${sut.name}: creating ${options.size} CRs (${options.concurrency} at a time)`);
    const cpuBefore = await sut.cpuMs();
    const reconcilesAtStart = await sut.reconciles();
    const resyncsAtStart = (await sut.resyncsAdded?.()) ?? null;
    const stepsAtStart = (await sut.reconcileSteps?.()) ?? null;
    const convergeMetrics = await options.metrics();
    const apiCpuBefore = apiServerCpuMs(convergeMetrics);
    const convergeBefore = readRequestCounts(convergeMetrics);
    const t0 = performance.now();
    await runLimited(names, options.concurrency, async (name) => {
      await api.create(crManifest(sut.resource, name, ns, initialSpec(name)));
    });
    const createMs = performance.now() - t0;
    const t1 = await tracker.waitFor(
      allChildrenExist(names),
      options.convergeTimeoutMs,
      `${options.size * 4} children`,
    );
    const convergenceMs = t1 - t0;
    const apiCpu = apiServerCpuMs(await options.metrics()) - apiCpuBefore;
    log(`${sut.name}: API server CPU over convergence ${apiCpu.toFixed(0)} ms`);
    log(`${sut.name}: converged in ${convergenceMs.toFixed(0)} ms (creates took ${createMs.toFixed(0)} ms)`);
    const settle = await waitForQuiet(options.metrics, { quietMs: 3000, timeoutMs: 30_000 });
    log(`${sut.name}: ${settle.quiet ? 'quiet' : 'still writing'} after ${settle.waitedMs.toFixed(0)} ms`);
    const convergeDelta = diffRequestCounts(convergeBefore, readRequestCounts(await options.metrics()));
    const writesPerNewCr = perEdit(classifyWrites(convergeDelta, sut.resource, options.size), options.size);
    log(`${sut.name}: writes over convergence ${describeRequests(onlyWrites(convergeDelta))}`);
    log(
      `${sut.name}: writes per new CR ${totalWrites(writesPerNewCr).toFixed(2)}: ` +
        `${writesPerNewCr.child.toFixed(2)} child, ${writesPerNewCr.status.toFixed(2)} status, ` +
        `${writesPerNewCr.cr.toFixed(2)} CR, ${writesPerNewCr.events.toFixed(2)} event, ${writesPerNewCr.other.toFixed(2)} other`,
    );
    const cpuAfter = await sut.cpuMs();
    const reconcilesAtSettle = await sut.reconciles();
    const resyncsAtSettle = (await sut.resyncsAdded?.()) ?? null;
    const stepsAtSettle = (await sut.reconcileSteps?.()) ?? null;
    const stepMs =
      stepsAtStart == null || stepsAtSettle == null ? null : meanStepMs(stepsAtStart, stepsAtSettle);
    if (stepMs != null && Object.keys(stepMs).length > 0) {
      log(
        `${sut.name}: mean ms per reconcile step over convergence: ${Object.entries(stepMs)
          .map(([step, ms]) => `${step} ${ms.toFixed(1)}`)
          .join(', ')}`,
      );
    }
    const cpu =
      cpuBefore == null || cpuAfter == null || reconcilesAtStart == null || reconcilesAtSettle == null
        ? undefined
        : {
            ms: cpuAfter - cpuBefore,
            reconciles: reconcilesAtSettle - reconcilesAtStart,
            msPerReconcile: ratio(cpuAfter - cpuBefore, reconcilesAtSettle - reconcilesAtStart),
            reconcilesPerCr: ratio(reconcilesAtSettle - reconcilesAtStart, options.size),
            resyncsPerCr:
              resyncsAtStart == null || resyncsAtSettle == null
                ? null
                : ratio(resyncsAtSettle - resyncsAtStart, options.size),
            ...(stepMs == null ? {} : { stepMs }),
          };
    if (cpu != null) {
      log(
        `${sut.name}: ${cpu.ms.toFixed(0)} ms CPU for ${cpu.reconciles} reconciles ` +
          `(${cpu.msPerReconcile?.toFixed(2) ?? '?'} ms each, ${cpu.reconcilesPerCr?.toFixed(2) ?? '?'} per CR; ` +
          `resync queued ${cpu.resyncsPerCr?.toFixed(2) ?? '?'} per CR)`,
      );
    }

    // ---- idle window
    log(`${sut.name}: idle window of ${(options.idleMs / 1000).toFixed(0)} s`);
    const idleBefore = readRequestCounts(await options.metrics());
    const reconcilesBefore = await sut.reconciles();
    const auditOffset = options.auditLog == null ? 0 : statSync(options.auditLog).size;
    const idleStart = performance.now();
    await sleep(options.idleMs);
    const idleAfter = readRequestCounts(await options.metrics());
    const idleWindowMs = performance.now() - idleStart;
    const audited =
      options.auditLog == null || sut.client == null
        ? undefined
        : clientWindow(countByClient(readFrom(options.auditLog, auditOffset)), sut.client);
    const reconcilesAfter = await sut.reconciles();
    const idleDelta = diffRequestCounts(idleBefore, idleAfter);
    const idleReconciles =
      reconcilesBefore == null || reconcilesAfter == null ? null : reconcilesAfter - reconcilesBefore;
    const idle: IdleResult = {
      windowMs: Math.round(idleWindowMs),
      requests: audited?.requests ?? countRequests(idleDelta),
      writes: countRequests(idleDelta, { verbs: 'writes' }),
      resyncs: ((options.size + options.warmup) * idleWindowMs) / options.resyncMs,
      reconciles: idleReconciles,
      breakdown:
        audited == null
          ? describeRequests(idleDelta)
          : Object.entries(audited.byRequest)
              .map(([key, n]) => `${key}×${n}`)
              .join(', '),
      source: audited == null ? 'apiserver_request_total' : `audit log (${sut.client ?? ''})`,
      leaseRequests: audited?.leases ?? null,
    };
    log(
      `${sut.name}: idle ${idle.requests} requests, ${idle.writes} writes, ${idle.resyncs.toFixed(0)} resyncs due, ` +
        `${idle.reconciles ?? '?'} reconciles reported (requests from the ${idle.source}` +
        `${idle.leaseRequests == null ? '' : `; ${idle.leaseRequests} Lease requests apart`})`,
    );
    // Memory at steady state: every CR and child cached, after an idle window with resyncs.
    const full = await steadyMemory(sut);
    log(`${sut.name}: RSS with ${options.size} CRs ${(full.rssBytes / 1_048_576).toFixed(1)} MiB`);

    // ---- one-field edits
    log(`${sut.name}: ${options.edits} one-field edits`);
    const editBefore = readRequestCounts(await options.metrics());
    const editStart = performance.now();
    const latencies: number[] = [];
    let editsMade = options.edits;
    let timedOutAt: number | undefined;
    const stride = Math.max(1, Math.floor(options.size / Math.max(1, options.edits)));
    for (let k = 0; k < options.edits; k++) {
      const name = names[(k * stride) % names.length] as string;
      const message = `edit ${k} of ${name}`;
      const configMap = childNames(name).configMap;
      const start = performance.now();
      await api.patch(
        { ...crManifest(sut.resource, name, ns, { ...initialSpec(name), message }) },
        undefined,
        undefined,
        'bench',
        undefined,
        PatchStrategy.MergePatch,
      );
      const seen = await tracker
        .waitFor(
          () => tracker.get('configmaps', configMap)?.data?.['message'] === message,
          EDIT_TIMEOUT_MS,
          `ConfigMap ${configMap} to carry "${message}"`,
        )
        .then(
          (at) => at - start,
          (error: unknown) => {
            log(`${sut.name}: ${error instanceof Error ? error.message : String(error)}; edits end here`);
            return undefined;
          },
        );
      if (seen == null) {
        latencies.push(EDIT_TIMEOUT_MS);
        editsMade = k + 1;
        timedOutAt = k + 1;
        break;
      }
      latencies.push(seen);
      await sleep(options.editGapMs);
    }
    await waitForQuiet(options.metrics, { quietMs: 3000, timeoutMs: 15_000 });
    const editDelta = diffRequestCounts(editBefore, readRequestCounts(await options.metrics()));
    const editWindowMs = performance.now() - editStart;
    const raw = classifyWrites(editDelta, sut.resource, editsMade);
    const background = classifyWrites(idleDelta, sut.resource, 0);
    const edit: EditResult = {
      edits: editsMade,
      ...(timedOutAt == null ? {} : { timedOutAt }),
      windowMs: Math.round(editWindowMs),
      perEdit: perEdit(netOfBackground(raw, editWindowMs, background, idle.windowMs), editsMade),
      rawPerEdit: perEdit(raw, editsMade),
      resyncShare:
        totalWrites(raw) > 0
          ? (totalWrites(background) * (editWindowMs / idle.windowMs)) / totalWrites(raw)
          : 0,
      latencyMs: {
        p50: percentile(latencies, 50) ?? null,
        p99: percentile(latencies, 99) ?? null,
        max: latencies.length === 0 ? null : Math.max(...latencies),
      },
      breakdown: describeRequests(editDelta),
    };
    const w = edit.perEdit;
    log(
      `${sut.name}: per edit ${w.child.toFixed(2)} child, ${w.status.toFixed(2)} status, ${w.cr.toFixed(2)} CR, ` +
        `${w.events.toFixed(2)} event, ${w.other.toFixed(2)} other writes (net of resyncs); ` +
        `latency p50 ${edit.latencyMs.p50?.toFixed(1)} ms p99 ${edit.latencyMs.p99?.toFixed(1)} ms`,
    );

    const crs = options.size + options.warmup;
    return {
      name: sut.name,
      crs,
      convergenceMs,
      apiServerCpuMs: apiCpu,
      createMs,
      settleMs: settle.waitedMs,
      writesPerNewCr,
      idle,
      idleRequestsPerCrHour: perCrHour(idle.requests, crs, idle.windowMs),
      idleLeaseRequestsPerHour:
        idle.leaseRequests == null ? null : perCrHour(idle.leaseRequests, 1, idle.windowMs),
      noopResyncWrites: idle.resyncs < 1 ? null : ratio(idle.writes, idle.resyncs),
      edit,
      ...(cpu == null ? {} : { cpu }),
      oneFieldChangeWrites: edit.perEdit.child + edit.perEdit.status + edit.perEdit.cr + edit.perEdit.other,
      memory: {
        empty,
        full,
        rssMbPer1kCrs: mbPerThousand(full.rssBytes - empty.rssBytes, options.size),
        heapMbPer1kCrs:
          full.heapUsedBytes == null || empty.heapUsedBytes == null
            ? null
            : mbPerThousand(full.heapUsedBytes - empty.heapUsedBytes, options.size),
      },
    };
  } finally {
    tracker.stop();
  }
}

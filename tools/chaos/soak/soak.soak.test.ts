/**
 * The soak (`pnpm test:soak`): `ork run` against a private control plane with many Shop CRs for a
 * long time, under random spec edits, child deletions and drift (a second writer changing a field
 * the Katalog owns), with a kube-apiserver restart at a fixed interval. Pass: 0 lost updates (every
 * CR's ConfigMap ends at its last edit, Ready at its last generation), 0 CRs stuck, no regenerated
 * `once` Secret. The operator's memory (RSS, sampled every 10 s) is reported as a least-squares
 * slope over the second half of the run (after warm-up).
 *
 * Sizes: CI (default) 100 CRs for 3 minutes, a restart every 90 s; `ORKESTRA_SOAK_SIZE=full` 1,000
 * CRs for 30 minutes, a restart every 10 minutes. ORKESTRA_SOAK_CRS, ORKESTRA_SOAK_MINUTES and
 * ORKESTRA_SOAK_RESTART_MINUTES override either.
 */
import { readFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { startControlPlane } from '@orkestra/testenv';
import type { ControlPlane } from '@orkestra/testenv';
import { useControlPlane } from '@orkestra/testenv/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chaosKatalogText, configMapName, shopApi } from '../src/chaos-katalog.js';
import {
  createNamespace,
  crClient,
  installCrd,
  isNotFound,
  isReadyAtGeneration,
  uniqueSuffix,
} from '../src/custom-resources.js';
import { reportClaim, reportFigure } from '../src/figures.js';
import { readFleet, regeneratedSecrets } from '../src/fleet.js';
import type { SecretIdentity } from '../src/fleet.js';
import { spawnOperator } from '../src/operator-process.js';
import type { OperatorProcess } from '../src/operator-process.js';
import { seededRandom } from '../src/seeded-random.js';
import { sleep, waitFor } from '../src/wait-for.js';

const SCENARIO = 'soak';
const FULL = process.env['ORKESTRA_SOAK_SIZE'] === 'full';
const CRS = Number(process.env['ORKESTRA_SOAK_CRS'] ?? (FULL ? 1000 : 100));
const DURATION_MS = Number(process.env['ORKESTRA_SOAK_MINUTES'] ?? (FULL ? 30 : 3)) * 60_000;
const RESTART_EVERY_MS = Number(process.env['ORKESTRA_SOAK_RESTART_MINUTES'] ?? (FULL ? 10 : 1.5)) * 60_000;
const SEED = Number(process.env['ORKESTRA_SOAK_SEED'] ?? 20_261_201);
/** Random actions per second, over the whole fleet. */
const ACTIONS_PER_S = FULL ? 20 : 10;
const DOWN_MS = 5000;
const MEMORY_SAMPLE_MS = 10_000;

useControlPlane();
let cp: ControlPlane | undefined;
let operator: OperatorProcess | undefined;
const dir = mkdtempSync(join(tmpdir(), 'orkestra-soak-'));

beforeAll(async () => {
  cp = await startControlPlane({ controllerManager: false });
});

afterAll(async () => {
  operator?.kill('SIGKILL');
  await operator?.exited;
  await cp?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** rssMiB reads a process's resident set size from /proc. */
function rssMiB(pid: number): number | undefined {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb == null ? undefined : Number(kb) / 1024;
  } catch {
    return undefined;
  }
}

/** slopePerMinute is the least-squares slope of (ms, value) samples, per minute. */
function slopePerMinute(samples: readonly (readonly [number, number])[]): number {
  const n = samples.length;
  if (n < 2) return 0;
  const mx = samples.reduce((s, [x]) => s + x, 0) / n;
  const my = samples.reduce((s, [, y]) => s + y, 0) / n;
  const sxy = samples.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const sxx = samples.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return sxx === 0 ? 0 : (sxy / sxx) * 60_000;
}

describe('soak', () => {
  // The name does not carry the size (the figures do), so a CI-size run can be compared with the
  // documented full-size one (`pnpm chaos:report compare`).
  it('edits, child deletions, drift and API server restarts: no lost update, nothing stuck, no regenerated Secret', async () => {
    if (cp == null) throw new Error('no control plane');
    const plane = cp;
    const suffix = uniqueSuffix();
    const api = shopApi(`soak${suffix}.example.com`);
    const ns = `soak-${suffix}`;
    await installCrd(plane.kubeConfig, api);
    await createNamespace(plane.kubeConfig, ns);
    const katalogPath = join(dir, 'katalog.yaml');
    const kubeconfigPath = join(dir, 'admin.kubeconfig');
    writeFileSync(katalogPath, chaosKatalogText({ name: 'chaos-soak', group: api.group }));
    writeFileSync(kubeconfigPath, plane.kubeConfig.exportConfig(), { mode: 0o600 });
    operator = spawnOperator({
      katalogPath,
      kubeconfigPath,
      namespace: ns,
      args: ['--leader-elect=false'],
    });
    const running = operator;
    await waitFor('operator ready', () => running.logs().some((l) => l.msg === 'operator ready'), {
      timeoutMs: 180_000,
      intervalMs: 100,
    });

    const crs = crClient(plane.kubeConfig, api);
    const core = plane.kubeConfig.makeApiClient(CoreV1Api);
    const names = Array.from({ length: CRS }, (_, i) => `shop-${i}`);
    const expected = new Map(names.map((n) => [n, 'v0']));
    for (let i = 0; i < names.length; i += 50)
      await Promise.all(names.slice(i, i + 50).map((n) => crs.create(ns, n, { greeting: 'v0' })));
    const startedConverging = performance.now();
    await waitFor(
      'every CR converged',
      async () => (await readFleet(plane.kubeConfig, api, ns)).pending.length === 0,
      {
        timeoutMs: 900_000,
        intervalMs: 1000,
      },
    );
    reportFigure(SCENARIO, 'initial convergence', Math.round(performance.now() - startedConverging), 'ms');
    const firstSecrets: Map<string, SecretIdentity> = new Map(
      (await readFleet(plane.kubeConfig, api, ns)).secrets,
    );
    expect(firstSecrets.size).toBe(CRS);

    const random = seededRandom(SEED);
    const pick = (): string => names[Math.floor(random() * names.length)] ?? 'shop-0';
    const counts = { edits: 0, childDeletions: 0, drifts: 0, restarts: 0, failedActions: 0 };
    const memory: [number, number][] = [];
    const started = performance.now();
    let nextRestart = started + RESTART_EVERY_MS;
    let nextSample = started;
    let edit = 0;
    while (performance.now() - started < DURATION_MS) {
      const now = performance.now();
      if (now >= nextSample) {
        const rss = rssMiB(running.pid);
        if (rss != null) memory.push([now - started, rss]);
        nextSample += MEMORY_SAMPLE_MS;
      }
      if (now >= nextRestart && now - started < DURATION_MS - DOWN_MS) {
        await plane.stopApiServer();
        await sleep(DOWN_MS);
        await plane.startApiServer();
        counts.restarts++;
        nextRestart += RESTART_EVERY_MS;
        continue;
      }
      const name = pick();
      const action = random();
      try {
        if (action < 0.6) {
          const value = `v${++edit}`;
          await crs.patchSpec(ns, name, { greeting: value });
          expected.set(name, value);
          counts.edits++;
        } else if (action < 0.8) {
          await core.deleteNamespacedConfigMap({ namespace: ns, name: configMapName(name) });
          counts.childDeletions++;
        } else {
          await core.patchNamespacedConfigMap(
            {
              namespace: ns,
              name: configMapName(name),
              body: {
                apiVersion: 'v1',
                kind: 'ConfigMap',
                metadata: { name: configMapName(name) },
                data: { greeting: 'drift' },
              },
              fieldManager: 'soak-intruder',
              force: true,
            },
            setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply),
          );
          counts.drifts++;
        }
      } catch (error) {
        // A child already deleted, or a request racing a restart: the action did not happen.
        if (!isNotFound(error)) counts.failedActions++;
      }
      await sleep(1000 / ACTIONS_PER_S);
    }
    const soakedMs = performance.now() - started;

    // Settle: every CR must show its last edit, Ready at its last generation.
    const settleStarted = performance.now();
    let stuck: string[] = [];
    try {
      await waitFor(
        'every edit observed',
        async () => {
          const fleet = await readFleet(plane.kubeConfig, api, ns);
          const greetings = new Map<string, string | undefined>();
          for (const cr of fleet.crs) greetings.set(cr.metadata.name, undefined);
          const cms = await core.listNamespacedConfigMap({ namespace: ns });
          for (const cm of cms.items) greetings.set(cm.metadata?.name ?? '', cm.data?.['greeting']);
          stuck = names.filter((n) => {
            const cr = fleet.crs.find((c) => c.metadata.name === n);
            return (
              cr == null || !isReadyAtGeneration(cr) || greetings.get(configMapName(n)) !== expected.get(n)
            );
          });
          return stuck.length === 0;
        },
        { timeoutMs: FULL ? 600_000 : 180_000, intervalMs: 2000 },
      );
    } catch {
      // reported below
    }
    const settleMs = performance.now() - settleStarted;
    const after = await readFleet(plane.kubeConfig, api, ns);
    const regenerated = regeneratedSecrets(firstSecrets, after.secrets);
    const secondHalf = memory.filter(([ms]) => ms >= soakedMs / 2);

    reportFigure(SCENARIO, 'CRs', CRS);
    reportFigure(SCENARIO, 'soak duration', Math.round(soakedMs), 'ms');
    reportFigure(SCENARIO, 'spec edits', counts.edits);
    reportFigure(SCENARIO, 'child deletions', counts.childDeletions);
    reportFigure(SCENARIO, 'drift writes', counts.drifts);
    reportFigure(SCENARIO, 'kube-apiserver restarts', counts.restarts);
    reportFigure(SCENARIO, 'actions refused (API server down)', counts.failedActions);
    reportFigure(SCENARIO, 'end of soak to every edit observed', Math.round(settleMs), 'ms');
    reportClaim(SCENARIO, 'lost updates or stuck CRs', stuck.length);
    reportClaim(SCENARIO, 'regenerated once Secrets', regenerated.length);
    reportFigure(SCENARIO, 'operator RSS at start', Math.round(memory[0]?.[1] ?? 0), 'MiB');
    reportFigure(SCENARIO, 'operator RSS at end', Math.round(memory[memory.length - 1]?.[1] ?? 0), 'MiB');
    reportFigure(SCENARIO, 'operator RSS samples (second half)', secondHalf.length);
    reportFigure(SCENARIO, 'operator RSS slope, second half', slopePerMinute(secondHalf), 'MiB/min');

    expect(counts.edits).toBeGreaterThan(0);
    expect(counts.restarts).toBeGreaterThanOrEqual(Math.floor((DURATION_MS - DOWN_MS) / RESTART_EVERY_MS));
    expect(stuck.slice(0, 10)).toEqual([]);
    expect(regenerated).toEqual([]);
    expect(running.running()).toBe(true);
  });
});

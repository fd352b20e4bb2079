/**
 * The operator SIGKILLed 20 times during reconciles: each cycle starts `ork run` (a real process,
 * leader election off), waits until it is ready, changes the fleet (creates, spec changes,
 * deletions, so finalizers and `once` Secrets are in play), and SIGKILLs it 0–100 ms after its
 * first reconcile of that batch. A last operator then runs undisturbed. Required: every CR converges, every deleted CR is
 * gone (0 leaked finalizers), and no `once` Secret was ever regenerated (same UID and value
 * whenever seen). Figures: cycles, kills that hit in-flight work, time to converge afterwards.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useControlPlane } from '@orkestra/testenv/vitest';
import { afterAll, describe, expect, it } from 'vitest';
import { chaosKatalogText, shopApi } from '../src/chaos-katalog.js';
import { crClient, installCrd, uniqueSuffix } from '../src/custom-resources.js';
import { reportClaim, reportFigure } from '../src/figures.js';
import { readFleet } from '../src/fleet.js';
import type { SecretIdentity } from '../src/fleet.js';
import { spawnOperator } from '../src/operator-process.js';
import type { OperatorProcess } from '../src/operator-process.js';
import { seededRandom } from '../src/seeded-random.js';
import { sleep, waitFor } from '../src/wait-for.js';

const SCENARIO = 'operator-sigkill';
const KILLS = 20;
const INITIAL_CRS = 20;
const SEED = 1130;

const env = useControlPlane();
const dir = mkdtempSync(join(tmpdir(), 'orkestra-chaos-kill-'));
const cleanups: (() => Promise<void>)[] = [];
let current: OperatorProcess | undefined;

afterAll(async () => {
  current?.kill('SIGKILL');
  await current?.exited;
  for (const cleanup of cleanups.reverse()) await cleanup();
  rmSync(dir, { recursive: true, force: true });
});

describe('the operator SIGKILLed during reconciles', () => {
  it(`converges after ${KILLS} kills with 0 regenerated once Secrets and 0 leaked finalizers`, async () => {
    const random = seededRandom(SEED);
    const api = shopApi(`kill${uniqueSuffix()}.example.com`);
    cleanups.push(await installCrd(env.kubeConfig, api));
    const katalogPath = join(dir, 'katalog.yaml');
    writeFileSync(katalogPath, chaosKatalogText({ name: 'chaos-kill', group: api.group }));
    const crs = crClient(env.kubeConfig, api);
    const ns = env.namespace;
    const start = (): OperatorProcess =>
      spawnOperator({
        katalogPath,
        kubeconfigPath: env.kubeconfigPath,
        namespace: ns,
        args: ['--leader-elect=false'],
        echo: process.env['ORKESTRA_CHAOS_LOG'] != null,
      });

    // Every Secret ever seen, by name: a once Secret must keep its UID and value.
    const firstSeen = new Map<string, SecretIdentity>();
    const regenerated = new Set<string>();
    const observe = (secrets: ReadonlyMap<string, SecretIdentity>): void => {
      for (const [name, identity] of secrets) {
        const first = firstSeen.get(name);
        if (first == null) firstSeen.set(name, identity);
        else if (first.uid !== identity.uid || first.value !== identity.value) regenerated.add(name);
      }
    };

    let next = 0;
    const live: string[] = [];
    const deleted: string[] = [];
    const create = async (): Promise<void> => {
      const name = `shop-${next++}`;
      await crs.create(ns, name, { greeting: `hello ${name}` });
      live.push(name);
    };
    for (let i = 0; i < INITIAL_CRS; i++) await create();

    let readyMsTotal = 0;
    let busyKills = 0;
    let patches = 0;
    for (let cycle = 0; cycle < KILLS; cycle++) {
      const spawnedAt = performance.now();
      current = start();
      const operator = current;
      await waitFor('the operator ready', () => operator.logs().some((l) => l.msg === 'operator ready'), {
        timeoutMs: 120_000,
        intervalMs: 20,
      });
      readyMsTotal += performance.now() - spawnedAt;
      // Work for this operator: three new CRs, ten spec changes, two deletions, sent together.
      const reconciledBefore = operator.logs().filter((l) => l.msg === 'reconciled').length;
      const victims = [0, 1].flatMap(() => live.splice(Math.floor(random() * live.length), 1));
      const work: Promise<void>[] = [create(), create(), create()];
      for (let i = 0; i < 10; i++) {
        const name = live[Math.floor(random() * live.length)];
        if (name == null) continue;
        work.push(crs.patchSpec(ns, name, { greeting: `cycle ${cycle} ${name}` }));
        patches++;
      }
      for (const victim of victims) {
        work.push(crs.remove(ns, victim));
        deleted.push(victim);
      }
      await Promise.all(work);
      // Kill while it works: after its first write for this batch, plus 0–100 ms.
      await waitFor(
        'a reconcile of this batch',
        () => operator.logs().filter((l) => l.msg === 'reconciled').length > reconciledBefore,
        { timeoutMs: 60_000, intervalMs: 5 },
      );
      await sleep(Math.floor(random() * 100));
      operator.kill('SIGKILL');
      const exit = await operator.exited;
      expect(exit.signal).toBe('SIGKILL');
      // Nothing changes after the kill: what is pending now was cut off by it.
      const atKill = await readFleet(env.kubeConfig, api, ns);
      if (atKill.pending.length > 0 || atKill.deleting.length > 0) busyKills++;
      observe(atKill.secrets);
    }

    // A last operator, left alone: everything must converge.
    current = start();
    const operator = current;
    const convergeMs = await waitFor(
      'every CR converged and every deleted CR gone',
      async () => {
        const fleet = await readFleet(env.kubeConfig, api, ns);
        observe(fleet.secrets);
        const names = new Set(fleet.crs.map((cr) => cr.metadata.name));
        return (
          fleet.pending.length === 0 && fleet.deleting.length === 0 && deleted.every((d) => !names.has(d))
        );
      },
      { timeoutMs: 300_000, intervalMs: 250 },
    );
    const fleet = await readFleet(env.kubeConfig, api, ns);
    expect(deleted.length).toBeGreaterThan(0);
    const leakedFinalizers = fleet.crs.filter((cr) => deleted.includes(cr.metadata.name)).length;
    expect(fleet.crs.map((cr) => cr.metadata.name).sort()).toEqual([...live].sort());
    expect(fleet.pending).toEqual([]);
    expect(leakedFinalizers).toBe(0);
    expect([...regenerated]).toEqual([]);
    expect(operator.running()).toBe(true);

    reportFigure(SCENARIO, 'SIGKILLs', KILLS);
    reportFigure(SCENARIO, 'kills that left work unfinished (CRs pending or deleting)', busyKills);
    reportFigure(
      SCENARIO,
      'CRs created / spec changes / deletions',
      next,
      `/ ${patches} / ${deleted.length}`,
    );
    reportFigure(SCENARIO, 'mean spawn to operator ready', Math.round(readyMsTotal / KILLS), 'ms');
    reportFigure(SCENARIO, 'last spawn to everything converged', Math.round(convergeMs), 'ms');
    reportClaim(SCENARIO, 'regenerated once Secrets', regenerated.size);
    reportClaim(SCENARIO, 'leaked finalizers', leakedFinalizers);
  });
});

/**
 * A second writer fights over a field the Katalog owns (`data.greeting` of a Shop's ConfigMap): an
 * "intruder" controller force-applies its own value with field manager `intruder` whenever it sees
 * another value (it polls every 20 ms), for 10 s. With `forceConflict: true` the operator takes the
 * field back after each intrusion and never writes more than once per intrusion, and once the
 * drift limiter engages (after its burst) at most 0.5 ConfigMap writes/s; once the intruder
 * stops, the Katalog's value stays. With `forceConflict: false` the operator reports
 * `Ready=False ApplyConflict` naming the intruder and retries with exponential backoff. Figures:
 * writes per second of each side, and the operator's writes in a quiet window after the fight.
 */
import { CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { DRIFT_LIMIT_DEFAULTS, createKatalogRuntime } from '@orkestra/reconciler';
import type { KatalogRuntime } from '@orkestra/reconciler';
import { useControlPlane } from '@orkestra/testenv/vitest';
import { afterAll, describe, expect, it } from 'vitest';
import { captureLogger } from '../src/capture-logger.js';
import { chaosKatalogText, configMapName, loadKatalogText, shopApi } from '../src/chaos-katalog.js';
import { crClient, installCrd, isReadyAtGeneration, readyOf, uniqueSuffix } from '../src/custom-resources.js';
import { reportClaim, reportFigure } from '../src/figures.js';
import { countWrites, requestDelta, writesSettled } from '../src/request-delta.js';
import { sleep, waitFor } from '../src/wait-for.js';

const SCENARIO = 'field-fight';
const FIGHT_MS = 10_000;
const QUIET_MS = 5000;
/** No write for this long ends the fight's last reconcile; the limiter's backoff starts at 1 s. */
const SETTLE_MS = 1000;
const INTRUDER_POLL_MS = 20;
/**
 * The absolute bound of the fight: once the drift limiter engages (after its burst of
 * `maxCorrections`), the operator writes the ConfigMap at most this often. The limiter's backoff
 * (1 s doubling) gives ≈ 0.3/s in a 10 s fight; the ping-pong it replaced ran at 25–29 writes/s.
 */
const MAX_ENGAGED_WRITES_PER_S = 0.5;

const env = useControlPlane();
const runtimes: KatalogRuntime[] = [];
const cleanups: (() => Promise<void>)[] = [];

afterAll(async () => {
  for (const runtime of runtimes) await runtime.stop({ timeoutMs: 5000 });
  for (const cleanup of cleanups.reverse()) await cleanup();
});

function core(): CoreV1Api {
  return env.kubeConfig.makeApiClient(CoreV1Api);
}

async function greetingOf(name: string): Promise<string | undefined> {
  return (await core().readNamespacedConfigMap({ namespace: env.namespace, name })).data?.['greeting'];
}

/** intrude force-applies `greeting` as field manager `intruder`. */
async function intrude(name: string, greeting: string): Promise<void> {
  await core().patchNamespacedConfigMap(
    {
      namespace: env.namespace,
      name,
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { greeting } },
      fieldManager: 'intruder',
      force: true,
    },
    setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply),
  );
}

/** fight runs the intruder for FIGHT_MS and returns how many writes it made. */
async function fight(name: string, value: string): Promise<number> {
  let writes = 0;
  const until = performance.now() + FIGHT_MS;
  while (performance.now() < until) {
    if ((await greetingOf(name)) !== value) {
      await intrude(name, value);
      writes++;
    }
    await sleep(INTRUDER_POLL_MS);
  }
  return writes;
}

/** startShop runs a runtime for a fresh Shop CRD and one Shop, and waits until it converged. */
async function startShop(forceConflict: boolean): Promise<{
  runtime: KatalogRuntime;
  cm: string;
  get: () => ReturnType<ReturnType<typeof crClient>['get']>;
}> {
  const label = forceConflict ? 'forced' : 'polite';
  const api = shopApi(`fight${label}${uniqueSuffix()}.example.com`);
  cleanups.push(await installCrd(env.kubeConfig, api));
  const runtime = createKatalogRuntime({
    katalog: loadKatalogText(
      chaosKatalogText({ name: `chaos-fight-${label}`, group: api.group, forceConflict }),
    ),
    kubeConfig: env.kubeConfig,
    logger: captureLogger({ katalogName: `chaos-fight-${label}` }).logger,
    options: { namespace: env.namespace },
  });
  runtimes.push(runtime);
  await runtime.start();
  const crs = crClient(env.kubeConfig, api);
  await crs.create(env.namespace, label, { greeting: 'from the katalog' });
  const get = () => crs.get(env.namespace, label);
  await waitFor(`${label} Ready`, async () => isReadyAtGeneration(await get()));
  return { runtime, cm: configMapName(label), get };
}

describe('a second writer fighting over a field the Katalog owns', () => {
  it('forceConflict true: the operator takes the field back once per intrusion, no more, and keeps it afterwards', async () => {
    const { runtime, cm, get } = await startShop(true);
    const before = runtime.requestCounts();
    const intruderWrites = await fight(cm, 'from the intruder');
    const during = requestDelta(before, runtime.requestCounts());
    await waitFor('the Katalog value back', async () => (await greetingOf(cm)) === 'from the katalog');
    // The take-back's reconcile still writes what follows the apply (its Event, its status).
    await writesSettled(() => runtime.requestCounts(), SETTLE_MS);
    const afterFight = runtime.requestCounts();
    await sleep(QUIET_MS);
    const quiet = requestDelta(afterFight, runtime.requestCounts());

    const operatorApplies = countWrites(during, 'ConfigMap');
    expect(intruderWrites).toBeGreaterThan(0);
    // No amplification: at most one take-back per intrusion (plus the one after the last).
    expect(operatorApplies).toBeLessThanOrEqual(intruderWrites + 1);
    // The absolute bound: beyond the limiter's burst, at most MAX_ENGAGED_WRITES_PER_S.
    const engagedRate =
      Math.max(0, operatorApplies - DRIFT_LIMIT_DEFAULTS.maxCorrections) / (FIGHT_MS / 1000);
    expect(engagedRate).toBeLessThanOrEqual(MAX_ENGAGED_WRITES_PER_S);
    expect(countWrites(quiet)).toBe(0);
    expect(await greetingOf(cm)).toBe('from the katalog');
    expect(isReadyAtGeneration(await get())).toBe(true);

    reportFigure(SCENARIO, 'forceConflict=true: intruder writes/s', intruderWrites / (FIGHT_MS / 1000), '/s');
    reportFigure(
      SCENARIO,
      'forceConflict=true: operator ConfigMap writes/s',
      operatorApplies / (FIGHT_MS / 1000),
      '/s',
    );
    reportFigure(
      SCENARIO,
      'forceConflict=true: operator ConfigMap writes/s once the limiter engaged',
      Math.max(0, operatorApplies - DRIFT_LIMIT_DEFAULTS.maxCorrections) / (FIGHT_MS / 1000),
      '/s',
    );
    reportFigure(
      SCENARIO,
      'forceConflict=true: operator writes of any kind during the fight',
      countWrites(during),
    );
    reportClaim(
      SCENARIO,
      `forceConflict=true: operator writes in the ${QUIET_MS} ms after`,
      countWrites(quiet),
    );
  });

  it('forceConflict false: Ready=False ApplyConflict naming the intruder, retries back off, the intruder keeps the field', async () => {
    const { runtime, cm, get } = await startShop(false);
    const before = runtime.requestCounts();
    const intruderWrites = await fight(cm, 'from the intruder');
    const during = requestDelta(before, runtime.requestCounts());
    await waitFor('ApplyConflict', async () => readyOf(await get())?.reason === 'ApplyConflict');
    const afterFight = runtime.requestCounts();
    await sleep(QUIET_MS);
    const quiet = requestDelta(afterFight, runtime.requestCounts());

    const ready = readyOf(await get());
    expect(ready?.status).toBe('False');
    expect(ready?.message).toContain('intruder');
    expect(await greetingOf(cm)).toBe('from the intruder');
    const attempts = countWrites(during, 'ConfigMap');
    // Each attempt follows an intrusion (a watch event) or a backoff step (5 ms doubling).
    expect(attempts).toBeLessThanOrEqual(intruderWrites + Math.ceil(Math.log2(FIGHT_MS / 5)) + 1);
    // With nobody else writing, retries back off: at most one per doubling step of the window.
    const quietAttempts = countWrites(quiet, 'ConfigMap');
    expect(quietAttempts).toBeLessThanOrEqual(Math.ceil(Math.log2(QUIET_MS / 5)) + 1);

    reportFigure(
      SCENARIO,
      'forceConflict=false: intruder writes/s',
      intruderWrites / (FIGHT_MS / 1000),
      '/s',
    );
    reportFigure(
      SCENARIO,
      'forceConflict=false: operator apply attempts/s',
      attempts / (FIGHT_MS / 1000),
      '/s',
    );
    reportFigure(
      SCENARIO,
      'forceConflict=false: status and other writes during the fight',
      countWrites(during) - attempts,
    );
    reportFigure(
      SCENARIO,
      `forceConflict=false: operator apply attempts in the ${QUIET_MS} ms after`,
      quietAttempts,
    );
  });
});

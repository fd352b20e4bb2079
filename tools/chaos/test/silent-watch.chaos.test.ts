/**
 * A silent watch: the operator reaches the API server through a TCP proxy that stops forwarding on
 * every open connection without closing it (a dead NAT entry). Changes made meanwhile must still
 * arrive: the watchdog relists. The watchdog runs at the production setting (`ork run`'s default
 * `--watch-idle-timeout`, 5 min), and a second, healthy runtime that sees no events at all for
 * 6.5 minutes (the timeout + 90 s) must never trip it (the API server's bookmarks, about one a minute, keep an idle watch
 * alive), so the watchdog is neither too slow to fire nor so eager that it fires on healthy watches.
 * Figures: freeze to the first watchdog relist (detection), freeze to every CR converged, and the
 * healthy runtime's watchdog relists.
 */
import { parseRunConfig } from '@orkestra/operator';
import { createKatalogRuntime } from '@orkestra/reconciler';
import type { KatalogRuntime } from '@orkestra/reconciler';
import { proxiedKubeConfig, startFreezableProxy } from '@orkestra/testenv';
import type { FreezableProxy } from '@orkestra/testenv';
import { useControlPlane } from '@orkestra/testenv/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureLogger } from '../src/capture-logger.js';
import { chaosKatalogText, loadKatalogText, shopApi } from '../src/chaos-katalog.js';
import { crClient, installCrd, uniqueSuffix } from '../src/custom-resources.js';
import { reportClaim, reportFigure } from '../src/figures.js';
import { readFleet, regeneratedSecrets } from '../src/fleet.js';
import { sleep, waitFor } from '../src/wait-for.js';

const SCENARIO = 'silent-watch';
const CRS = 10;
/** productionWatchIdleTimeoutMs is `ork run`'s default `--watch-idle-timeout`. */
function productionWatchIdleTimeoutMs(): number {
  const parsed = parseRunConfig(['--katalog', 'katalog.yaml'], { env: {} });
  if (!parsed.ok) throw new Error(`ork run defaults: ${parsed.errors.join('; ')}`);
  return parsed.config.watchIdleTimeoutMs;
}
const WATCH_IDLE_TIMEOUT_MS = productionWatchIdleTimeoutMs();
/**
 * How long the healthy runtime must stay idle without a watchdog relist: the production idle
 * timeout plus 90 s, so a watch kept alive by nothing but bookmarks (about one a minute) would
 * have tripped the watchdog well inside the window. It overlaps the silent-watch scenario (which
 * itself waits about one timeout), so the file takes about this long. ORKESTRA_CHAOS_IDLE_WATCH_MS
 * overrides it (local runs only).
 */
const IDLE_MS = Number(process.env['ORKESTRA_CHAOS_IDLE_WATCH_MS'] ?? WATCH_IDLE_TIMEOUT_MS + 90_000);
/** Detection may take the idle timeout (counted from the last event, before the freeze) plus this. */
const DETECTION_SLACK_MS = 15_000;
const RECONCILE_TIMEOUT_MS = 15_000;

const env = useControlPlane();
let proxy: FreezableProxy | undefined;
const runtimes: KatalogRuntime[] = [];
const cleanups: (() => Promise<void>)[] = [];
/** The healthy, idle runtime (no proxy, no changes), started before the silent-watch scenario. */
let idle: { runtime: KatalogRuntime; startedAt: number } | undefined;

afterAll(async () => {
  for (const runtime of runtimes) await runtime.stop({ timeoutMs: 5000 });
  await proxy?.stop();
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** watchdogRelists sums the watchdog relists of a runtime's primary and child informers. */
function watchdogRelists(runtime: KatalogRuntime): { primary: number; children: number } {
  const primary = [...runtime.entries.values()].reduce((n, e) => n + e.informer.stats().relists.watchdog, 0);
  const children = [...runtime.children.informers.values()].reduce(
    (n, i) => n + i.stats().relists.watchdog,
    0,
  );
  return { primary, children };
}

beforeAll(async () => {
  // The healthy runtime: its own CRD and CRs, converged, then left alone.
  const api = shopApi(`idle${uniqueSuffix()}.example.com`);
  cleanups.push(await installCrd(env.kubeConfig, api));
  const runtime = createKatalogRuntime({
    katalog: loadKatalogText(chaosKatalogText({ name: 'chaos-idle', group: api.group })),
    kubeConfig: env.kubeConfig,
    logger: captureLogger({ katalogName: 'chaos-idle' }).logger,
    options: { namespace: env.namespace, watchIdleTimeoutMs: WATCH_IDLE_TIMEOUT_MS },
  });
  runtimes.push(runtime);
  await runtime.start();
  const crs = crClient(env.kubeConfig, api);
  await Promise.all([0, 1].map((i) => crs.create(env.namespace, `idle-${i}`, { greeting: 'idle' })));
  await waitFor(
    'the idle runtime converged',
    async () => (await readFleet(env.kubeConfig, api, env.namespace)).pending.length === 0,
  );
  idle = { runtime, startedAt: performance.now() };
});

describe('a silent watch', () => {
  it('is detected by the watchdog, which relists; every change made meanwhile converges', async () => {
    const api = shopApi(`silent${uniqueSuffix()}.example.com`);
    const namespace = env.namespace;
    cleanups.push(await installCrd(env.kubeConfig, api));
    const upstream = new URL(env.server);
    proxy = await startFreezableProxy({ host: upstream.hostname, port: Number(upstream.port) });
    const log = captureLogger({ katalogName: 'chaos-silent' });
    const runtime = createKatalogRuntime({
      katalog: loadKatalogText(chaosKatalogText({ name: 'chaos-silent', group: api.group })),
      kubeConfig: proxiedKubeConfig(env.kubeConfig, proxy.port),
      logger: log.logger,
      options: {
        namespace,
        watchIdleTimeoutMs: WATCH_IDLE_TIMEOUT_MS,
        // Not the watchdog: bounds a reconcile whose request went out on a frozen keep-alive socket.
        reconcileTimeoutMs: RECONCILE_TIMEOUT_MS,
      },
    });
    runtimes.push(runtime);
    await runtime.start();
    const crs = crClient(env.kubeConfig, api);
    const names = Array.from({ length: CRS }, (_, i) => `shop-${i}`);
    await Promise.all(names.map((name) => crs.create(namespace, name, { greeting: `hello ${name}` })));
    await waitFor(
      'every CR converged before the freeze',
      async () => (await readFleet(env.kubeConfig, api, namespace)).pending.length === 0,
    );
    const before = await readFleet(env.kubeConfig, api, namespace);
    const informer = runtime.entries.get('shop')?.informer;
    if (informer == null) throw new Error('no shop entry');

    const frozen = proxy.freeze();
    const frozenAt = performance.now();
    // Changed by someone else (admin, not through the proxy) while the operator's watch is silent.
    await Promise.all(names.map((name) => crs.patchSpec(namespace, name, { greeting: `changed ${name}` })));
    await waitFor('the watchdog relist', () => informer.stats().relists.watchdog >= 1, {
      timeoutMs: WATCH_IDLE_TIMEOUT_MS + DETECTION_SLACK_MS,
      intervalMs: 20,
    });
    const detectionMs = performance.now() - frozenAt;
    await waitFor(
      'every CR converged on the changed specs',
      async () => (await readFleet(env.kubeConfig, api, namespace)).pending.length === 0,
      { timeoutMs: 180_000, intervalMs: 250 },
    );
    const convergedMs = performance.now() - frozenAt;
    const after = await readFleet(env.kubeConfig, api, namespace);
    expect(after.pending).toEqual([]);
    expect(after.crs).toHaveLength(CRS);
    expect(after.crs.every((cr) => String(cr.spec?.['greeting']).startsWith('changed'))).toBe(true);
    expect(regeneratedSecrets(before.secrets, after.secrets)).toEqual([]);
    expect(informer.stats().relists.watchdog).toBeGreaterThanOrEqual(1);

    const childRelists = watchdogRelists(runtime).children;
    reportFigure(SCENARIO, 'connections frozen', frozen);
    reportFigure(SCENARIO, 'watch idle timeout', WATCH_IDLE_TIMEOUT_MS, 'ms');
    reportFigure(SCENARIO, 'detection: freeze to first watchdog relist', Math.round(detectionMs), 'ms');
    reportFigure(SCENARIO, 'freeze to every changed CR converged', Math.round(convergedMs), 'ms');
    reportFigure(SCENARIO, 'primary watchdog relists', informer.stats().relists.watchdog);
    reportFigure(SCENARIO, 'child-informer watchdog relists', childRelists);
    reportFigure(SCENARIO, 'warning log lines', log.countAtLevel('warn'));
    expect(detectionMs).toBeLessThanOrEqual(WATCH_IDLE_TIMEOUT_MS + DETECTION_SLACK_MS);
  });

  it(`a healthy idle watch never trips the production watchdog (${IDLE_MS / 60_000} min idle)`, async () => {
    if (idle == null) throw new Error('no idle runtime');
    const { runtime, startedAt } = idle;
    // The whole window: the silent-watch scenario above ran meanwhile; sleep out the rest.
    while (performance.now() - startedAt < IDLE_MS)
      await sleep(IDLE_MS - (performance.now() - startedAt) + 10);
    const idleForMs = performance.now() - startedAt;
    const relists = watchdogRelists(runtime);
    const informers = runtime.entries.size + runtime.children.informers.size;
    reportFigure(SCENARIO, 'healthy idle runtime: idle for', Math.round(idleForMs), 'ms');
    reportFigure(SCENARIO, 'healthy idle runtime: informers watched', informers);
    reportClaim(SCENARIO, 'healthy idle runtime: watchdog relists', relists.primary + relists.children);
    expect(informers).toBeGreaterThan(1);
    expect(relists).toEqual({ primary: 0, children: 0 });
    expect(idleForMs).toBeGreaterThanOrEqual(IDLE_MS);
  });
});

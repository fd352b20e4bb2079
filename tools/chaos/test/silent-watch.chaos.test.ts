/**
 * A silent watch: the operator reaches the API server through a TCP proxy that stops forwarding on
 * every open connection without closing it (a dead NAT entry). Changes made meanwhile must still
 * arrive: the watchdog (`watchIdleTimeoutMs`) relists. Figures: time from the freeze to the first
 * watchdog relist (detection) and to every CR converged on the changed specs.
 */
import { createKatalogRuntime } from '@orkestra/reconciler';
import type { KatalogRuntime } from '@orkestra/reconciler';
import { proxiedKubeConfig, startFreezableProxy } from '@orkestra/testenv';
import type { FreezableProxy } from '@orkestra/testenv';
import { useControlPlane } from '@orkestra/testenv/vitest';
import { afterAll, describe, expect, it } from 'vitest';
import { captureLogger } from '../src/capture-logger.js';
import { chaosKatalogText, loadKatalogText, shopApi } from '../src/chaos-katalog.js';
import { crClient, installCrd, uniqueSuffix } from '../src/custom-resources.js';
import { reportFigure } from '../src/figures.js';
import { readFleet, regeneratedSecrets } from '../src/fleet.js';
import { waitFor } from '../src/wait-for.js';

const SCENARIO = 'silent-watch';
const CRS = 10;
const WATCH_IDLE_TIMEOUT_MS = 5000;
const RECONCILE_TIMEOUT_MS = 15_000;

const env = useControlPlane();
let proxy: FreezableProxy | undefined;
let runtime: KatalogRuntime | undefined;
const cleanups: (() => Promise<void>)[] = [];

afterAll(async () => {
  await runtime?.stop({ timeoutMs: 5000 });
  await proxy?.stop();
  for (const cleanup of cleanups.reverse()) await cleanup();
});

describe('a silent watch', () => {
  it('is detected by the watchdog, which relists; every change made meanwhile converges', async () => {
    const api = shopApi(`silent${uniqueSuffix()}.example.com`);
    const namespace = env.namespace;
    cleanups.push(await installCrd(env.kubeConfig, api));
    const upstream = new URL(env.server);
    proxy = await startFreezableProxy({ host: upstream.hostname, port: Number(upstream.port) });
    const log = captureLogger({ katalogName: 'chaos-silent' });
    runtime = createKatalogRuntime({
      katalog: loadKatalogText(chaosKatalogText({ name: 'chaos-silent', group: api.group })),
      kubeConfig: proxiedKubeConfig(env.kubeConfig, proxy.port),
      logger: log.logger,
      options: {
        namespace,
        watchIdleTimeoutMs: WATCH_IDLE_TIMEOUT_MS,
        reconcileTimeoutMs: RECONCILE_TIMEOUT_MS,
      },
    });
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
    const detectionMs = await waitFor('the watchdog relist', () => informer.stats().relists.watchdog >= 1, {
      timeoutMs: 120_000,
      intervalMs: 20,
    });
    await waitFor(
      'every CR converged on the changed specs',
      async () => (await readFleet(env.kubeConfig, api, namespace)).pending.length === 0,
      { timeoutMs: 180_000, intervalMs: 250 },
    );
    const convergedMs = performance.now() - frozenAt;
    const after = await readFleet(env.kubeConfig, api, namespace);
    expect(after.pending).toEqual([]);
    expect(after.crs.every((cr) => String(cr.spec?.['greeting']).startsWith('changed'))).toBe(true);
    expect(regeneratedSecrets(before.secrets, after.secrets)).toEqual([]);
    expect(informer.stats().relists.watchdog).toBeGreaterThanOrEqual(1);

    const childRelists = [...runtime.children.informers.values()].reduce(
      (sum, i) => sum + i.stats().relists.watchdog,
      0,
    );
    reportFigure(SCENARIO, 'connections frozen', frozen);
    reportFigure(SCENARIO, 'watch idle timeout', WATCH_IDLE_TIMEOUT_MS, 'ms');
    reportFigure(SCENARIO, 'detection: freeze to first watchdog relist', Math.round(detectionMs), 'ms');
    reportFigure(SCENARIO, 'freeze to every changed CR converged', Math.round(convergedMs), 'ms');
    reportFigure(SCENARIO, 'primary watchdog relists', informer.stats().relists.watchdog);
    reportFigure(SCENARIO, 'child-informer watchdog relists', childRelists);
    reportFigure(SCENARIO, 'warning log lines', log.countAtLevel('warn'));
  });
});

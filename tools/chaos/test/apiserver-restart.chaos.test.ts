/**
 * kube-apiserver stopped and restarted mid-run: the runtime keeps running while the API server is
 * gone (reconciles fail and back off, watches break and back off), and once it returns every CR
 * converges, no `once` Secret is regenerated, and later changes still arrive through the watches.
 * Figures: time from /readyz back to every CR converged, and from a post-restart spec change to
 * every CR converged again.
 */
import { createKatalogRuntime } from '@orkestra/reconciler';
import type { KatalogRuntime } from '@orkestra/reconciler';
import { startControlPlane } from '@orkestra/testenv';
import type { ControlPlane } from '@orkestra/testenv';
import { useControlPlane } from '@orkestra/testenv/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureLogger } from '../src/capture-logger.js';
import { chaosKatalogText, loadKatalogText, shopApi } from '../src/chaos-katalog.js';
import { createNamespace, crClient, installCrd, uniqueSuffix } from '../src/custom-resources.js';
import { reportClaim, reportFigure } from '../src/figures.js';
import { readFleet, regeneratedSecrets } from '../src/fleet.js';
import { sleep, waitFor } from '../src/wait-for.js';

const SCENARIO = 'apiserver-restart';
const CRS = 40;
const DOWN_MS = 5000;

// Skips (locally) or fails (CI) like every testenv suite when the binaries are missing.
useControlPlane();

let cp: ControlPlane | undefined;
let runtime: KatalogRuntime | undefined;

beforeAll(async () => {
  // A private control plane: restarting the shared one would disturb other suites.
  cp = await startControlPlane({ controllerManager: false });
});

afterAll(async () => {
  await runtime?.stop({ timeoutMs: 5000 });
  await cp?.stop();
});

describe('kube-apiserver stopped and restarted mid-run', () => {
  it('converges every CR after it returns, regenerates no once Secret, and keeps watching', async () => {
    if (cp == null) throw new Error('no control plane');
    const plane = cp;
    const suffix = uniqueSuffix();
    const api = shopApi(`restart${suffix}.example.com`);
    const namespace = `chaos-restart-${suffix}`;
    await installCrd(plane.kubeConfig, api);
    await createNamespace(plane.kubeConfig, namespace);
    const log = captureLogger({ katalogName: 'chaos-restart' });
    runtime = createKatalogRuntime({
      katalog: loadKatalogText(chaosKatalogText({ name: 'chaos-restart', group: api.group })),
      kubeConfig: plane.kubeConfig,
      logger: log.logger,
      options: { namespace },
    });
    await runtime.start();
    const crs = crClient(plane.kubeConfig, api);

    // Create every CR, wait until every once Secret exists (so the restart has something to
    // regenerate), then take the API server away while the rest of the reconciles are in flight.
    const names = Array.from({ length: CRS }, (_, i) => `shop-${i}`);
    await Promise.all(names.map((name) => crs.create(namespace, name, { greeting: `hello ${name}` })));
    await waitFor(
      'every once Secret to exist before the restart',
      async () => (await readFleet(plane.kubeConfig, api, namespace)).secrets.size === CRS,
      { timeoutMs: 120_000, intervalMs: 100 },
    );
    const atStop = await readFleet(plane.kubeConfig, api, namespace);
    expect(atStop.secrets.size).toBe(CRS);
    await plane.stopApiServer();
    await sleep(DOWN_MS);
    const restartStarted = performance.now();
    await plane.startApiServer();
    const apiserverStartMs = performance.now() - restartStarted;

    const recoveryMs = await waitFor(
      'every CR converged after the restart',
      async () => (await readFleet(plane.kubeConfig, api, namespace)).pending.length === 0,
      { timeoutMs: 300_000, intervalMs: 250 },
    );
    const converged = await readFleet(plane.kubeConfig, api, namespace);
    expect(converged.crs).toHaveLength(CRS);
    expect(converged.pending).toEqual([]);
    expect(regeneratedSecrets(atStop.secrets, converged.secrets)).toEqual([]);

    // The watches are back: a change made now reaches every CR's ConfigMap.
    await Promise.all(names.map((name) => crs.patchSpec(namespace, name, { greeting: `again ${name}` })));
    const propagationMs = await waitFor(
      'every CR converged after a post-restart change',
      async () => (await readFleet(plane.kubeConfig, api, namespace)).pending.length === 0,
      { timeoutMs: 300_000, intervalMs: 250 },
    );
    const after = await readFleet(plane.kubeConfig, api, namespace);
    expect(regeneratedSecrets(converged.secrets, after.secrets)).toEqual([]);

    const relists = runtime.entries.get('shop')?.informer.stats().relists;
    reportFigure(SCENARIO, 'CRs', CRS);
    reportFigure(SCENARIO, 'CRs converged when the API server stopped', CRS - atStop.pending.length);
    reportFigure(SCENARIO, 'API server down (stopped to start begun)', DOWN_MS, 'ms');
    reportFigure(SCENARIO, 'API server start to /readyz', Math.round(apiserverStartMs), 'ms');
    reportFigure(SCENARIO, 'recovery: /readyz to every CR converged', Math.round(recoveryMs), 'ms');
    reportFigure(SCENARIO, 'post-restart change to every CR converged', Math.round(propagationMs), 'ms');
    reportFigure(SCENARIO, 'primary informer relists (error)', relists?.error ?? 0);
    reportClaim(
      SCENARIO,
      'regenerated once Secrets',
      regeneratedSecrets(atStop.secrets, after.secrets).length,
    );
    reportFigure(SCENARIO, 'warning log lines', log.countAtLevel('warn'));
  });
});

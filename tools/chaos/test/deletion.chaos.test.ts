/**
 * Deterministic deletion on a just-installed CRD: each round installs a fresh Shop CRD, starts a
 * runtime, creates CRs, and deletes them right away once they converged, before the garbage
 * collector has discovered the new kind. The runtime's finalizer deletes every child of the
 * inventory explicitly and is released only once they are gone, so the property asserted is: the
 * moment a CR is seen gone, its children are gone too. Figures: delete → children gone and
 * delete → CR gone, p50 / p99 / range over every CR of every round.
 */
import { CoreV1Api } from '@kubernetes/client-node';
import { createKatalogRuntime } from '@orkestra/reconciler';
import type { KatalogRuntime } from '@orkestra/reconciler';
import { useControlPlane } from '@orkestra/testenv/vitest';
import { afterAll, describe, expect, it } from 'vitest';
import { captureLogger } from '../src/capture-logger.js';
import {
  chaosKatalogText,
  configMapName,
  loadKatalogText,
  secretName,
  shopApi,
} from '../src/chaos-katalog.js';
import { crClient, installCrd, isNotFound, uniqueSuffix } from '../src/custom-resources.js';
import { quantilesOf, reportClaim, reportFigure } from '../src/figures.js';
import { readFleet } from '../src/fleet.js';
import { sleep, waitFor } from '../src/wait-for.js';

const SCENARIO = 'deletion';
const ROUNDS = Number(process.env['ORKESTRA_CHAOS_DELETION_ROUNDS'] ?? 6);
const CRS_PER_ROUND = 5;
const POLL_MS = 10;

const env = useControlPlane();
const runtimes: KatalogRuntime[] = [];
const cleanups: (() => Promise<void>)[] = [];

afterAll(async () => {
  for (const runtime of runtimes) await runtime.stop({ timeoutMs: 5000 });
  for (const cleanup of cleanups.reverse()) await cleanup();
});

describe('deleting a CR of a just-installed CRD', () => {
  it('removes its children before the CR is gone, whatever the garbage collector knows', async () => {
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    const present = async (read: () => Promise<unknown>): Promise<boolean> => {
      try {
        await read();
        return true;
      } catch (error) {
        if (isNotFound(error)) return false;
        throw error;
      }
    };
    const childrenLeft = async (ns: string, shop: string): Promise<string[]> => {
      const left: string[] = [];
      if (await present(() => core.readNamespacedConfigMap({ namespace: ns, name: configMapName(shop) })))
        left.push(`ConfigMap ${configMapName(shop)}`);
      if (await present(() => core.readNamespacedSecret({ namespace: ns, name: secretName(shop) })))
        left.push(`Secret ${secretName(shop)}`);
      return left;
    };
    const toChildrenGone: number[] = [];
    const toCrGone: number[] = [];
    const lingering: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const api = shopApi(`del${uniqueSuffix()}.example.com`);
      cleanups.push(await installCrd(env.kubeConfig, api));
      const runtime = createKatalogRuntime({
        katalog: loadKatalogText(chaosKatalogText({ name: `chaos-del-${round}`, group: api.group })),
        kubeConfig: env.kubeConfig,
        logger: captureLogger({ katalogName: `chaos-del-${round}` }).logger,
        options: { namespace: env.namespace },
      });
      runtimes.push(runtime);
      await runtime.start();
      const crs = crClient(env.kubeConfig, api);
      const names = Array.from({ length: CRS_PER_ROUND }, (_, i) => `del-${round}-${i}`);
      await Promise.all(names.map((name) => crs.create(env.namespace, name, { greeting: 'bye' })));
      await waitFor(
        'every CR converged',
        async () => (await readFleet(env.kubeConfig, api, env.namespace)).pending.length === 0,
      );
      expect((await readFleet(env.kubeConfig, api, env.namespace)).crs).toHaveLength(CRS_PER_ROUND);
      await Promise.all(
        names.map(async (name) => {
          expect(await childrenLeft(env.namespace, name)).toHaveLength(2);
          const deletedAt = performance.now();
          await crs.remove(env.namespace, name);
          let childrenGoneAt: number | undefined;
          for (;;) {
            const crThere = await crs.exists(env.namespace, name);
            // Read right after the CR was seen gone: its children must be gone already.
            const left = await childrenLeft(env.namespace, name);
            if (left.length === 0) childrenGoneAt ??= performance.now();
            if (!crThere) {
              toCrGone.push(performance.now() - deletedAt);
              if (left.length > 0) {
                lingering.push(`${name}: ${left.join(', ')}`);
                // Keep measuring how long the garbage collector takes, for the report.
                await waitFor(
                  'children collected',
                  async () => (await childrenLeft(env.namespace, name)).length === 0,
                  {
                    timeoutMs: 180_000,
                    intervalMs: 100,
                  },
                );
                childrenGoneAt = performance.now();
              }
              break;
            }
            await sleep(POLL_MS);
          }
          toChildrenGone.push((childrenGoneAt ?? performance.now()) - deletedAt);
        }),
      );
      await runtime.stop({ timeoutMs: 5000 });
    }
    expect(toChildrenGone).toHaveLength(ROUNDS * CRS_PER_ROUND);
    const children = quantilesOf(toChildrenGone);
    const cr = quantilesOf(toCrGone);
    reportFigure(SCENARIO, 'CRs deleted (fresh CRD per round)', children.n);
    reportFigure(SCENARIO, 'delete to children gone: p50', Math.round(children.p50), 'ms');
    reportFigure(SCENARIO, 'delete to children gone: p99', Math.round(children.p99), 'ms');
    reportFigure(SCENARIO, 'delete to children gone: min', Math.round(children.min), 'ms');
    reportFigure(SCENARIO, 'delete to children gone: max', Math.round(children.max), 'ms');
    reportFigure(SCENARIO, 'delete to CR gone: p50', Math.round(cr.p50), 'ms');
    reportFigure(SCENARIO, 'delete to CR gone: p99', Math.round(cr.p99), 'ms');
    reportClaim(SCENARIO, 'CRs gone while children lingered', lingering.length);
    expect(lingering).toEqual([]);
  });
});

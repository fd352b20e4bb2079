/**
 * How long a new leader's sharder takes to start cold (docs/reference/runtime.md §25.4): from
 * `Sharder.start()` to its CR metadata informer (a `PartialObjectMetadata` list) and its shard
 * Lease watch having synced, against the local control plane, at each size in
 * ORKESTRA_SHARDER_LIST_SIZES (for example `100,1000`), ORKESTRA_SHARDER_LIST_ROUNDS rounds each
 * (default 5, sizes interleaved). Also the heap the warm cache holds per CR: the heap with the
 * sharder started less the heap before it was made (run with NODE_OPTIONS=--expose-gc for it;
 * noisy below 1,000 CRs). Opt-in: it creates up to thousands of CRs.
 *
 *   cd apps/operator && ORKESTRA_SHARDER_LIST_SIZES=100,1000 NODE_OPTIONS=--expose-gc \
 *     pnpm exec vitest run --project '@orkestra/operator:integration' test/sharder-cold-list.integration.test.ts
 */
import { randomBytes } from 'node:crypto';
import { KubeListWatchClient } from '@orkestra/reconciler';
import { crClient, installCrd } from '@orkestra/testenv';
import { useControlPlane } from '@orkestra/testenv/vitest';
import { afterAll, describe, expect, it } from 'vitest';
import { Sharder } from '../src/sharding/sharder.js';

const SIZES = (process.env['ORKESTRA_SHARDER_LIST_SIZES'] ?? '')
  .split(',')
  .filter((s) => s.trim() !== '')
  .map(Number);
const ROUNDS = Number(process.env['ORKESTRA_SHARDER_LIST_ROUNDS'] ?? 5);
const env = useControlPlane();
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const gc = (globalThis as { gc?: () => void }).gc;
function heapUsed(): number {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed;
}
const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};

describe.skipIf(SIZES.length === 0)('a new leader sharder, cold', () => {
  it('lists the CR metadata of every size and reports the time and the warm cache heap', async () => {
    const results = new Map<number, { group: string; ms: number[]; heapPerCr: number[] }>();
    for (const size of SIZES) {
      const type = {
        group: `cold${randomBytes(3).toString('hex')}.test.orkestra.io`,
        version: 'v1',
        kind: 'App',
        plural: 'apps',
      };
      cleanups.push(await installCrd(env.kubeConfig, type));
      const crs = crClient(env.kubeConfig, type);
      const names = Array.from({ length: size }, (_, i) => `app-${String(i).padStart(5, '0')}`);
      for (let i = 0; i < names.length; i += 16)
        await Promise.all(
          names
            .slice(i, i + 16)
            .map((name) => crs.create(env.namespace, name, { greeting: `hello ${name}` })),
        );
      results.set(size, { group: type.group, ms: [], heapPerCr: [] });
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (const [size, { group }] of results) {
        const before = heapUsed();
        const listWatch = new KubeListWatchClient({
          kubeConfig: env.kubeConfig,
          userAgent: 'sharder-cold-list',
          metadataOnly: true,
        });
        const sharder = new Sharder({
          client: {
            mergePatch: () => Promise.reject(new Error('no patch expected')),
            delete: () => Promise.resolve(),
            get: () => Promise.reject(new Error('no read expected')),
          },
          listWatch,
          leaseListWatch: new KubeListWatchClient({
            kubeConfig: env.kubeConfig,
            userAgent: 'sharder-cold-list',
          }),
          katalogName: `cold${size}`,
          leaseNamespace: env.namespace,
          resources: [{ group, version: 'v1', kind: 'App', plural: 'apps', namespaced: true }],
          namespace: env.namespace,
          tickMs: 60_000,
        });
        const started = performance.now();
        await sharder.start();
        const ms = performance.now() - started;
        expect(sharder.stats().objects).toBe(size);
        const warm = heapUsed();
        await sharder.stop();
        const figures = results.get(size);
        figures?.ms.push(ms);
        figures?.heapPerCr.push((warm - before) / size);
      }
    }
    for (const [size, { ms, heapPerCr }] of results) {
      console.log(
        `sharder cold start, ${size} CRs, ${ROUNDS} rounds: median ${median(ms).toFixed(0)} ms ` +
          `(range ${Math.min(...ms).toFixed(0)}–${Math.max(...ms).toFixed(0)} ms); warm cache heap ` +
          (gc == null
            ? 'not measured (no --expose-gc)'
            : `median ${median(heapPerCr).toFixed(0)} B per CR ` +
              `(range ${Math.min(...heapPerCr).toFixed(0)}–${Math.max(...heapPerCr).toFixed(0)})`),
      );
    }
  }, 1_800_000);
});

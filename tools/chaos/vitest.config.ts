/**
 * The chaos suite (`pnpm test:chaos`): `test/*.chaos.test.ts` against the local control plane,
 * one file at a time (the scenarios kill processes and measure recovery; they must not compete
 * for the 2 cores), with long timeouts. The root vitest config picks up only this package's unit
 * tests (`src/*.test.ts`), so the chaos suite never runs in `pnpm test`. Every run merges its
 * outcomes and `[chaos]` figures into docs/chaos-results.json (ORKESTRA_CHAOS_RESULTS overrides the
 * path; CI writes a fresh file and compares it with the documented one).
 */
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import { ChaosResultsReporter } from './src/chaos-results.js';

const repoRoot = join(import.meta.dirname, '../..');
const sourceCondition = ['@orkestra/source'];

export default defineConfig({
  test: {
    fileParallelism: false,
    reporters: [
      'default',
      new ChaosResultsReporter({
        path: process.env['ORKESTRA_CHAOS_RESULTS'] ?? join(repoRoot, 'docs/chaos-results.json'),
      }),
    ],
    projects: [
      {
        resolve: { conditions: sourceCondition },
        ssr: { resolve: { conditions: sourceCondition } },
        test: {
          name: '@orkestra/chaos:chaos',
          root: import.meta.dirname,
          include: ['test/**/*.chaos.test.ts'],
          restoreMocks: true,
          testTimeout: 600_000,
          hookTimeout: 300_000,
          fileParallelism: false,
          globalSetup: [join(repoRoot, 'packages/testenv/src/global-setup.ts')],
        },
      },
    ],
  },
});

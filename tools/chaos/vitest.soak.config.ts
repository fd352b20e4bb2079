/**
 * The soak (`pnpm test:soak`): `soak/*.soak.test.ts` against a private control plane. CI size by
 * default (a few minutes); `ORKESTRA_SOAK_SIZE=full` runs 1,000 CRs for 30 minutes. Every run
 * merges its outcome and figures into docs/soak-results.json (ORKESTRA_SOAK_RESULTS overrides the
 * path), from which docs/soak.md is generated (`pnpm chaos:report`).
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
        path: process.env['ORKESTRA_SOAK_RESULTS'] ?? join(repoRoot, 'docs/soak-results.json'),
      }),
    ],
    projects: [
      {
        resolve: { conditions: sourceCondition },
        ssr: { resolve: { conditions: sourceCondition } },
        test: {
          name: '@orkestra/chaos:soak',
          root: import.meta.dirname,
          include: ['soak/**/*.soak.test.ts'],
          restoreMocks: true,
          testTimeout: 4 * 60 * 60_000,
          hookTimeout: 300_000,
          globalSetup: [join(repoRoot, 'packages/testenv/src/global-setup.ts')],
        },
      },
    ],
  },
});

/**
 * The chaos suite (`pnpm test:chaos`): `test/*.chaos.test.ts` against the local control plane,
 * one file at a time (the scenarios kill processes and measure recovery; they must not compete
 * for the 2 cores), with long timeouts. The root vitest config picks up only this package's unit
 * tests (`src/*.test.ts`), so the chaos suite never runs in `pnpm test`.
 */
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

const repoRoot = join(import.meta.dirname, '../..');
const sourceCondition = ['@orkestra/source'];

export default defineConfig({
  test: {
    fileParallelism: false,
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

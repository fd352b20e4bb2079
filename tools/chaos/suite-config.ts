/**
 * suiteConfig is the vitest config shared by the chaos suite and the soak: one file at a time
 * against the local control plane, long timeouts, and a reporter that merges each run's outcomes
 * and figures into a results file (the env variable overrides the documented path).
 */
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import type { ViteUserConfig } from 'vitest/config';
import { ChaosResultsReporter } from './src/chaos-results.js';

const repoRoot = join(import.meta.dirname, '../..');
const sourceCondition = ['@orkestra/source'];

interface SuiteConfigOptions {
  /** The vitest project name, e.g. `@orkestra/chaos:chaos`. */
  readonly name: string;
  /** Globs relative to tools/chaos. */
  readonly include: readonly string[];
  readonly testTimeout: number;
  /** Repository-relative path of the results file this suite documents. */
  readonly results: string;
  /** Environment variable that overrides `results`. */
  readonly resultsEnv: string;
}

export function suiteConfig(options: SuiteConfigOptions): ViteUserConfig {
  return defineConfig({
    test: {
      fileParallelism: false,
      reporters: [
        'default',
        new ChaosResultsReporter({
          path: process.env[options.resultsEnv] ?? join(repoRoot, options.results),
        }),
      ],
      projects: [
        {
          resolve: { conditions: sourceCondition },
          ssr: { resolve: { conditions: sourceCondition } },
          test: {
            name: options.name,
            root: import.meta.dirname,
            include: [...options.include],
            restoreMocks: true,
            testTimeout: options.testTimeout,
            hookTimeout: 300_000,
            fileParallelism: false,
            globalSetup: [join(repoRoot, 'packages/testenv/src/global-setup.ts')],
          },
        },
      ],
    },
  });
}

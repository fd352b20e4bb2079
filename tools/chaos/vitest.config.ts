/**
 * The chaos suite (`pnpm test:chaos`): `test/*.chaos.test.ts` against the local control plane,
 * one file at a time (the scenarios kill processes and measure recovery; they must not compete
 * for the 2 cores), with long timeouts. The root vitest config picks up only this package's unit
 * tests (`src/*.test.ts`), so the chaos suite never runs in `pnpm test`. Every run merges its
 * outcomes and `[chaos]` figures into docs/chaos-results.json (ORKESTRA_CHAOS_RESULTS overrides the
 * path; CI writes a fresh file and compares it with the documented one).
 */
import { suiteConfig } from './suite-config.js';

export default suiteConfig({
  name: '@orkestra/chaos:chaos',
  include: ['test/**/*.chaos.test.ts'],
  testTimeout: 600_000,
  results: 'docs/chaos-results.json',
  resultsEnv: 'ORKESTRA_CHAOS_RESULTS',
});

/**
 * The soak (`pnpm test:soak`): `soak/*.soak.test.ts` against a private control plane. CI size by
 * default (a few minutes); `ORKESTRA_SOAK_SIZE=full` runs 1,000 CRs for 30 minutes. Every run
 * merges its outcome and figures into docs/soak-results.json (ORKESTRA_SOAK_RESULTS overrides the
 * path), from which docs/soak.md is generated (`pnpm chaos:report`).
 */
import { suiteConfig } from './suite-config.js';

export default suiteConfig({
  name: '@orkestra/chaos:soak',
  include: ['soak/**/*.soak.test.ts'],
  testTimeout: 4 * 60 * 60_000,
  results: 'docs/soak-results.json',
  resultsEnv: 'ORKESTRA_SOAK_RESULTS',
});

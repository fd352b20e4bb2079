import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runOrk } from '../../test/run-ork.js';

/**
 * Upstream-shaped Katalogs that use upstream runtime keys Orkestra now loads (ADR 0072): each
 * passes `ork validate` unchanged, with no error and no unknown key.
 */
const FIXTURES = join(REPO_ROOT, 'apps/operator/test/fixtures');

describe('upstream runtime keys load', () => {
  for (const file of ['upstream-watch-gate.yaml'])
    it(`${file} validates unchanged`, async () => {
      const run = await runOrk(['validate', join(FIXTURES, file)]);
      expect(run.stderr).not.toMatch(/: error|unknown key|no counterpart/);
      expect(run.code).toBe(0);
    });
});

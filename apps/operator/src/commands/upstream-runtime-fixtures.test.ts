import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runOrk } from '../../test/run-ork.js';

/**
 * Upstream-shaped Katalogs that use upstream runtime keys Orkestra now loads (ADR 0072): each
 * passes `ork validate` unchanged, with no error and no unknown key.
 */
const FIXTURES = join(REPO_ROOT, 'apps/operator/test/fixtures');

describe('upstream runtime keys load', () => {
  for (const file of [
    'upstream-watch-gate.yaml',
    'upstream-time-notes.yaml',
    'upstream-hpa-profile.yaml',
    'upstream-autoscale-secret.yaml',
  ])
    it(`${file} validates unchanged`, async () => {
      const run = await runOrk(['validate', join(FIXTURES, file)]);
      expect(run.stderr).not.toMatch(/: error|unknown key|no counterpart/);
      expect(run.code).toBe(0);
    });

  it('upstream-time-notes.yaml renders on the scenario clock: its business-hours gate passes at 10:00 UTC on a Monday and holds at 20:00', async () => {
    const render = (now: string) =>
      runOrk([
        'render',
        join(FIXTURES, 'upstream-time-notes.yaml'),
        '--cr',
        join(FIXTURES, 'upstream-time-notes.cr.yaml'),
        '--now',
        now,
      ]);
    const open = await render('2026-12-07T10:00:00Z');
    expect(open.code).toBe(0);
    expect(open.stdout).toContain('open: "true"');
    expect(open.stdout).toContain('rotated: 35d ago');
    expect(open.stdout).toContain('day: Monday, Nov 2');
    const closed = await render('2026-12-07T20:00:00Z');
    expect(closed.stdout).not.toContain('keys-window');
    expect(closed.stdout).toContain('reason: ReconcileGated');
  });

  it('upstream-hpa-profile.yaml renders the preset its CR names: behavior and CPU target; an unknown one fails at behavior.profile', async () => {
    const cr = readFileSync(join(FIXTURES, 'upstream-hpa-profile.cr.yaml'), 'utf8');
    const dir = mkdtempSync(join(tmpdir(), 'ork-hpa-profile-'));
    const render = async (scaling: string) => {
      const file = join(dir, `${scaling}.cr.yaml`);
      writeFileSync(file, cr.replace('scaling: batch', `scaling: ${scaling}`));
      const args = ['render', join(FIXTURES, 'upstream-hpa-profile.yaml'), '--cr', file];
      return runOrk([...args, '--now', '2026-12-07T10:00:00Z']);
    };
    const batch = await render('batch');
    expect(batch.code).toBe(0);
    expect(batch.stdout).toMatch(
      /averageUtilization: 80\n\s+behavior:\n\s+scaleUp:\n\s+stabilizationWindowSeconds: 30/,
    );
    const api = await render('API');
    expect(api.code).toBe(0);
    expect(api.stdout).toMatch(/averageUtilization: 60\n/);
    expect(api.stdout).toMatch(/stabilizationWindowSeconds: 600/);
    const bad = await render('aggressive');
    expect(bad.stdout + bad.stderr).toMatch(
      /behavior\.profile.*rendered "aggressive", which is not a behavior\.profile preset \(web, api, latency-sensitive, batch, cost-optimized\)/,
    );
  });
});

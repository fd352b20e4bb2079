import { describe, expect, it } from 'vitest';
import { runOrk } from '../../test/run-ork.js';

const FIXTURE = 'apps/operator/test/fixtures/role-wildcard.yaml';
const WHERE = `${FIXTURE}:17:31: spec.crds.team.operatorBox.onReconcile.roles[0].rules[1].resources[0]: wildcard "*"`;

describe('wildcards in Katalog roles', () => {
  it('are an error of ork validate naming file:line:col and the field path', async () => {
    const run = await runOrk(['validate', FIXTURE]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim().split('\n')).toEqual([expect.stringContaining(WHERE)]);
  });

  it('are a warning with --allow-rbac-wildcards', async () => {
    const run = await runOrk(['validate', FIXTURE, '--allow-rbac-wildcards']);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      `${FIXTURE}:17:31: spec.crds.team.operatorBox.onReconcile.roles[0].rules[1].resources[0]: warning: wildcard`,
    );
  });

  it('make ork generate rbac and bundle refuse the Katalog unless allowed', async () => {
    for (const target of ['rbac', 'bundle']) {
      const refused = await runOrk(['generate', target, FIXTURE]);
      expect(refused.code).toBe(1);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toContain(WHERE);
    }
    const allowed = await runOrk(['generate', 'rbac', FIXTURE, '--allow-rbac-wildcards']);
    expect(allowed.code).toBe(0);
    expect(allowed.stdout).toMatch(/resources:\n\s+- "\*"/);
    expect(allowed.stderr).toContain('uses a wildcard, so the operator is granted that wildcard too');
    const crd = await runOrk(['generate', 'crd', FIXTURE]);
    expect(crd.code).toBe(0);
  });
});

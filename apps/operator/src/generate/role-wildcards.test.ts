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

describe('privileged rules in every role a Katalog declares', () => {
  const CUSTOM = 'apps/operator/test/fixtures/custom-wild.yaml';
  const ALLOWED = 'apps/operator/test/fixtures/custom-wild-allowed.yaml';
  const UPSTREAM = 'apps/operator/test/fixtures/upstream-cluster-roles.yaml';
  const base = 'spec.crds.team.operatorBox.onReconcile';

  it('refuse wildcards in custom ClusterRoles and escalate/bind/impersonate in roles, each positioned', async () => {
    const run = await runOrk(['validate', CUSTOM]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    const lines = run.stderr.trim().split('\n');
    expect(lines.map((line) => line.split(': ').slice(0, 3).join(': '))).toEqual([
      `${CUSTOM}:15:33: ${base}.custom[0].rules[0].apiGroups[0]: wildcard "*" in a role rule`,
      `${CUSTOM}:15:51: ${base}.custom[0].rules[0].resources[0]: wildcard "*" in a role rule`,
      `${CUSTOM}:15:65: ${base}.custom[0].rules[0].verbs[0]: wildcard "*" in a role rule`,
      `${CUSTOM}:20:96: ${base}.roles[0].rules[1].verbs[0]: verb "escalate" in a role rule`,
      `${CUSTOM}:20:106: ${base}.roles[0].rules[1].verbs[1]: verb "bind" in a role rule`,
      `${CUSTOM}:21:91: ${base}.roles[0].rules[2].verbs[0]: verb "impersonate" in a role rule`,
    ]);
    for (const target of ['rbac', 'helm-values']) {
      const refused = await runOrk(['generate', target, CUSTOM]);
      expect(refused.code).toBe(1);
      expect(refused.stdout).toBe('');
    }
  });

  it('refuse them in upstream clusterRoles mapped onto custom, at the upstream line', async () => {
    const run = await runOrk(['validate', UPSTREAM]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `${UPSTREAM}:22:27: spec.crds.website.operatorBox.onReconcile.custom[0].rules[1].verbs[0]: verb "impersonate"`,
    );
  });

  it('are warnings when the entry sets allowEscalation: true, and generate rbac grants them with a note', async () => {
    const run = await runOrk(['validate', ALLOWED]);
    expect(run.code).toBe(0);
    const warnings = run.stderr.trim().split('\n');
    expect(warnings).toHaveLength(6);
    for (const line of warnings) expect(line).toContain(': warning: ');
    expect(warnings[3]).toContain(
      'verb "escalate" in a role rule: the operator is granted it too (accepted by allowEscalation: true on entry team)',
    );
    const rbac = await runOrk(['generate', 'rbac', ALLOWED]);
    expect(rbac.code).toBe(0);
    expect(rbac.stderr).toContain('grants escalate, bind, so the operator is granted it too');
  });
});

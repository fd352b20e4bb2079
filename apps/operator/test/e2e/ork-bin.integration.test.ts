import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { REPO_ROOT } from '../run-ork.js';

// Smoke test of the real binary: build the operator (and its dependencies) with nx, then spawn
// `node apps/operator/bin/ork.mjs` as `pnpm ork` does. It needs no cluster.

beforeAll(() => {
  execFileSync('pnpm', ['exec', 'nx', 'run', '@orkestra/operator:build', '--outputStyle=static'], {
    cwd: REPO_ROOT,
    stdio: 'pipe',
  });
}, 600_000);

function ork(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [join(REPO_ROOT, 'apps/operator/bin/ork.mjs'), ...args], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

it('validates an example and exits 0', () => {
  const run = ork('validate', 'examples/website/katalog.yaml', '--strict');
  expect(run.stderr).toBe('');
  expect(run.stdout).toBe(
    [
      'examples/website/katalog.yaml: Katalog website-operator (version 1.0.0) is valid (strict): 1 entry (website)',
      '  admission: spec.crds.website.validation.rules[0]: operator admission webhook /validate/websites.demo.example.com/deny (denied at admission: the message is a template rendered with the reconcile’s context)',
      '  admission: spec.crds.website.validation.rules[1]: ValidatingAdmissionPolicy websites.demo.example.com.orkestra-warn (Warn: kubectl prints a warning)',
      '',
    ].join('\n'),
  );
  expect(run.status).toBe(0);
});

it('exits 1 with positioned errors for a broken Katalog, and 2 for a usage error', () => {
  const broken = ork('validate', 'apps/operator/test/fixtures/broken.yaml');
  expect(broken.status).toBe(1);
  expect(broken.stderr).toContain('apps/operator/test/fixtures/broken.yaml:14:15: ');
  expect(ork('generate').status).toBe(2);
});

import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runOrk } from '../test/run-ork.js';
import type { OrkRun } from '../test/run-ork.js';

// Golden tests: every example under examples/ through validate --strict, render and generate.
// Regenerate with `pnpm --filter @orkestra/operator golden:update` (vitest -u) and review the diff.
// Goldens end in `.golden` so formatters leave the exact CLI output alone.

const NOW = '2026-01-01T00:00:00Z';
const examplesDir = join(REPO_ROOT, 'examples');
const examples = readdirSync(examplesDir)
  .filter((name) => existsSync(join(examplesDir, name, 'katalog.yaml')))
  .sort();

function golden(args: readonly string[], run: OrkRun): string {
  const stderr = run.stderr
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => `# stderr: ${line}\n`)
    .join('');
  return `# ork ${args.join(' ')}\n# exit code: ${run.code}\n${stderr}${run.stdout}`;
}

async function check(
  example: string,
  name: string,
  args: readonly string[],
  expectedCode = 0,
): Promise<void> {
  const run = await runOrk(args);
  await expect(golden(args, run)).toMatchFileSnapshot(`../test/golden/${example}/${name}.golden`);
  expect(run.code, run.stderr).toBe(expectedCode);
}

it('finds the examples', () => {
  expect(examples).toContain('website');
  expect(examples.length).toBeGreaterThanOrEqual(6);
});

describe.each(examples)('example %s', (example) => {
  const katalog = `examples/${example}/katalog.yaml`;
  const crDir = join(examplesDir, example, 'crs');
  const crs = existsSync(crDir)
    ? readdirSync(crDir)
        .filter((f) => f.endsWith('.yaml'))
        .sort()
        .flatMap((f) => ['--cr', `examples/${example}/crs/${f}`])
    : [];
  const contextFile = `apps/operator/test/fixtures/context/${example}.yaml`;

  it('validates with --strict', () => check(example, 'validate.txt', ['validate', katalog, '--strict']));

  it('renders every CR', async () => {
    expect(crs.length).toBeGreaterThan(0);
    await check(example, 'render.yaml', ['render', katalog, ...crs, '--now', NOW]);
  }, 60_000); // the real pipeline generates TLS keys (database-credentials): seconds on a shared machine

  // Only examples with a context fixture (test/fixtures/context/<example>.yaml) get this golden.
  if (existsSync(join(REPO_ROOT, contextFile))) {
    it('renders every CR with a context file', () =>
      check(example, 'render-context.yaml', [
        'render',
        katalog,
        ...crs,
        '--context',
        contextFile,
        '--now',
        NOW,
      ]));
  }

  it('generates CRDs', () => check(example, 'crd.yaml', ['generate', 'crd', katalog]));
  it('generates RBAC', () =>
    check(example, 'rbac.yaml', ['generate', 'rbac', katalog, '-n', 'orkestra-system']));
  it('generates a bundle', () =>
    check(example, 'bundle.yaml', ['generate', 'bundle', katalog, '-n', 'orkestra-system']));
  // Sharded (docs/reference/runtime.md §25.2, ADR 0110): the shard-assignment webhook and its RBAC.
  if (example === 'website') {
    it('generates sharded RBAC and policies', async () => {
      await check(example, 'rbac-sharding.yaml', [
        'generate',
        'rbac',
        katalog,
        '-n',
        'orkestra-system',
        '--sharding',
      ]);
      await check(example, 'policies-sharding.yaml', [
        'generate',
        'policies',
        katalog,
        '-n',
        'orkestra-system',
        '--sharding',
      ]);
    });
  }
});

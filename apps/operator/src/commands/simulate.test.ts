import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runOrk } from '../../test/run-ork.js';

// Golden tests: every example's scenario.yaml through `ork simulate`, written to
// test/golden/<example>/simulate.txt.golden. Regenerate with
// `pnpm exec vitest run --project @orkestra/operator -u src/commands/simulate.test.ts`.

const NOW = '2026-01-01T00:00:00Z';
const examplesDir = join(REPO_ROOT, 'examples');
const examples = readdirSync(examplesDir)
  .filter((name) => existsSync(join(examplesDir, name, 'katalog.yaml')))
  .sort();

function scenarioFile(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'ork-simulate-'));
  const file = join(dir, 'scenario.yaml');
  writeFileSync(file, text);
  return file;
}

describe('ork simulate goldens', () => {
  it('has a scenario for every example', () => {
    expect(examples.length).toBeGreaterThanOrEqual(6);
    expect(examples.filter((e) => !existsSync(join(examplesDir, e, 'scenario.yaml')))).toEqual([]);
  });

  it.each(examples)(
    'simulates examples/%s/scenario.yaml with every expectation holding',
    async (example) => {
      const args = [
        'simulate',
        `examples/${example}/katalog.yaml`,
        '--scenario',
        `examples/${example}/scenario.yaml`,
        '--now',
        NOW,
      ];
      const run = await runOrk(args);
      const stderr = run.stderr
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => `# stderr: ${line}\n`)
        .join('');
      await expect(
        `# ork ${args.join(' ')}\n# exit code: ${run.code}\n${stderr}${run.stdout}`,
      ).toMatchFileSnapshot(`../../test/golden/${example}/simulate.txt.golden`);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/expectations, all passed\n$/);
      // The real pipeline generates TLS keys (database-credentials); on a shared machine that takes seconds.
    },
    60_000,
  );
});

describe('ork simulate', () => {
  const katalog = 'examples/website/katalog.yaml';
  const cr = `{apiVersion: demo.example.com/v1alpha1, kind: Website, metadata: {name: hi, namespace: web}, spec: {image: "nginx:1.27"}}`;

  it('exits 1 and names the step, key, expected and actual value when an expectation fails', async () => {
    const file = scenarioFile(`steps:
  - name: create
    apply: {cr: ${cr}}
    expect:
      status: {phase: Running}
      applies: [Deployment/hi-web]
`);
    const run = await runOrk(['simulate', katalog, '--scenario', file, '--now', NOW]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `${file}:5:7: step 1 (create): expect.status.phase: expected "Running", got "Pending"\n` +
        `${file}:6:7: step 1 (create): expect.applies: expected ["Deployment/hi-web"], got ["ConfigMap/hi-content","Service/hi","Deployment/hi-web"]\n`,
    );
    expect(run.stdout).toContain('  expect: FAILED 2 of 2\n');
    expect(run.stdout).toMatch(/1 steps, 2 expectations, 2 failed\n$/);
  });

  it('exits 2 naming file:line:col when the scenario YAML is malformed', async () => {
    const file = scenarioFile('steps:\n  - name: create\n    apply: {cr: [unclosed\n');
    const run = await runOrk(['simulate', katalog, '--scenario', file]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      new RegExp(`^ork simulate: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+:\\d+: `),
    );
    expect(run.stdout).toBe('');
  });

  it('exits 2 naming the position of a child the model does not have', async () => {
    const file = scenarioFile(`steps:
  - apply: {cr: ${cr}}
  - observe:
      Deployment/nope: {status: {readyReplicas: 1}}
`);
    const run = await runOrk(['simulate', katalog, '--scenario', file]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      `ork simulate: ${file}:4:7: step 2 (step 2): observe Deployment/nope: no such child in the simulated cluster (children: ConfigMap/hi-content, Service/hi, Deployment/hi-web)\n`,
    );
  });

  it('exits 2 when an update comes before any CR', async () => {
    const file = scenarioFile('steps:\n  - name: too early\n    update: {spec: {replicas: 1}}\n');
    const run = await runOrk(['simulate', katalog, '--scenario', file]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      `ork simulate: ${file}:2:5: step 1 (too early): update needs a CR; apply one first\n`,
    );
  });

  it('exits 2 on usage errors and 1 on an invalid Katalog', async () => {
    expect((await runOrk(['simulate', katalog])).code).toBe(2);
    expect((await runOrk(['simulate', katalog, '--scenario', 'x', '--now', 'never'])).code).toBe(2);
    const missing = await runOrk(['simulate', 'no/such/katalog.yaml', '--scenario', 'x']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no/such/katalog.yaml:1:1');
  });
});

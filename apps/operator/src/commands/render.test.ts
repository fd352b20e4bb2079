import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runOrk } from '../../test/run-ork.js';

const KATALOG = join(REPO_ROOT, 'examples/website/katalog.yaml');
const NOW = '2026-01-01T00:00:00Z';

function crFile(text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'ork-render-')), 'cr.yaml');
  writeFileSync(file, text);
  return file;
}

async function render(text: string) {
  const file = crFile(text);
  const run = await runOrk(['render', KATALOG, '--cr', file, '--now', NOW]);
  return { ...run, stderr: run.stderr.replaceAll(file, 'cr.yaml') };
}

describe('ork render: CR files that hold no usable CR', () => {
  it.each([
    ['null\n', 'got null'],
    ['', 'got an empty file'],
    ['just text\n', 'got "just text"'],
  ])('exits 1 for %j with a message naming the file', async (text, got) => {
    const run = await render(text);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(`error: cr.yaml: expected a custom resource (a YAML mapping), ${got}\n`);
  });

  it('names a non-string apiVersion or kind instead of printing [object Object]', async () => {
    const run = await render('apiVersion: {a: 1}\nkind: [[], {toString: x}]\nmetadata: {name: hello}\n');
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('error: cr.yaml: apiVersion must be a string, got a map\n');
  });

  it('refuses a metadata.name map with a toString key without a JavaScript error', async () => {
    const run = await render(
      'apiVersion: demo.example.com/v1alpha1\nkind: Website\nmetadata:\n  name: {toString: P1D}\nspec: {image: nginx}\n',
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('error: cr.yaml: metadata.name must be a string, got a map\n');
  });

  it('names the document of a multi-document file that is not a CR', async () => {
    const run = await render(
      'null\n---\napiVersion: demo.example.com/v1alpha1\nkind: Website\nmetadata: {name: hello}\nspec: {image: nginx}\n',
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'error: cr.yaml (document 1): expected a custom resource (a YAML mapping), got null\n',
    );
  });
});

describe('ork render: regex patterns run in linear time (docs/reference/katalog.md §8.3)', () => {
  /** The review's Katalog: a rule whose pattern is a template of the CR, and a literal nested quantifier. */
  function redosKatalog(optIn: boolean): string {
    const file = join(mkdtempSync(join(tmpdir(), 'ork-redos-')), 'redos.yaml');
    writeFileSync(
      file,
      `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: { name: redos-tpl }
spec:
${optIn ? '  allowTemplatedRegex: true\n' : ''}  crds:
    x:
      apiTypes: { group: a.example.com, version: v1, kind: X, plural: xs }
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec: { type: object, properties: { name: { type: string, maxLength: 63 }, pattern: { type: string, maxLength: 16 } } }
      validation:
        rules:
          - { field: spec.name, regex: '^(a+)+$', message: 'bad name' }
          - { field: spec.name, regex: '{{ spec.pattern }}', message: 'name does not match the pattern' }
      operatorBox:
        onReconcile:
          configMaps:
            - data: { n: '{{ spec.name }}' }
`,
    );
    return file;
  }
  const cr = `apiVersion: a.example.com/v1
kind: X
metadata: { name: r, namespace: default }
spec: { name: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!", pattern: "^(a|a)*$" }
`;

  it('renders the review ReDoS CR (31 characters) at once, denied by the rule', async () => {
    const started = performance.now();
    const run = await runOrk(['render', redosKatalog(true), '--cr', crFile(cr), '--now', NOW]);
    // The backtracking engine took 58 s on this input; a generous bound keeps the test stable.
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(run.stdout).toContain('Ready=False ValidationFailed');
  });

  it('refuses the templated pattern at load without the Katalog opt-in', async () => {
    const katalog = redosKatalog(false);
    const run = await runOrk(['render', katalog, '--cr', crFile(cr), '--now', NOW]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${katalog}:16:40: spec.crds.x.validation.rules[1].regex`);
    expect(run.stderr).toContain('spec.allowTemplatedRegex: true');
  });
});

describe('ork render: CR files within the YAML input limits', () => {
  it('refuses a UTF-16 CR file, a non-UTF-8 one and one nested too deep, by name', async () => {
    const cr =
      'apiVersion: demo.example.com/v1alpha1\nkind: Website\nmetadata: {name: hello}\nspec: {image: nginx}\n';
    const cases: [Buffer, RegExp][] = [
      [Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(cr, 'utf16le')]), /:1:1: the input is UTF-16/],
      [Buffer.concat([Buffer.from(cr), Buffer.from([0xc3, 0x28])]), /:5:1: the input is not valid UTF-8/],
      [Buffer.from(`${cr}x: ${'['.repeat(5000)}${']'.repeat(5000)}\n`), /:5:\d+: maps and lists nest deeper/],
    ];
    for (const [bytes, expected] of cases) {
      const file = join(mkdtempSync(join(tmpdir(), 'ork-render-')), 'cr.yaml');
      writeFileSync(file, bytes);
      const run = await runOrk(['render', KATALOG, '--cr', file, '--now', NOW]);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(expected);
    }
  });
});

describe('ork render: a scripted protocol answer must fit its result shape (docs/reference/katalog.md §15.1.1)', () => {
  const katalog = join(REPO_ROOT, 'examples/health-gate/katalog.yaml');
  const cr = join(REPO_ROOT, 'examples/health-gate/crs/checkout-canary.yaml');

  it('refuses a mismatched answer at the context file’s line and column, naming the call and the field', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ork-render-'));
    const context = join(dir, 'context.yaml');
    writeFileSync(context, 'external:\n  upstream:\n    ok: true\n    status: "200"\n');
    const run = await runOrk(['render', katalog, '--cr', cr, '--context', context, '--now', NOW]);
    expect(run.code).toBe(1);
    expect(run.stderr.replaceAll(context, 'context.yaml')).toBe(
      'error: context.yaml:4:13: external.upstream: http call upstream: status must be a number; got a string\n',
    );
    writeFileSync(
      context,
      '{"external": {"upstream": {"ok": true, "status": 200, "json": {"status": "up"}}}}',
    );
    expect((await runOrk(['render', katalog, '--cr', cr, '--context', context, '--now', NOW])).code).toBe(0);
  });
});

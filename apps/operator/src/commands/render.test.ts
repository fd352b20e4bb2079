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

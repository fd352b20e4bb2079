import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { REPO_ROOT, runOrk } from '../../test/run-ork.js';

/**
 * The held-out corpus of ADR 0004: eleven Katalogs in upstream dialects (the eleventh, conversion
 * and admission, added with the conversion fixes of ADR 0088), written from upstream's
 * types and documentation and committed before the mappings they exercise were built. Each must
 * pass `ork validate` unchanged and render with its CR; its `ork migrate` output must pass
 * `ork validate --strict` and render the same objects. The one that names a built-in kind is
 * refused with its file:line:col.
 */
const DIR = join(REPO_ROOT, 'apps/operator/test/fixtures/upstream-heldout');
const NOW = '2026-01-01T00:00:00Z';
const REFUSED = new Set(['h07-builtin-kind.yaml']);
const katalogs = readdirSync(DIR)
  .filter((f) => f.endsWith('.yaml') && !f.endsWith('.cr.yaml') && !f.endsWith('.context.yaml'))
  .sort();

async function render(katalog: string, base: string) {
  const args = ['render', katalog, '--cr', join(DIR, `${base}.cr.yaml`), '--now', NOW];
  const context = join(DIR, `${base}.context.yaml`);
  if (existsSync(context)) args.push('--context', context);
  return runOrk(args);
}

/** objects is the rendered children and status without the source annotation (it names the file). */
function objects(stdout: string): unknown[] {
  return parseAllDocuments(stdout).map((doc) => {
    const value = doc.toJS() as { metadata?: { annotations?: Record<string, string> } } | null;
    const annotations = value?.metadata?.annotations;
    if (annotations != null)
      for (const key of Object.keys(annotations)) if (key.endsWith('/source')) delete annotations[key];
    return value;
  });
}

describe('held-out upstream corpus', () => {
  it('holds eleven Katalogs', () => {
    expect(katalogs).toHaveLength(11);
  });

  for (const file of katalogs.filter((f) => !REFUSED.has(f))) {
    const base = file.replace(/\.yaml$/, '');
    it(`${file}: validates and renders unchanged; its migration validates --strict and renders the same`, async () => {
      const katalog = join(DIR, file);
      const validated = await runOrk(['validate', katalog]);
      expect(validated.stderr).not.toMatch(/: error|unknown key/);
      expect(validated.code).toBe(0);
      const rendered = await render(katalog, base);
      expect(rendered.stderr).not.toMatch(/error/i);
      expect(rendered.code).toBe(0);

      const migrated = await runOrk(['migrate', katalog]);
      expect(migrated.code).toBe(0);
      const copy = join(mkdtempSync(join(tmpdir(), 'ork-heldout-')), file);
      writeFileSync(copy, migrated.stdout);
      const strict = await runOrk(['validate', '--strict', copy]);
      expect(strict.stderr).not.toContain('ork migrate');
      expect(strict.code).toBe(0);
      const again = await render(copy, base);
      expect(again.code).toBe(0);
      expect(objects(again.stdout)).toEqual(objects(rendered.stdout));
    });
  }

  it('h07-builtin-kind.yaml: refuses an entry that names a built-in kind at its file:line:col', async () => {
    const run = await runOrk(['validate', join(DIR, 'h07-builtin-kind.yaml')]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /h07-builtin-kind\.yaml:10:16: spec\.crds\.appconfig\.apiTypes\.group: this entry names ConfigMap of the core group, one of Kubernetes' own kinds/,
    );
  });

  it('h03-g3-secret-copy.yaml: without allowedNamespaces, the CR-chosen target namespace is refused at its file:line:col', async () => {
    const text = readFileSync(join(DIR, 'h03-g3-secret-copy.yaml'), 'utf8').replace(
      /\n\s+allowedNamespaces: .*\n/,
      '\n',
    );
    const file = join(mkdtempSync(join(tmpdir(), 'ork-h03-')), 'h03.yaml');
    writeFileSync(file, text);
    const run = await runOrk(['validate', file]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /h03\.yaml:\d+:\d+: spec\.crds\.tenant\.operatorBox\.onCreate\.secrets\[1\]\.namespace: a templated namespace in a namespaced entry needs `allowedNamespaces`/,
    );
  });

  it('h03-g3-secret-copy.yaml: renders one copy per target namespace with the source data and type', async () => {
    const run = await render(join(DIR, 'h03-g3-secret-copy.yaml'), 'h03-g3-secret-copy');
    const secrets = objects(run.stdout).filter(
      (o): o is { kind: string; metadata: { namespace: string }; type: string; data: unknown } =>
        (o as { kind?: string } | null)?.kind === 'Secret',
    );
    expect(secrets.map((s) => s.metadata.namespace).sort()).toEqual(['acme', 'acme-ci']);
    for (const secret of secrets) {
      expect(secret.type).toBe('kubernetes.io/dockerconfigjson');
      expect(secret.data).toEqual({ '.dockerconfigjson': 'eyJhdXRocyI6e319' });
    }
  });
  it('h05-go-templates.yaml: renders the Go template values as Go would', async () => {
    const run = await render(join(DIR, 'h05-go-templates.yaml'), 'h05-go-templates');
    const map = objects(run.stdout).find((o) => (o as { kind?: string } | null)?.kind === 'ConfigMap') as {
      metadata: { name: string };
      data: Record<string, string>;
    };
    expect(map.metadata.name).toBe('docs-pages');
    expect(map.data).toEqual({
      title: 'Handbook',
      tier: 'standard',
      first: 'index',
      count: '3',
      list: 'index,about,contact',
      owner: 'writers',
    });
  });
  it('h03-g3-secret-copy.yaml: without the source Secret, writes no copy and waits (SourceSecretMissing)', async () => {
    const run = await runOrk([
      'render',
      join(DIR, 'h03-g3-secret-copy.yaml'),
      '--cr',
      join(DIR, 'h03-g3-secret-copy.cr.yaml'),
      '--now',
      NOW,
    ]);
    const docs = objects(run.stdout);
    expect(docs.some((o) => (o as { kind?: string } | null)?.kind === 'Secret')).toBe(false);
    expect(run.stdout).toContain('SourceSecretMissing');
    expect(run.stdout).toContain('copies Secret platform/shared-registry, which does not exist yet');
  });

  it('ork migrate exits 1 and says why when its canonical output does not validate', async () => {
    // An upstream Katalog whose unmapped top-level key is passed through by migrate unchanged.
    const file = join(mkdtempSync(join(tmpdir(), 'ork-migrate-invalid-')), 'katalog.yaml');
    const text = `apiVersion: orkestra.orkspace.io/v1
kind: Katalog
metadata: {name: shop}
sidecarSettings: {enabled: true}
spec:
  crds:
    shop:
      apiTypes: {group: demo.example.io, version: v1alpha1, kind: Shop, plural: shops}
      operatorBox:
        onReconcile:
          configMaps:
            - name: "{{ .metadata.name }}-cfg"
              data: {a: "1"}
`;
    writeFileSync(file, text);
    const printed = await runOrk(['migrate', file]);
    expect(printed.code).toBe(1);
    expect(printed.stdout).toContain('apiVersion: orkestra.konductor.io/v1alpha1');
    expect(printed.stderr).toMatch(/katalog\.yaml:\d+:\d+: sidecarSettings: after migration: unknown key/);
    expect(printed.stderr).toContain('the migrated Katalog does not validate (1 error');
    const written = await runOrk(['migrate', file, '--write']);
    expect(written.code).toBe(1);
    expect(written.stderr).toContain('; not written');
    expect(readFileSync(file, 'utf8')).toBe(text);
  });
});

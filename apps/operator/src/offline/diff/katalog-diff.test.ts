import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { refOf } from '@orkestra/registry';
import type { KubeObject } from '@orkestra/registry';
import { OfflineEngine } from '@orkestra/reconciler/offline';
import { loadKatalogOrThrow } from '@orkestra/types';
import { REPO_ROOT, runOrk } from '../../../test/run-ork.js';

const NOW = '2026-01-01T00:00:00Z';
const katalogFile = join(REPO_ROOT, 'examples/website/katalog.yaml');
const original = readFileSync(katalogFile, 'utf8');

/** changed is the website Katalog with a changed ConfigMap, an added one, the Service dropped and a changed status field. */
function changed(text: string): string {
  const out = text
    .replace(
      "index.html: '<h1>{{ default spec.title metadata.name }}</h1>'",
      "index.html: '<h2>{{ default spec.title metadata.name }}</h2>'",
    )
    .replace(
      '          deployments:\n',
      "            - name: '{{ metadata.name }}-extra'\n              data: { a: b }\n          deployments:\n",
    )
    .replace(/ {10}services:\n( {12}.*\n| {14}.*\n)+/, '')
    .replace("value: 'http://{{", "value: 'https://{{");
  if (out.split('\n').length === text.split('\n').length) throw new Error('the Katalog edit did not apply');
  return out;
}

let dir: string;

/** exportWebsite reconciles examples/website's CR offline until Ready and exports the cluster as kubectl would. */
async function exportWebsite(): Promise<KubeObject[]> {
  const clock = { now: () => Date.parse(NOW), setTimeout: () => ({}), clearTimeout: () => undefined };
  const engine = new OfflineEngine({ katalog: loadKatalogOrThrow({ path: katalogFile }), clock });
  const cr = engine.cluster.put({
    apiVersion: 'demo.example.com/v1alpha1',
    kind: 'Website',
    metadata: { name: 'hello', namespace: 'default', uid: 'a1b2c3d4-0000-4000-8000-000000000001' },
    spec: { image: 'nginx:1.27', replicas: 2, title: 'Hello', tier: 'gold' },
  });
  await engine.reconcile(refOf(cr));
  const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'hello-web', namespace: 'default' };
  engine.cluster.observe(deployment, {
    status: {
      observedGeneration: 1,
      replicas: 2,
      updatedReplicas: 2,
      readyReplicas: 2,
      availableReplicas: 2,
      conditions: [{ type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable' }],
    },
  });
  await engine.reconcile(refOf(cr));
  return engine.cluster.list();
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ork-diff-'));
  const objects = await exportWebsite();
  const [website, ...children] = objects;
  // One file with the CR, one List of the children: both forms kubectl writes.
  writeFileSync(join(dir, 'websites.yaml'), stringify(website));
  writeFileSync(join(dir, 'children.yaml'), stringify({ apiVersion: 'v1', kind: 'List', items: children }));
  writeFileSync(join(dir, 'new-katalog.yaml'), changed(original));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('ork diff --from-dir', () => {
  it('exits 0 with no changes when the Katalog is the one that produced the objects', async () => {
    const run = await runOrk(['diff', katalogFile, '--from-dir', dir, '--now', NOW]);
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe(
      'Website default/hello (entry website): no changes; after: Ready=True ReconcileSucceeded\n' +
        'CRD websites.demo.example.com: storage v1alpha1; served v1alpha1; not in the export\n' +
        '1 CR compared, 0 would change\n',
    );
    expect(run.code).toBe(0);
  });

  it('shows children added, changed (field level) and pruned, and status fields; exits 1', async () => {
    const run = await runOrk(['diff', join(dir, 'new-katalog.yaml'), '--from-dir', dir, '--now', NOW]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(1);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe(
      'Website default/hello (entry website): 1 added, 1 changed, 1 pruned, status changed; after: Ready=True ReconcileSucceeded',
    );
    expect(lines).toContain('+ v1 ConfigMap default/hello-extra (added)');
    expect(lines).toContain('+    data:');
    expect(lines).toContain('~ v1 ConfigMap default/hello-content (changed)');
    expect(lines).toContain('-    data["index.html"]: "<h1>Hello</h1>"');
    expect(lines).toContain('+    data["index.html"]: "<h2>Hello</h2>"');
    expect(lines).toContain('- v1 Service default/hello (pruned)');
    expect(lines).toContain('~ demo.example.com/v1alpha1 Website default/hello (status)');
    expect(lines).toContain('-    status.url: "http://hello.default.svc"');
    expect(lines).toContain('+    status.url: "https://hello.default.svc"');
    // The unchanged Deployment and PodDisruptionBudget are not mentioned.
    expect(run.stdout).not.toMatch(/Deployment|PodDisruptionBudget/);
    expect(lines.at(-2)).toBe('1 CR compared, 1 would change');
  });

  it('prints the same as JSON with -o json', async () => {
    const run = await runOrk([
      'diff',
      join(dir, 'new-katalog.yaml'),
      '--from-dir',
      dir,
      '--now',
      NOW,
      '-o',
      'json',
    ]);
    expect(run.code).toBe(1);
    const diff = JSON.parse(run.stdout) as {
      changed: boolean;
      crs: { children: { change: string; ref: { kind: string; name: string } }[] }[];
    };
    expect(diff.changed).toBe(true);
    expect(diff.crs[0]?.children.map((c) => `${c.change} ${c.ref.kind}/${c.ref.name}`)).toEqual([
      'changed ConfigMap/hello-content',
      'added ConfigMap/hello-extra',
      'pruned Service/hello',
    ]);
  });

  it('shows each CRD’s versions from the export, a version change (exit 1) and a pending migration', async () => {
    const withCrd = mkdtempSync(join(tmpdir(), 'ork-diff-crd-'));
    try {
      const objects = await exportWebsite();
      writeFileSync(
        join(withCrd, 'objects.yaml'),
        stringify({ apiVersion: 'v1', kind: 'List', items: objects }),
      );
      const crd = (versions: object[], storedVersions: string[]) => ({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'websites.demo.example.com' },
        spec: { group: 'demo.example.com', versions },
        status: { storedVersions },
      });
      // The live CRD stores at v1beta1, which the Katalog no longer serves.
      writeFileSync(
        join(withCrd, 'crd.yaml'),
        stringify(
          crd(
            [
              { name: 'v1alpha1', served: true, storage: false },
              { name: 'v1beta1', served: true, storage: true },
            ],
            ['v1beta1'],
          ),
        ),
      );
      const run = await runOrk(['diff', katalogFile, '--from-dir', withCrd, '--now', NOW]);
      expect(run.stderr).toBe('');
      expect(run.stdout.split('\n')).toContain(
        'CRD websites.demo.example.com: storage v1beta1 → v1alpha1; served v1alpha1, v1beta1 → v1alpha1; stored at v1beta1: migration to v1alpha1 pending',
      );
      expect(run.code).toBe(1);
      // The versions are the Katalog's, but objects are still stored at v1beta1: no change, migration pending.
      writeFileSync(
        join(withCrd, 'crd.yaml'),
        stringify(crd([{ name: 'v1alpha1', served: true, storage: true }], ['v1beta1', 'v1alpha1'])),
      );
      const pending = await runOrk(['diff', katalogFile, '--from-dir', withCrd, '--now', NOW, '-o', 'json']);
      expect(pending.code).toBe(0);
      expect((JSON.parse(pending.stdout) as { versions: unknown }).versions).toEqual([
        {
          crd: 'websites.demo.example.com',
          katalog: { storage: 'v1alpha1', served: ['v1alpha1'] },
          live: { storage: 'v1alpha1', served: ['v1alpha1'], storedVersions: ['v1beta1', 'v1alpha1'] },
          changed: false,
          pendingMigration: ['v1beta1'],
        },
      ]);
    } finally {
      rmSync(withCrd, { recursive: true, force: true });
    }
  });

  it('exits 2 with file:line:col for an export document that is not an object', async () => {
    const bad = mkdtempSync(join(tmpdir(), 'ork-diff-bad-'));
    try {
      writeFileSync(
        join(bad, 'a.yaml'),
        '---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n- 1\n- 2\n',
      );
      const run = await runOrk(['diff', katalogFile, '--from-dir', bad]);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/^error: .*a\.yaml:6:1: expected an object \(a map\), found a list\n$/);
    } finally {
      rmSync(bad, { recursive: true, force: true });
    }
  });

  it('exits 2 with the Katalog error position for a bad Katalog', async () => {
    const file = join(dir, 'broken-katalog.yaml');
    writeFileSync(file, original.replace('      workers: 3', '      workers: three'));
    const run = await runOrk(['diff', file, '--from-dir', dir]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/broken-katalog\.yaml:\d+:\d+/);
  });
});

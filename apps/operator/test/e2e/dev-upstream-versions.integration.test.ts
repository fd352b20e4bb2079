import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { REPO_ROOT } from '../run-ork.js';
import { buildOrk, spawnDev, waitFor } from './ork-process.js';

// An upstream Katalog with two served versions converted by upstream's template `paths` and an
// `admission` block runs under `ork dev` unchanged (docs/reference/katalog.md §3.4, §11, §12, §24;
// runtime.md §26). The Katalog is our own held-out fixture, written from upstream's documentation
// of `conversion` and `admission`, its paths in upstream's Go-struct form (`{{ .Spec.DatabaseEngine }}`,
// ADR 0088) unchanged. kubectl (the pinned build) sees: a CR created at either version
// read at the other as the paths say; the declared storage version; a denial with its message and
// a default on the stored object; the children of both CRs following spec changes made through
// either version.

const FIXTURES = join(REPO_ROOT, 'apps/operator/test/fixtures/upstream-heldout');
const dir = mkdtempSync(join(tmpdir(), 'orkestra-dev-versions-'));
const kubeconfig = join(dir, 'dev.kubeconfig');

beforeAll(() => {
  buildOrk();
}, 600_000);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

let run: ReturnType<typeof spawnDev>['kubectl'];
let kubectl: ReturnType<typeof spawnDev>['kubectlOk'];
const apply = (manifest: Record<string, unknown>) => {
  const file = join(dir, `${String((manifest['metadata'] as { name: string }).name)}-${Date.now()}.json`);
  writeFileSync(file, JSON.stringify(manifest));
  return run('apply', '-f', file);
};

it('converts by upstream template paths, admits as the admission block says, and children follow either version', async () => {
  const started = spawnDev(join(FIXTURES, 'h11-conversion-admission.yaml'), kubeconfig, join(dir, 'work'));
  const { dev } = started;
  run = started.kubectl;
  kubectl = started.kubectlOk;
  try {
    await waitFor('the dev kubeconfig', () => (existsSync(kubeconfig) ? true : undefined), 180_000);
    await waitFor(
      'the Database CRD to be served',
      async () =>
        (await run('get', 'databases.v1alpha1.db.example.org', '-n', 'default')).code === 0
          ? true
          : undefined,
      120_000,
    );
    const db = (version: string, name: string, spec: Record<string, unknown>) => ({
      apiVersion: `db.example.org/${version}`,
      kind: 'Database',
      metadata: { name, namespace: 'default' },
      spec,
    });
    // The first write may come before the conversion webhook's caBundle reached the API server.
    await waitFor(
      'a created at v1alpha1',
      async () =>
        (await apply(db('v1alpha1', 'a', { databaseEngine: 'mysql', size: 2 }))).code === 0
          ? true
          : undefined,
      60_000,
    );
    const created = await apply(db('v1', 'b', { replicas: 3 }));
    expect(created.code, created.stderr).toBe(0);
    const field = (resource: string, name: string, path: string) =>
      kubectl('get', resource, name, '-n', 'default', '-o', `jsonpath={${path}}`);

    // Each reads at the other version, converted as the paths say; the default is stored.
    expect(JSON.parse(await field('databases.v1.db.example.org', 'a', '.spec'))).toEqual({
      engine: 'mysql',
      replicas: 2,
    });
    expect(JSON.parse(await field('databases.v1alpha1.db.example.org', 'b', '.spec'))).toEqual({
      databaseEngine: 'postgres',
      size: 3,
    });
    expect(
      await kubectl(
        'get',
        'crd',
        'databases.db.example.org',
        '-o',
        'jsonpath={.spec.versions[?(@.storage==true)].name}',
      ),
    ).toBe('v1');

    // A denial with the rule's message.
    const denied = await apply(db('v1', 'c', { replicas: 9 }));
    expect(denied.code).not.toBe(0);
    expect(denied.stderr).toContain('at most 5 replicas');
    // The rule of v1 judges a write at v1alpha1 too: the template paths map no field one-to-one,
    // so the operator's webhook judges it on the object converted to v1 (ADR 0102).
    const deniedThere = await apply(db('v1alpha1', 'd', { databaseEngine: 'mysql', size: 9 }));
    expect(deniedThere.code).not.toBe(0);
    expect(deniedThere.stderr).toContain('deny-versions.databases.db.example.org');
    expect(deniedThere.stderr).toContain('at most 5 replicas');

    // Children of both, following spec changes made through either version.
    const child = (name: string) =>
      waitFor(
        `ConfigMap ${name}`,
        async () => {
          const got = await run('get', 'configmap', name, '-n', 'default', '-o', 'jsonpath={.data}');
          return got.code === 0 && got.stdout !== ''
            ? (JSON.parse(got.stdout) as Record<string, string>)
            : undefined;
        },
        120_000,
      );
    expect(await child('a-db')).toEqual({ engine: 'mysql', replicas: '2' });
    expect(await child('b-db')).toEqual({ engine: 'postgres', replicas: '3' });
    await kubectl(
      'patch',
      'databases.v1alpha1.db.example.org',
      'b',
      '-n',
      'default',
      '--type',
      'merge',
      '-p',
      '{"spec":{"size":4}}',
    );
    await kubectl(
      'patch',
      'databases.v1.db.example.org',
      'a',
      '-n',
      'default',
      '--type',
      'merge',
      '-p',
      '{"spec":{"replicas":1}}',
    );
    const follows = (name: string, replicas: string) =>
      waitFor(
        `ConfigMap ${name} replicas ${replicas}`,
        async () => ((await field('configmap', name, '.data.replicas')) === replicas ? true : undefined),
        120_000,
      );
    await follows('b-db', '4');
    await follows('a-db', '1');
    expect(await field('databases.v1alpha1.db.example.org', 'a', '.spec.size')).toBe('1');
  } finally {
    dev.child.kill('SIGINT');
  }
  expect(await dev.exited).toBe(0);
}, 600_000);

import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { REPO_ROOT } from '../run-ork.js';
import { buildOrk, spawnDev, waitFor } from './ork-process.js';

// ADR 0004: an upstream Katalog runs under `ork dev` to Ready, unchanged. The Katalog is our own
// held-out G1 fixture (written from upstream's documentation, apiVersion orkestra.orkspace.io/v1);
// `ork dev` starts its own control plane, and kubectl (the pinned build) applies its CR.

const FIXTURES = join(REPO_ROOT, 'apps/operator/test/fixtures/upstream-heldout');
const dir = mkdtempSync(join(tmpdir(), 'orkestra-dev-upstream-'));
const kubeconfig = join(dir, 'dev.kubeconfig');

beforeAll(() => {
  buildOrk();
}, 600_000);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

it('runs the G1 webapp Katalog under ork dev: CR Ready, children created, clean exit', async () => {
  const { dev, kubectlOk: kubectl } = spawnDev(
    join(FIXTURES, 'h01-g1-webapp.yaml'),
    kubeconfig,
    join(dir, 'work'),
  );
  try {
    await waitFor('the dev kubeconfig', () => (existsSync(kubeconfig) ? true : undefined), 180_000);
    await waitFor(
      'the WebApp CRD to be served',
      async () =>
        (await kubectl('get', 'crd', 'webapps.apps.example.org')).includes('webapps') ? true : undefined,
      60_000,
    );
    await kubectl('apply', '-f', join(FIXTURES, 'h01-g1-webapp.cr.yaml'));
    const ready = await waitFor(
      'WebApp default/shop Ready=True',
      async () => {
        const status = await kubectl(
          'get',
          'webapps.apps.example.org',
          'shop',
          '-n',
          'default',
          '-o',
          'jsonpath={.status.conditions[?(@.type=="Ready")].status}/{.status.conditions[?(@.type=="Ready")].reason}',
        );
        return status.startsWith('True/') ? status : undefined;
      },
      120_000,
    );
    expect(ready).toBe('True/ReconcileSucceeded');
    const field = (resource: string, name: string, path: string) =>
      kubectl('get', resource, name, '-n', 'default', '-o', `jsonpath={${path}}`);
    expect(await field('deployment', 'shop-web', '.spec.replicas')).toBe('2');
    expect(await field('service', 'shop-svc', '.spec.ports[0].port')).toBe('80');
    expect(await field('webapps.apps.example.org', 'shop', '.status.status.url')).toBe(
      'http://shop-svc.default',
    );
    // ork dev creates the operator namespace, so the Katalog revision is recorded (runtime.md §24).
    expect(
      await kubectl('get', 'configmaps', '-n', 'orkestra-system', '-o', 'jsonpath={.items[*].metadata.name}'),
    ).toMatch(/-rev-[0-9a-f]+/);
  } finally {
    dev.child.kill('SIGINT');
  }
  expect(await dev.exited).toBe(0);
}, 420_000);

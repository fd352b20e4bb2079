import { useControlPlane } from '@orkestra/testenv/vitest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildOrk, tempDir, uniqueSuffix, waitFor } from './ork-process.js';
import { installModulePackage, runOrkWithModules, siteClient, writeSiteKatalog } from './module-package.js';
import type { OrkProcess } from './ork-process.js';

// A module hook (docs/reference/katalog.md §14.5, ADR 0052) written outside the workspace — its own
// package.json, the kit a peer — packed and installed with plain npm into a provider directory,
// run by `ork run` (the built binary) on the local control plane: its outputs reach the CR's
// status through a status field, and a hook that throws is a HookFailed condition on its CR.

const env = useControlPlane();
const suffix = uniqueSuffix();
const group = `hooks${suffix}.example.com`;
const work = tempDir();
let ork: OrkProcess | undefined;

beforeAll(async () => {
  buildOrk();
  // The module's own project, outside the workspace, installed into the image's provider directory.
  const modules = await installModulePackage(
    work,
    'dns-hooks',
    `import { defineHook } from '@orkestra/provider-kit';
export const ensureDns = defineHook(async ({ cr, args }) => {
  if (cr.spec.host === 'locked') throw new Error('zone ' + args.zone + ' is locked');
  return { outputs: { record: cr.spec.host + '.' + args.zone } };
});
`,
  );

  const katalogFile = writeSiteKatalog({
    work,
    name: `hooks-${suffix}`,
    group,
    box: `        hooks:
          - module: "@acme/dns-hooks@^1.2.0"
            function: ensureDns
            args: { zone: example.com }
        status:
          fields:
            - { path: dnsRecord, value: "{{ hooks.ensureDns.record }}" }
`,
  });
  ork = await runOrkWithModules({
    kubeConfig: env.kubeConfig,
    namespace: env.namespace,
    work,
    katalogFile,
    modules,
    loaded: 'module hook loaded',
  });
}, 600_000);

afterAll(() => {
  if (ork != null && ork.child.exitCode == null) ork.child.kill('SIGKILL');
});

it('runs a hook installed from outside the workspace; its outputs and its failures show on the CR', async () => {
  const loaded = ork?.logs.find((l) => l.msg === 'module hook loaded');
  expect(loaded).toMatchObject({ module: '@acme/dns-hooks', version: '1.2.3', export: 'ensureDns' });
  const { create, read } = siteClient<{ readonly dnsRecord?: string }>(env.kubeConfig, env.namespace, group);
  await create('shop', 'shop');
  await create('locked', 'locked');
  const record = await waitFor('status.dnsRecord', async () => (await read('shop')).status?.dnsRecord);
  expect(record).toBe('shop.example.com');
  const failed = await waitFor('Ready=False HookFailed', async () =>
    (await read('locked')).status?.conditions?.find((c) => c.type === 'Ready' && c.reason === 'HookFailed'),
  );
  expect(failed.message).toContain(
    'hook ensureDns (@acme/dns-hooks#ensureDns) failed: zone example.com is locked',
  );
});

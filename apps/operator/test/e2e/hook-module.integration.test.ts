import { useControlPlane } from '@orkestra/testenv/vitest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildOrk, tempDir, uniqueSuffix, waitFor } from './ork-process.js';
import { installModulePackage, runOrkWithModules, siteClient, writeSiteKatalog } from './module-package.js';
import type { OrkProcess } from './ork-process.js';

// A module hook (docs/reference/katalog.md §14.5, ADR 0052) written outside the workspace — its own
// package.json, the kit a peer — packed and installed with plain npm into a provider directory,
// run by `ork run` (the built binary) on the local control plane: its outputs reach the CR's
// status through a status field, and a hook that throws is a HookFailed condition on its CR. Its
// onDelete step (ADR 0099) runs when the CR is deleted, before the finalizer goes.

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
const busy = new Set();
export const ensureDns = defineHook(
  async ({ cr, args }) => {
    if (cr.spec.host === 'locked') throw new Error('zone ' + args.zone + ' is locked');
    return { outputs: { record: cr.spec.host + '.' + args.zone } };
  },
  {
    // The deletion step (ADR 0099): busy the first time for one CR, to show the finalizer is kept.
    onDelete: async ({ cr, args, logger }) => {
      if (cr.spec.host === 'sticky' && !busy.has(cr.metadata.uid)) {
        busy.add(cr.metadata.uid);
        throw new Error('record ' + cr.spec.host + ' is busy');
      }
      logger.info({ record: cr.spec.host + '.' + args.zone }, 'dns record released');
    },
  },
);
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

it('calls the hook’s onDelete step before the finalizer is released, retrying while the step fails', async () => {
  const { create, read, remove } = siteClient<{ readonly dnsRecord?: string }>(
    env.kubeConfig,
    env.namespace,
    group,
  );
  await create('sticky', 'sticky');
  await waitFor('status.dnsRecord', async () => (await read('sticky')).status?.dnsRecord);
  await remove('sticky');
  // The CR stays (its finalizer kept) through the failed step and goes once the step returns.
  await waitFor('the CR gone', async () =>
    read('sticky').then(
      () => undefined,
      (error: unknown) => ((error as { code?: number }).code === 404 ? true : undefined),
    ),
  );
  const lines = ork?.logs ?? [];
  const failed = lines.findIndex((l) => l.msg === 'module hook @acme/dns-hooks#ensureDns onDelete failed');
  const released = lines.filter((l) => l.msg === 'dns record released');
  expect(failed).toBeGreaterThanOrEqual(0);
  expect(released).toEqual([expect.objectContaining({ record: 'sticky.example.com', step: 'onDelete' })]);
  expect(lines.indexOf(released[0] as never)).toBeGreaterThan(failed);
});

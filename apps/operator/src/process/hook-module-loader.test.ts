import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadKatalog } from '@orkestra/types';
import type { Katalog, Logger } from '@orkestra/types';
import { afterAll, describe, expect, it } from 'vitest';
import { HookModuleErrorCode, HookModulesLoadError, loadModuleHooks } from './hook-module-loader.js';

// Module hooks load like providers (docs/reference/katalog.md §14.5, ADR 0052): from the provider
// directory, the kit shared from the operator, the pinned range checked, failures positioned.

const silent: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => silent,
};

const root = mkdtempSync(join(tmpdir(), 'orkestra-hook-dir-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function writePackage(name: string, version: string, index: string, peer: Record<string, string> = {}): void {
  const dir = join(root, 'node_modules', ...name.split('/'));
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name, version, type: 'module', exports: './index.js', peerDependencies: peer }),
  );
  writeFileSync(join(dir, 'index.js'), index);
}
writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'hooks', private: true }));

// "The operator": its own copy of the kit (a stand-in that marks hooks as the kit does), which the
// directory's hooks must get instead of any copy of their own.
const operatorDir = join(root, 'operator');
const kitDir = join(operatorDir, 'node_modules', '@orkestra', 'provider-kit');
mkdirSync(kitDir, { recursive: true });
writeFileSync(
  join(kitDir, 'package.json'),
  JSON.stringify({
    name: '@orkestra/provider-kit',
    version: '1.4.0',
    type: 'module',
    exports: { '.': './index.js', './package.json': './package.json' },
  }),
);
writeFileSync(
  join(kitDir, 'index.js'),
  "export const defineHook = (run) => Object.freeze({ orkestra: 'hook/v1', run, copy: 'operator' });\n" +
    "export const defineReconciler = (run) => Object.freeze({ orkestra: 'reconciler/v1', run, copy: 'operator' });\n",
);
writeFileSync(join(operatorDir, 'index.js'), '');
const sharedFrom = pathToFileURL(join(operatorDir, 'index.js')).href;
// Built with the kit, which resolves to the operator's copy (a peer, not installed in the directory).
writePackage(
  '@acme/hooks',
  '1.2.3',
  `import { defineHook } from '@orkestra/provider-kit';
import { defineReconciler } from '@orkestra/provider-kit';
export const ensureDns = defineHook(({ cr }) => ({ outputs: { record: cr.metadata.name } }));
export const notAHook = () => ({});
export const reconcile = defineReconciler(() => ({ status: { phase: 'Ready' } }));
`,
  { '@orkestra/provider-kit': '*' },
);
writePackage('too-new-kit', '1.0.0', 'export const h = 1;\n', { '@orkestra/provider-kit': '>=2.0.0' });

/** katalog is a Katalog whose entry `site` has the given `operatorBox` lines (line 9 on). */
function katalog(box: string): Katalog {
  const result = loadKatalog({
    text: `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: { name: demo }
spec:
  crds:
    site:
      apiTypes: { group: demo.example.io, version: v1, kind: Site, plural: sites }
      operatorBox:
${box}
`,
    file: 'katalog.yaml',
  });
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.katalog;
}

const loadFrom = (box: string) =>
  loadModuleHooks(katalog(box), { logger: silent, providerDirectory: root, sharedFrom });
const load = (hooks: string) => loadFrom(`        hooks:\n${hooks}`);

describe('loadModuleHooks', () => {
  it('loads a defineHook export from the provider directory, the kit shared from the operator', async () => {
    const hooks = await load(`          - { module: "@acme/hooks@^1.2.0", function: ensureDns }`);
    const hook = hooks.get('@acme/hooks#ensureDns');
    expect(hook).toMatchObject({ orkestra: 'hook/v1', copy: 'operator' });
  });

  it('positions every failure at its declaration', async () => {
    const error = await load(
      `          - { module: "@acme/hooks", function: ensureDnz }
          - { module: "@acme/hooks", function: notAHook }
          - { module: "@acme/hooks@^2.0.0", function: ensureDns }
          - { module: "@acme/absent", function: x }
          - { module: too-new-kit, function: h }`,
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HookModulesLoadError);
    const errors = (error as HookModulesLoadError).errors;
    expect(errors.map((e) => [e.code, e.where])).toEqual([
      [HookModuleErrorCode.MissingExport, 'katalog.yaml:10:13 spec.crds.site.operatorBox.hooks[0].function'],
      [HookModuleErrorCode.NotAHook, 'katalog.yaml:11:13 spec.crds.site.operatorBox.hooks[1].function'],
      [HookModuleErrorCode.VersionMismatch, 'katalog.yaml:12:13 spec.crds.site.operatorBox.hooks[2].version'],
      [HookModuleErrorCode.ImportFailed, 'katalog.yaml:13:13 spec.crds.site.operatorBox.hooks[3].module'],
      [HookModuleErrorCode.Incompatible, 'katalog.yaml:14:13 spec.crds.site.operatorBox.hooks[4].module'],
    ]);
    expect(errors[0]?.message).toContain('@acme/hooks@1.2.3 has no export ensureDnz (its hooks: ensureDns)');
    expect(errors[1]?.message).toContain('make it with defineHook from @orkestra/provider-kit');
    expect(errors[2]?.message).toContain('outside the pinned range ^2.0.0');
  });

  it('loads a module reconciler named by operatorBox.remote, and refuses a hook there at its position', async () => {
    const remote = (fn: string) =>
      loadFrom(`        remote: { module: "@acme/hooks@^1.2.0", function: ${fn} }`);
    const loaded = await remote('reconcile');
    expect(loaded.get('@acme/hooks#reconcile')).toMatchObject({
      orkestra: 'reconciler/v1',
      copy: 'operator',
    });
    const error = await remote('ensureDns').catch((e: unknown) => e);
    expect((error as HookModulesLoadError).errors.map((e) => [e.code, e.where, e.message])).toEqual([
      [
        HookModuleErrorCode.NotAHook,
        'katalog.yaml:9:17 spec.crds.site.operatorBox.remote.function',
        expect.stringContaining('not as a reconciler: make it with defineReconciler'),
      ],
    ]);
  });
});

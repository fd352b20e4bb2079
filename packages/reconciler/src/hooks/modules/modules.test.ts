import { getDefaultEngine } from '@orkestra/template';
import { ConditionReason, HOOK_MODULE_MARK, loadKatalogOrThrow } from '@orkestra/types';
import type { DefinedHook } from '@orkestra/types';
import { describe, expect, it } from 'vitest';
import { compileKatalog } from '../../runtime/compile-katalog.js';
import { conditionsOptions } from '../../runtime/conditions.js';
import type { HookInput, HookServices } from '../hook-unit.js';
import { moduleHookKey, moduleHooksUnit, runModuleHookDeletions } from './index.js';
import type { ModuleHooksResult } from './index.js';

const katalog = loadKatalogOrThrow({
  text: `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: { name: demo }
spec:
  crds:
    site:
      apiTypes: { group: demo.example.io, version: v1, kind: Site, plural: sites }
      operatorBox:
        hooks:
          - { module: "@acme/hooks", function: ensureDns, args: { zone: example.com } }
          - { name: later, module: "@acme/hooks", function: sees, timeout: 50ms }
`,
  file: 'katalog.yaml',
});
const crd = compileKatalog(katalog).crds.get('site');
if (crd == null) throw new Error('no entry');
const compiled = moduleHooksUnit.compile(crd.entry, 'site', getDefaultEngine());
const silent = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent };

function hook(run: DefinedHook['run']): DefinedHook<unknown, unknown, unknown, unknown> {
  return { orkestra: HOOK_MODULE_MARK, run } as DefinedHook<unknown, unknown, unknown, unknown>;
}

function services(hooks: Record<string, DefinedHook<unknown, unknown, unknown, unknown>>): HookServices {
  return {
    conditions: conditionsOptions(getDefaultEngine(), { now: () => 0 }),
    moduleHook: (module: string, name: string) => hooks[moduleHookKey(module, name)],
  } as unknown as HookServices;
}

const input = (): HookInput =>
  ({
    crd,
    cr: {
      apiVersion: 'demo.example.io/v1',
      kind: 'Site',
      metadata: { name: 'shop', namespace: 'ns', uid: 'u1', generation: 2 },
      spec: { tier: 'gold' },
    },
    context: { external: {} },
    signal: new AbortController().signal,
    logger: silent,
    effects: {},
  }) as unknown as HookInput;

describe('module hooks (step 12)', () => {
  it('runs in order, each seeing the outputs before it; the earliest requeue wins', async () => {
    const seen: unknown[] = [];
    const result = await moduleHooksUnit.run(
      services({
        '@acme/hooks#ensureDns': hook(({ cr, args }) => {
          expect(Object.isFrozen(cr.spec)).toBe(true);
          return {
            outputs: { record: `${cr.metadata.name}.${String((args as { zone: string }).zone)}` },
            requeueAfter: '5m',
          };
        }),
        '@acme/hooks#sees': hook(({ context }) => {
          seen.push(context['hooks']);
          return { requeueAfter: 1000 };
        }),
      }),
      undefined,
      compiled,
      input(),
    );
    expect(seen).toEqual([{ ensureDns: { record: 'shop.example.com' } }]);
    expect(moduleHooksUnit.settle(result as ModuleHooksResult)).toEqual({
      value: { ensureDns: { record: 'shop.example.com' }, later: {} },
      requeueAfterMs: 1000,
    });
  });

  it('fails with HookFailed at the declaration when a hook throws, is missing or outlives its timeout', async () => {
    const ok = hook(() => ({ outputs: {} }));
    const cases: Record<string, DefinedHook<unknown, unknown, unknown, unknown>>[] = [
      {
        '@acme/hooks#ensureDns': hook(() => {
          throw new Error('zone locked');
        }),
      },
      {},
      { '@acme/hooks#ensureDns': ok, '@acme/hooks#sees': hook(() => new Promise(() => undefined)) },
      { '@acme/hooks#ensureDns': hook(() => ({ outputs: [1] as never })) },
    ];
    const messages: string[] = [];
    for (const hooks of cases) {
      const error = await Promise.resolve(
        moduleHooksUnit.run(services(hooks), undefined, compiled, input()),
      ).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: ConditionReason.HookFailed });
      messages.push((error as Error).message);
    }
    expect(messages[0]).toBe(
      'site.operatorBox.hooks[0]: hook ensureDns (@acme/hooks#ensureDns) failed: zone locked',
    );
    expect(messages[1]).toContain('is not loaded');
    expect(messages[2]).toContain(
      'site.operatorBox.hooks[1]: hook later (@acme/hooks#sees) failed: timed out after 50ms',
    );
    expect(messages[3]).toContain('outputs must be a JSON object');
  });

  it('runs each onDelete step in reverse declaration order, skipping hooks without one (ADR 0099)', async () => {
    const calls: string[] = [];
    const withDelete = (name: string): DefinedHook<unknown, unknown, unknown, unknown> =>
      ({
        orkestra: HOOK_MODULE_MARK,
        run: () => undefined,
        onDelete: ({ cr, args }: { cr: { metadata: { name: string } }; args: unknown }) => {
          calls.push(`${name}:${cr.metadata.name}:${JSON.stringify(args)}`);
        },
      }) as unknown as DefinedHook<unknown, unknown, unknown, unknown>;
    await runModuleHookDeletions(
      services({ '@acme/hooks#ensureDns': withDelete('ensureDns'), '@acme/hooks#sees': withDelete('sees') }),
      compiled,
      input(),
    );
    expect(calls).toEqual(['sees:shop:{}', 'ensureDns:shop:{"zone":"example.com"}']);
    calls.length = 0;
    await runModuleHookDeletions(
      services({
        '@acme/hooks#ensureDns': withDelete('ensureDns'),
        '@acme/hooks#sees': hook(() => undefined),
      }),
      compiled,
      input(),
    );
    expect(calls).toEqual(['ensureDns:shop:{"zone":"example.com"}']);
  });

  it('fails the deletion pass with HookFailed when an onDelete step throws or outlives its timeout', async () => {
    const throwing = {
      orkestra: HOOK_MODULE_MARK,
      run: () => undefined,
      onDelete: () => {
        throw new Error('record locked');
      },
    } as unknown as DefinedHook<unknown, unknown, unknown, unknown>;
    const hanging = {
      orkestra: HOOK_MODULE_MARK,
      run: () => undefined,
      onDelete: () => new Promise(() => undefined),
    } as unknown as DefinedHook<unknown, unknown, unknown, unknown>;
    const thrown = await runModuleHookDeletions(
      services({ '@acme/hooks#ensureDns': throwing, '@acme/hooks#sees': hook(() => undefined) }),
      compiled,
      input(),
    ).catch((e: unknown) => e);
    expect(thrown).toMatchObject({
      code: ConditionReason.HookFailed,
      message:
        'site.operatorBox.hooks[0]: hook ensureDns (@acme/hooks#ensureDns) onDelete failed: record locked',
    });
    const timedOut = await runModuleHookDeletions(
      services({ '@acme/hooks#ensureDns': hook(() => undefined), '@acme/hooks#sees': hanging }),
      compiled,
      input(),
    ).catch((e: unknown) => e);
    expect((timedOut as Error).message).toContain(
      'hook later (@acme/hooks#sees) onDelete failed: timed out after 50ms',
    );
  });
});

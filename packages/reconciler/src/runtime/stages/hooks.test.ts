import type { KubeObject } from '@orkestra/registry';
import { createTemplateEngine } from '@orkestra/template';
import { ConditionReason, loadKatalogOrThrow } from '@orkestra/types';
import { describe, expect, it } from 'vitest';
import { failing, pending } from '../../hooks/hook-unit.js';
import type { HookInput } from '../../hooks/hook-unit.js';
import { hookUnits } from '../../hooks/table.js';
import { compileKatalog } from '../compile-katalog.js';
import type { PipelineHooks, RunContext } from '../reconcile-pipeline.js';
import { initialContext, runHooks } from './hooks.js';
import { newRunState } from './run-state.js';

const clock = { now: () => 1_000, setTimeout: () => ({}), clearTimeout: () => undefined };
const katalog = loadKatalogOrThrow({
  text: `
apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: t}
spec:
  crds:
    site:
      apiTypes: {group: a.example.com, version: v1, kind: Site, plural: sites}
`,
});
const crd = compileKatalog(katalog, { engine: createTemplateEngine({ clock }) }).crds.get('site');
if (crd == null) throw new Error('no crd');
const services = { crd, clock };
const ctx: RunContext = {
  reconcileId: 'r1',
  logger: {
    debug: () => undefined,
    info: () => undefined,
    warn: () => undefined,
    error: () => undefined,
  } as never,
  signal: new AbortController().signal,
};
const cr: KubeObject = {
  apiVersion: 'a.example.com/v1',
  kind: 'Site',
  metadata: { name: 's', namespace: 'web', uid: 'u1' },
  spec: { host: 'a' },
  status: { providers: { aws: { bucket: { outputs: { arn: 'arn:1' }, ready: true, message: 'ok' } } } },
};

describe('initialContext', () => {
  it('holds the CR fields, then each hook key in table order; providers as recorded in status', () => {
    const context = initialContext(cr);
    expect(Object.keys(context)).toEqual([
      'apiVersion',
      'kind',
      'metadata',
      'spec',
      'status',
      ...hookUnits.map((unit) => unit.key),
    ]);
    expect(context['git']).toEqual({});
    expect(context['providers']).toEqual({ aws: { bucket: { arn: 'arn:1', ready: true, message: 'ok' } } });
  });
});

describe('runHooks', () => {
  it('runs the context phase in table order, each slot seeing the values before it; an empty result is {}', async () => {
    const seen: string[] = [];
    const slots: PipelineHooks = {
      docker: (input: HookInput) => {
        seen.push(`docker saw git=${JSON.stringify(input.context['git'])}`);
        return { image: 'i' };
      },
      git: () => {
        seen.push('git');
        return { commit: 'c1' };
      },
      cross: () => {
        seen.push('cross');
        return undefined;
      },
      providers: () => {
        seen.push('providers');
        return { outputs: {} };
      },
    };
    const context = initialContext(cr);
    const state = newRunState();
    const outcome = await runHooks(services, slots, 'context', cr, context, ctx, state);
    expect(outcome).toBeUndefined();
    expect(seen).toEqual(['cross', 'git', 'docker saw git={"commit":"c1"}']);
    expect(context['cross']).toEqual({});
    expect(context['docker']).toEqual({ image: 'i' });
  });

  it('returns the first pending outcome and runs nothing after it', async () => {
    const after: string[] = [];
    const slots: PipelineHooks = {
      git: () => pending(ConditionReason.DockerBuildPending, 'wait', 60_000),
      docker: () => {
        after.push('docker');
        return {};
      },
    };
    const context = initialContext(cr);
    const outcome = await runHooks(services, slots, 'context', cr, context, ctx, newRunState());
    expect(outcome).toMatchObject({
      reason: ConditionReason.DockerBuildPending,
      message: 'wait',
      requeueAfterMs: 60_000,
    });
    expect(after).toEqual([]);
    expect(context['git']).toEqual({});
  });

  it('runs providers in the after-writes phase: outputs become the context, a re-queue is timed from now', async () => {
    const slots: PipelineHooks = {
      git: () => {
        throw new Error('not in this phase');
      },
      providers: () => ({ outputs: { aws: { bucket: { arn: 'arn:2' } } }, requeueAfterMs: 500 }),
    };
    const context = initialContext(cr);
    const state = newRunState();
    expect(await runHooks(services, slots, 'after-writes', cr, context, ctx, state)).toBeUndefined();
    expect(context['providers']).toEqual({ aws: { bucket: { arn: 'arn:2' } } });
    expect(state.requeueAt).toEqual([1_500]);
  });

  it('hands every slot the effects of the run', async () => {
    const state = newRunState();
    const slots: PipelineHooks = {
      git: (input: HookInput) => {
        input.effects.annotate('k', 'v');
        input.effects.requeueAt(42);
        input.effects.recordProviders({ p: {} });
        return {};
      },
    };
    await runHooks(services, slots, 'context', cr, initialContext(cr), ctx, state);
    expect([...state.annotations]).toEqual([['k', 'v']]);
    expect(state.requeueAt).toEqual([42]);
    expect(state.providers).toEqual({ p: {} });
  });
});

describe('the hook loop alone writes the context', () => {
  const run = async (hooks: PipelineHooks): Promise<{ context: Record<string, unknown>; error: unknown }> => {
    const context = initialContext(cr);
    let error: unknown;
    try {
      await runHooks(services, hooks, 'context', cr, context, ctx, newRunState());
    } catch (thrown) {
      error = thrown;
    }
    return { context, error };
  };

  it('a slot that writes its input context changes nothing; its returned value fills the key', async () => {
    const { context } = await run({
      git: (input: HookInput) => {
        (input.context as Record<string, unknown>)['docker'] = { stray: true };
        return { commit: 'c1' } as never;
      },
    });
    expect(context['docker']).toEqual({});
    expect(context['git']).toEqual({ commit: 'c1' });
  });

  it('a pending outcome shows the value it carries; a failing slot shows the value its error carries', async () => {
    const waiting = await run({
      docker: () => pending(ConditionReason.DockerBuildPending, 'wait', 5, { called: true, image: 'i' }),
    });
    expect(waiting.context['docker']).toEqual({ called: true, image: 'i' });
    const failed = await run({
      git: () => {
        throw failing(new Error('checkout failed'), { error: 'checkout failed' });
      },
    });
    expect((failed.error as Error).message).toBe('checkout failed');
    expect(failed.context['git']).toEqual({ error: 'checkout failed' });
  });
});

import { ProviderError } from '@orkestra/types';
import type { ProviderModule } from '@orkestra/types';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createSilentLogger, createTestRequest } from './create-test-request.js';
import { defineProvider } from './define-provider.js';
import { ProviderErrorCode } from './provider-error-code.js';
import { ProviderSchemaError } from './provider-schema-error.js';

const init = (config: unknown) => ({
  name: 'demo',
  config: config as never,
  logger: createSilentLogger(),
  signal: new AbortController().signal,
});

function demo(handler: (spec: { size: number; label: string }) => Promise<void> = async () => undefined) {
  const closed: string[] = [];
  const module = defineProvider({
    name: 'demo',
    configSchema: z.object({ prefix: z.string().default('p') }),
    setup: ({ config }) => ({ prefix: config.prefix }),
    close: async (state) => {
      closed.push(state.prefix);
    },
    translateError: (error) =>
      new ProviderError(`translated: ${String(error)}`, {
        code: 'Translated',
        retryable: false,
        cause: error,
      }),
    kinds: {
      thing: {
        schema: z.object({ size: z.number().int().min(1), label: z.string().default('x') }),
        outputs: ['name'],
        reconcile: async ({ spec, state }) => {
          await handler(spec);
          return { state: 'ready', outputs: { name: `${state.prefix}-${spec.label}-${spec.size}` } };
        },
        delete: async () => ({ state: 'deleted' }),
      },
    },
  });
  return { module, closed };
}

describe('defineProvider', () => {
  it('passes the parsed spec (defaults applied) and the setup state to the handler', async () => {
    const provider = await demo().module.createProvider(init({ prefix: 'q' }));
    const result = await provider.reconcile(createTestRequest({ kind: 'thing', spec: { size: 2 } }));
    expect(result).toEqual({ state: 'ready', outputs: { name: 'q-x-2' } });
    expect(provider.kinds['thing']?.outputs).toEqual(['name']);
  });

  it('builds a ProviderModule whose createProvider accepts the config as written (defaults omitted)', async () => {
    const module: ProviderModule<{ prefix: string }> = demo().module;
    const provider = await demo().module.createProvider({ ...init({}), config: {} });
    expect(module.configSchema?.parse({})).toEqual({ prefix: 'p' });
    expect(provider.name).toBe('demo');
  });

  it('rejects an invalid config with an InvalidConfig schema error naming the field', async () => {
    const error = await demo()
      .module.createProvider(init({ prefix: 3 }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderSchemaError);
    expect((error as ProviderSchemaError).code).toBe(ProviderErrorCode.InvalidConfig);
    expect((error as ProviderSchemaError).issues.map((i) => i.path)).toEqual(['prefix']);
  });

  it('rejects an invalid spec with a non-retryable InvalidSpec error naming the field and the source', async () => {
    const provider = await demo().module.createProvider(init({}));
    const error = await provider
      .reconcile(createTestRequest({ kind: 'thing', spec: { size: 0 }, source: 'x.providers.demo[2]' }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderSchemaError);
    const schemaError = error as ProviderSchemaError;
    expect(schemaError.retryable).toBe(false);
    expect(schemaError.code).toBe(ProviderErrorCode.InvalidSpec);
    expect(schemaError.message).toMatch(/thing declaration "thing" \(x\.providers\.demo\[2\]\): size: /);
  });

  it('rejects an unknown kind, including inherited property names', async () => {
    const provider = await demo().module.createProvider(init({}));
    for (const kind of ['nope', 'toString']) {
      const error = await provider.delete(createTestRequest({ kind, spec: {} })).catch((e: unknown) => e);
      expect((error as ProviderError).code).toBe(ProviderErrorCode.UnknownKind);
    }
  });

  it('does not call the handler when the signal already fired', async () => {
    let calls = 0;
    const provider = await demo(async () => {
      calls += 1;
    }).module.createProvider(init({}));
    const controller = new AbortController();
    controller.abort();
    const error = await provider
      .reconcile(createTestRequest({ kind: 'thing', spec: { size: 1 }, signal: controller.signal }))
      .catch((e: unknown) => e);
    expect((error as ProviderError).code).toBe(ProviderErrorCode.Aborted);
    expect((error as ProviderError).retryable).toBe(true);
    expect(calls).toBe(0);
  });

  it('settles with Aborted when the signal fires, even if the handler never does', async () => {
    const provider = await demo(() => new Promise<void>(() => undefined)).module.createProvider(init({}));
    const controller = new AbortController();
    const call = provider.reconcile(
      createTestRequest({ kind: 'thing', spec: { size: 1 }, signal: controller.signal }),
    );
    controller.abort(new Error('deadline'));
    await expect(call).rejects.toMatchObject({
      code: ProviderErrorCode.Aborted,
      retryable: true,
      message: expect.stringContaining('deadline') as unknown,
    });
  });

  it('passes ProviderErrors through and translates anything else', async () => {
    const own = new ProviderError('mine', { code: 'Mine', retryable: false });
    const throwsOwn = await demo(() => Promise.reject(own)).module.createProvider(init({}));
    await expect(throwsOwn.reconcile(createTestRequest({ kind: 'thing', spec: { size: 1 } }))).rejects.toBe(
      own,
    );
    const throwsOther = await demo(() => Promise.reject(new TypeError('sdk shape'))).module.createProvider(
      init({}),
    );
    await expect(
      throwsOther.reconcile(createTestRequest({ kind: 'thing', spec: { size: 1 } })),
    ).rejects.toMatchObject({ code: 'Translated' });
  });

  it('wraps untranslated errors as retryable Internal when no translator is given', async () => {
    const { createProvider } = defineProvider({
      name: 'bare',
      configSchema: z.object({}),
      kinds: {
        k: {
          schema: z.object({}),
          reconcile: () => Promise.reject(new Error('boom')),
          delete: async () => ({ state: 'deleted' }),
        },
      },
    });
    const provider = await createProvider(init({}));
    const error = (await provider
      .reconcile(createTestRequest({ kind: 'k', spec: {} }))
      .catch((e: unknown) => e)) as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect([error.code, error.retryable, (error.cause as Error).message]).toEqual([
      ProviderErrorCode.Internal,
      true,
      'boom',
    ]);
  });

  it('closes the state once however often close() is called', async () => {
    const { module, closed } = demo();
    const provider = await module.createProvider(init({ prefix: 'z' }));
    await provider.close?.();
    await provider.close?.();
    expect(closed).toEqual(['z']);
  });
});

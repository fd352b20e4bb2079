import type { ProviderInit, ProviderModule } from '@orkestra/types';
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { defineProvider } from './define-provider.js';
import type { KindDefinition } from './define-provider.js';

const Config = z.object({ region: z.string(), retries: z.number().default(3) });
const BucketSpec = z.object({ name: z.string(), versioned: z.boolean().default(false) });

describe('defineProvider inference', () => {
  it('infers each kind spec from its schema, with defaults applied', () => {
    defineProvider({
      name: 'aws',
      configSchema: Config,
      kinds: {
        bucket: {
          schema: BucketSpec,
          async reconcile({ spec }) {
            expectTypeOf(spec).toEqualTypeOf<{ name: string; versioned: boolean }>();
            return { state: 'ready' };
          },
          async delete({ spec }) {
            expectTypeOf(spec.versioned).toEqualTypeOf<boolean>();
            return { state: 'deleted' };
          },
        },
        queue: {
          schema: z.object({ fifo: z.literal(true) }),
          async reconcile({ spec }) {
            expectTypeOf(spec).toEqualTypeOf<{ fifo: true }>();
            return { state: 'ready' };
          },
          delete: async () => ({ state: 'deleted' }),
        },
      },
    });
  });

  it('passes the parsed config to setup and setup’s return type to every handler as state', () => {
    defineProvider({
      name: 'aws',
      configSchema: Config,
      setup: ({ config }) => {
        expectTypeOf(config).toEqualTypeOf<{ region: string; retries: number }>();
        return { client: { region: config.region }, calls: 0 };
      },
      kinds: {
        bucket: {
          schema: BucketSpec,
          async reconcile({ state }) {
            expectTypeOf(state).toEqualTypeOf<{ client: { region: string }; calls: number }>();
            return { state: 'ready' };
          },
          delete: async ({ state }) => {
            expectTypeOf(state.client.region).toBeString();
            return { state: 'deleted' };
          },
        },
      },
      close: async (state) => {
        expectTypeOf(state.calls).toBeNumber();
      },
    });
  });

  it('takes state from an async setup and is undefined without one', () => {
    defineProvider({
      name: 'x',
      configSchema: z.object({}),
      setup: async () => ({ pool: 1 as const }),
      kinds: {
        k: {
          schema: z.object({}),
          reconcile: async ({ state }) => {
            expectTypeOf(state).toEqualTypeOf<{ pool: 1 }>();
            return { state: 'ready' };
          },
          delete: async () => ({ state: 'deleted' }),
        },
      },
    });
    defineProvider({
      name: 'y',
      configSchema: z.object({}),
      kinds: {
        k: {
          schema: z.object({}),
          reconcile: async ({ state }) => {
            expectTypeOf(state).toEqualTypeOf<undefined>();
            return { state: 'ready' };
          },
          delete: async () => ({ state: 'deleted' }),
        },
      },
    });
  });

  it('types the module: config input for createProvider, output for the schema, and a ProviderModule', () => {
    const defined = defineProvider({ name: 'aws', configSchema: Config, kinds: {} });
    expectTypeOf(defined.createProvider)
      .parameter(0)
      .toEqualTypeOf<ProviderInit<{ region: string; retries?: number | undefined }>>();
    expectTypeOf<z.output<typeof defined.configSchema>>().toEqualTypeOf<{
      region: string;
      retries: number;
    }>();
    expectTypeOf(defined).toExtend<ProviderModule<{ region: string; retries: number }>>();
  });

  it('rejects handlers that return the wrong result and kinds without a delete', () => {
    defineProvider({
      name: 'bad',
      configSchema: z.object({}),
      kinds: {
        k: {
          schema: z.object({}),
          // @ts-expect-error -- 'done' is not a ProviderResult state
          reconcile: async () => ({ state: 'done' }),
          delete: async () => ({ state: 'deleted' }),
        },
      },
    });
    defineProvider({
      name: 'bad',
      configSchema: z.object({}),
      kinds: {
        // @ts-expect-error -- every kind needs delete
        k: { schema: z.object({}), reconcile: async () => ({ state: 'ready' }) },
      },
    });
  });

  it('accepts a kind written in its own file as KindDefinition<typeof Spec, State>', () => {
    interface State {
      readonly client: string;
    }
    const bucket: KindDefinition<typeof BucketSpec, State> = {
      schema: BucketSpec,
      reconcile: async ({ spec, state }) => ({
        state: 'ready',
        outputs: { arn: `${state.client}:${spec.name}` },
      }),
      delete: async () => ({ state: 'deleted' }),
    };
    defineProvider({
      name: 'aws',
      configSchema: Config,
      setup: ({ config }: ProviderInit<z.output<typeof Config>>): State => ({ client: config.region }),
      kinds: { bucket },
    });
  });
});

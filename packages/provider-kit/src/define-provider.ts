import { ProviderError } from '@orkestra/types';
import type {
  Provider,
  ProviderDeleteResult,
  ProviderInit,
  ProviderKind,
  ProviderRequest,
  ProviderResult,
} from '@orkestra/types';
import type { z } from 'zod';
import { raceAbort, throwIfAborted } from './abort.js';
import { ProviderErrorCode } from './provider-error-code.js';
import { ProviderSchemaError, schemaIssues } from './provider-schema-error.js';

/**
 * KindRequest is what a kind's handlers receive: the runtime's request, plus the parsed spec
 * (defaults applied) and the provider instance's state from `setup`.
 */
export interface KindRequest<Spec, State> extends ProviderRequest<Spec> {
  /** The declaration's spec, parsed by the kind's schema. */
  readonly spec: Spec;
  /** What `setup` returned for this provider instance (clients, pools). */
  readonly state: State;
}

/** KindDefinition is one declaration kind: its zod schema and its two idempotent handlers. */
export interface KindDefinition<Schema extends z.ZodType, State> {
  /** Validates the rendered spec; the reconciler and the kit both use it. */
  readonly schema: Schema;
  /** One sentence for `ork validate` and docs. */
  readonly description?: string;
  /** The output keys `reconcile` returns, for `ork validate`. */
  readonly outputs?: readonly string[];
  /** Creates or corrects the external thing; calling it again with the same spec changes nothing. */
  readonly reconcile: (request: KindRequest<z.output<Schema>, State>) => Promise<ProviderResult>;
  /** Deletes the external thing; deleting something absent returns `deleted`. */
  readonly delete: (request: KindRequest<z.output<Schema>, State>) => Promise<ProviderDeleteResult>;
}

/** ErrorTranslator turns whatever a handler threw (an SDK error) into a `ProviderError`. */
export type ErrorTranslator = (
  error: unknown,
  context: { readonly kind: string; readonly operation: 'reconcile' | 'delete' },
) => ProviderError;

/** DefineProviderOptions describes a provider for {@link defineProvider}. */
export interface DefineProviderOptions<
  ConfigSchema extends z.ZodType,
  State,
  Kinds extends Record<string, z.ZodType>,
> {
  /** The name the provider reports; the Katalog's provider block must use the same name. */
  readonly name: string;
  /** Validates `config`; exported as the module's `configSchema`. */
  readonly configSchema: ConfigSchema;
  /** Builds the per-instance state once (clients, connection pools). Default: no state. */
  readonly setup?: (init: ProviderInit<z.output<ConfigSchema>>) => State | Promise<State>;
  /** Releases the state; called once by `Provider.close()`. */
  readonly close?: (state: State) => Promise<void>;
  /** The kinds, by kind key (`s3`, `user`). */
  readonly kinds: { readonly [K in keyof Kinds]: KindDefinition<Kinds[K], State> };
  /**
   * Translates handler failures that are not already a `ProviderError`. Default: a retryable
   * `Internal` error with the original as `cause`. Errors after the request's signal fired always
   * become `Aborted`.
   */
  readonly translateError?: ErrorTranslator;
}

/**
 * DefinedProvider is the `ProviderModule` {@link defineProvider} builds (assignable to
 * `ProviderModule<Config>` whenever the parsed config is a valid input, as with defaults). Its config schema is
 * always present, and `createProvider` takes the config as written in the Katalog (the schema's
 * input: defaults may be omitted, `$NAME` strings are coerced) and parses it itself.
 */
export interface DefinedProvider<Config, Input = Config> {
  readonly configSchema: z.ZodType<Config, Input>;
  readonly createProvider: (init: ProviderInit<Input>) => Promise<Provider>;
}

/**
 * defineProvider builds a `ProviderModule` from per-kind handlers with typed specs. The
 * providers it creates validate every declaration again with the kind's schema (a mismatch is a
 * {@link ProviderSchemaError} naming the field), refuse an already-aborted signal, settle as soon
 * as the signal fires, and let only `ProviderError`s escape.
 *
 * Kinds written inline get their spec and state types inferred. When kinds live in their own
 * files as `KindDefinition<typeof Spec, State>`, annotate `setup`'s parameter and return type
 * (`setup: ({ config }: ProviderInit<Config>): State => …`) so TypeScript takes `State` from it.
 *
 * @example
 * export const { configSchema, createProvider } = defineProvider({
 *   name: 'hello',
 *   configSchema: z.object({ greeting: z.string().default('Hello') }),
 *   setup: ({ config }) => ({ greeting: config.greeting }),
 *   kinds: {
 *     greeting: {
 *       schema: z.object({ to: z.string().min(1) }),
 *       reconcile: async ({ spec, state }) => ({ state: 'ready', outputs: { text: `${state.greeting}, ${spec.to}` } }),
 *       delete: async () => ({ state: 'deleted' }),
 *     },
 *   },
 * });
 */
export function defineProvider<
  ConfigSchema extends z.ZodType,
  State = undefined,
  Kinds extends Record<string, z.ZodType> = Record<string, z.ZodType>,
>(
  options: DefineProviderOptions<ConfigSchema, State, Kinds>,
): DefinedProvider<z.output<ConfigSchema>, z.input<ConfigSchema>> {
  type Config = z.output<ConfigSchema>;
  type Input = z.input<ConfigSchema>;
  const kindEntries = Object.entries(options.kinds) as [string, KindDefinition<z.ZodType, State>][];

  const createProvider = async (init: ProviderInit<Input>): Promise<Provider> => {
    throwIfAborted(init.signal, `${options.name} provider start-up`);
    const parsed = options.configSchema.safeParse(init.config);
    if (!parsed.success) {
      throw new ProviderSchemaError({
        code: ProviderErrorCode.InvalidConfig,
        subject: `${options.name} provider config`,
        issues: schemaIssues(parsed.error),
        cause: parsed.error,
      });
    }
    const config = parsed.data as Config;
    const state = options.setup == null ? (undefined as State) : await options.setup({ ...init, config });
    const kinds: Record<string, ProviderKind> = {};
    for (const [key, kind] of kindEntries) {
      kinds[key] = {
        schema: kind.schema,
        ...(kind.description == null ? {} : { description: kind.description }),
        ...(kind.outputs == null ? {} : { outputs: kind.outputs }),
      };
    }
    let closed: Promise<void> | undefined;

    const call = async <R>(operation: 'reconcile' | 'delete', request: ProviderRequest): Promise<R> => {
      const { declaration } = request;
      const kind = options.kinds[declaration.kind] as KindDefinition<z.ZodType, State> | undefined;
      if (kind == null || !Object.hasOwn(options.kinds, declaration.kind)) {
        throw new ProviderError(
          `${options.name} provider has no kind "${declaration.kind}" (declaration "${declaration.name}" at ${declaration.source}); kinds: ${Object.keys(kinds).join(', ')}`,
          { code: ProviderErrorCode.UnknownKind, retryable: false },
        );
      }
      const spec = kind.schema.safeParse(declaration.spec);
      if (!spec.success) {
        throw new ProviderSchemaError({
          code: ProviderErrorCode.InvalidSpec,
          subject: `${declaration.kind} declaration "${declaration.name}" (${declaration.source})`,
          issues: schemaIssues(spec.error),
          cause: spec.error,
        });
      }
      const what = `${options.name} ${declaration.kind} ${operation} of "${declaration.name}"`;
      throwIfAborted(request.signal, what);
      const kindRequest: KindRequest<unknown, State> = {
        ...request,
        declaration: { ...declaration, spec: spec.data },
        spec: spec.data,
        state,
      };
      try {
        const work: Promise<unknown> =
          operation === 'reconcile' ? kind.reconcile(kindRequest) : kind.delete(kindRequest);
        return (await raceAbort(work, request.signal, what)) as R;
      } catch (error) {
        if (error instanceof ProviderError) throw error;
        if (request.signal.aborted) {
          throw new ProviderError(`${what} aborted: ${errorMessage(error)}`, {
            code: ProviderErrorCode.Aborted,
            retryable: true,
            cause: error,
          });
        }
        if (options.translateError != null)
          throw options.translateError(error, { kind: declaration.kind, operation });
        throw new ProviderError(`${what} failed: ${errorMessage(error)}`, {
          code: ProviderErrorCode.Internal,
          retryable: true,
          cause: error,
        });
      }
    };

    return {
      name: options.name,
      kinds,
      reconcile: async (request) => await call<ProviderResult>('reconcile', request),
      delete: async (request) => await call<ProviderDeleteResult>('delete', request),
      close: async () => {
        closed ??= options.close == null ? Promise.resolve() : options.close(state);
        await closed;
      },
    };
  };

  return { configSchema: options.configSchema as z.ZodType<Config, Input>, createProvider };
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

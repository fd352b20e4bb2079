/**
 * Scripted providers (docs/reference/runtime.md §14.6): the providers of the offline engine, whose
 * answers come from the given `providers.<provider>.<declaration>` results. The offline engine
 * runs the real provider dispatch over them; the parity test hands the same ones to the runtime.
 */
import type { JsonObject, Provider, ProviderKind } from '@orkestra/types';
import { ownValue } from '../hook-unit.js';

/** ProviderResultInput is one provider declaration's result as a render context or scenario gives it. */
export interface ProviderResultInput {
  /** Default true when the result is given. */
  readonly ready?: boolean;
  readonly message?: string;
  readonly outputs?: Readonly<Record<string, unknown>>;
}

/** ScriptedProvidersOptions configures createScriptedProviders. */
export interface ScriptedProvidersOptions {
  /** Provider names to answer (any other name is answered too, as always ready and deleted). */
  readonly names: Iterable<string>;
  /** The current results; read at every call. */
  readonly results: () => { readonly providers?: unknown };
  /** Called for every reconcile and delete call. Default: none. */
  readonly onCall?: (verb: 'reconcile' | 'delete', provider: string, declaration: string) => void;
  /** Called when a reconcile finds no result (the provider answers pending). Default: none. */
  readonly onMissing?: (provider: string, declaration: string) => void;
  /** The scripted failure of a declaration's delete (ADR 0116): its message, thrown as a provider's would be. Default: none fails. */
  readonly deleteFailure?: (provider: string, declaration: string) => string | undefined;
}

/**
 * createScriptedProviders returns providers whose answers come from `results().providers`: a given
 * result is `ready` (or `pending` with `ready: false`), a missing one is pending, every delete is
 * done at once unless its failure is scripted (`deleteFailure`). Every kind accepts any spec (the provider packages are not loaded). The offline
 * engine uses them; the parity test hands the same ones to the real runtime.
 */
export function createScriptedProviders(options: ScriptedProvidersOptions): ReadonlyMap<string, Provider> {
  const passThrough = {
    schema: { safeParse: (value: unknown) => ({ success: true, data: value }) },
  } as unknown as ProviderKind;
  const kinds = new Proxy({} as Record<string, ProviderKind>, { get: () => passThrough });
  /** deleted records a delete call and throws its scripted failure, if any. */
  const deleted = (provider: string, declaration: string): { state: 'deleted' } => {
    options.onCall?.('delete', provider, declaration);
    const failure = options.deleteFailure?.(provider, declaration);
    if (failure != null) throw new Error(failure);
    return { state: 'deleted' };
  };
  const providers = new ScriptedProviders([], kinds, deleted);
  for (const name of new Set(options.names)) {
    providers.set(name, {
      name,
      kinds,
      reconcile: async (request) => {
        const declaration = request.declaration.name;
        options.onCall?.('reconcile', name, declaration);
        const given = ownValue(ownValue(options.results().providers, name), declaration) as
          ProviderResultInput | undefined;
        if (given == null) {
          options.onMissing?.(name, declaration);
          return { state: 'pending', message: 'no result in the context (providers are not called offline)' };
        }
        const outputs = (given.outputs ?? {}) as JsonObject;
        return given.ready === false
          ? { state: 'pending', outputs, message: given.message ?? 'pending' }
          : { state: 'ready', outputs, ...(given.message == null ? {} : { message: given.message }) };
      },
      delete: async (request) => deleted(name, request.declaration.name),
    });
  }
  return providers;
}

/**
 * ScriptedProviders answers every provider name: one recorded in `status.providers` but no longer
 * declared is still deleted on the deletion path, as a loaded provider would be.
 */
class ScriptedProviders extends Map<string, Provider> {
  readonly #kinds: Readonly<Record<string, ProviderKind>>;
  readonly #onDelete: (provider: string, declaration: string) => { state: 'deleted' };

  constructor(
    entries: readonly (readonly [string, Provider])[],
    kinds: Readonly<Record<string, ProviderKind>>,
    onDelete: (provider: string, declaration: string) => { state: 'deleted' },
  ) {
    super(entries);
    this.#kinds = kinds;
    this.#onDelete = onDelete;
  }

  override get(name: string): Provider {
    return (
      super.get(name) ?? {
        name,
        kinds: this.#kinds,
        reconcile: async () => ({ state: 'ready' }),
        delete: async (request) => this.#onDelete(name, request.declaration.name),
      }
    );
  }
}

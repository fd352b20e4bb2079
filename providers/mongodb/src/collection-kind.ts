import type { KindDefinition } from '@orkestra/provider-kit';
import { ProviderError } from '@orkestra/types';
import { isDeepStrictEqual } from 'node:util';
import { CollectionSpec } from './mongo-specs.js';
import type { MongoState } from './mongo-state.js';

interface CollectionInfo {
  readonly name: string;
  readonly options?: {
    readonly validator?: unknown;
    readonly validationLevel?: string;
    readonly validationAction?: string;
  };
}

/**
 * collectionKind is the `collection` kind: creates the collection with its validator, and
 * corrects the validator, validation level and action with `collMod` when they drifted.
 * Outputs: `database`, `collection`.
 */
export const collectionKind: KindDefinition<typeof CollectionSpec, MongoState> = {
  schema: CollectionSpec,
  description: 'A collection, optionally with a JSON-schema validator.',
  outputs: ['database', 'collection'],
  async reconcile({ spec, state, signal }) {
    const target = `${spec.database}.${spec.name}`;
    const listed = await state.command(
      spec.database,
      { listCollections: 1, filter: { name: spec.name } },
      signal,
      target,
    );
    const current = ((listed['cursor'] as { firstBatch?: CollectionInfo[] } | undefined)?.firstBatch ??
      [])[0];
    const validation = {
      ...(spec.validator == null ? {} : { validator: spec.validator }),
      ...(spec.validationLevel == null ? {} : { validationLevel: spec.validationLevel }),
      ...(spec.validationAction == null ? {} : { validationAction: spec.validationAction }),
    };
    if (current == null) {
      try {
        await state.command(spec.database, { create: spec.name, ...validation }, signal, target);
      } catch (error) {
        if (!(error instanceof ProviderError && error.code === 'NamespaceExists')) throw error;
      }
    } else {
      const options = current.options ?? {};
      const validatorDrifted = !isDeepStrictEqual(options.validator ?? {}, spec.validator ?? {});
      const levelDrifted = spec.validationLevel != null && options.validationLevel !== spec.validationLevel;
      const actionDrifted =
        spec.validationAction != null && options.validationAction !== spec.validationAction;
      if (validatorDrifted || levelDrifted || actionDrifted) {
        await state.command(
          spec.database,
          { collMod: spec.name, validator: spec.validator ?? {}, ...validation },
          signal,
          target,
        );
      }
    }
    return { state: 'ready', outputs: { database: spec.database, collection: spec.name } };
  },
  async delete({ spec, state, signal }) {
    try {
      await state.command(spec.database, { drop: spec.name }, signal, `${spec.database}.${spec.name}`);
    } catch (error) {
      if (!(error instanceof ProviderError && error.code === 'NamespaceNotFound')) throw error;
    }
    return { state: 'deleted' };
  },
};

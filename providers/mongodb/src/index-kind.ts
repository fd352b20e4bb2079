import type { KindDefinition } from '@orkestra/provider-kit';
import { ProviderError } from '@orkestra/types';
import { indexName, IndexSpec } from './mongo-specs.js';

import type { MongoState } from './mongo-state.js';

interface IndexInfo {
  readonly name: string;
  readonly key: Readonly<Record<string, unknown>>;
  readonly unique?: boolean;
  readonly sparse?: boolean;
  readonly expireAfterSeconds?: number;
  readonly weights?: Readonly<Record<string, unknown>>;
}

/** sameIndex compares a listed index with the declaration: key order, text fields and options. */
export function sameIndex(current: IndexInfo, spec: IndexSpec): boolean {
  const textFields = Object.entries(spec.keys)
    .filter(([, d]) => d === 'text')
    .map(([f]) => f);
  const otherKeys = Object.entries(spec.keys).filter(([, d]) => d !== 'text');
  const keysMatch =
    textFields.length > 0
      ? current.key['_fts'] === 'text' && isSameSet(Object.keys(current.weights ?? {}), textFields)
      : JSON.stringify(Object.entries(current.key).map(([f, d]) => [f, Number(d)])) ===
        JSON.stringify(otherKeys);
  return (
    keysMatch &&
    (current.unique ?? false) === spec.unique &&
    (current.sparse ?? false) === spec.sparse &&
    current.expireAfterSeconds === spec.expireAfterSeconds
  );
}

function isSameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}

function isMissing(error: unknown): boolean {
  return (
    error instanceof ProviderError && (error.code === 'NamespaceNotFound' || error.code === 'IndexNotFound')
  );
}

/**
 * indexKind is the `index` kind: creates the index, and drops and recreates it when its keys or
 * options no longer match the declaration. Output: `indexName`.
 */
export const indexKind: KindDefinition<typeof IndexSpec, MongoState> = {
  schema: IndexSpec,
  description: 'An index (unique, sparse, TTL or text) on a collection.',
  outputs: ['indexName'],
  async reconcile({ spec, state, signal }) {
    const name = indexName(spec);
    const target = `${spec.database}.${spec.collection}`;
    let indexes: IndexInfo[] = [];
    try {
      const listed = await state.command(spec.database, { listIndexes: spec.collection }, signal, target);
      indexes = (listed['cursor'] as { firstBatch?: IndexInfo[] } | undefined)?.firstBatch ?? [];
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
    const current = indexes.find((i) => i.name === name);
    if (current != null && sameIndex(current, spec)) return { state: 'ready', outputs: { indexName: name } };
    if (current != null)
      await state.command(spec.database, { dropIndexes: spec.collection, index: name }, signal, target);
    const index = {
      key: spec.keys,
      name,
      ...(spec.unique ? { unique: true } : {}),
      ...(spec.sparse ? { sparse: true } : {}),
      ...(spec.expireAfterSeconds == null ? {} : { expireAfterSeconds: spec.expireAfterSeconds }),
    };
    await state.command(spec.database, { createIndexes: spec.collection, indexes: [index] }, signal, target);
    return { state: 'ready', outputs: { indexName: name } };
  },
  async delete({ spec, state, signal }) {
    try {
      await state.command(
        spec.database,
        { dropIndexes: spec.collection, index: indexName(spec) },
        signal,
        `${spec.database}.${spec.collection}`,
      );
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
    return { state: 'deleted' };
  },
};

/**
 * assembleEntry (docs/reference/runtime.md §7): the one place a CRD entry's pipeline is put
 * together — its namespace guard, its hook slots and its stores — for the runtime's controllers
 * (over the informer caches) and the offline engine (over a MemoryCluster) alike.
 */
import { createNamespaceGuard } from '../namespace-guard.js';
import type { NamespaceGuard } from '../namespace-guard.js';
import type { CompiledCrd } from './compile-katalog.js';
import { CrdPipeline } from './reconcile-pipeline.js';
import type { PipelineOptions } from './reconcile-pipeline.js';

/** EntryParts are what every entry's pipeline shares (the stores, engine, clock, events and hooks are per driver). */
export type EntryParts = Omit<PipelineOptions, 'crd' | 'guard' | 'revision'>;

/** entryGuard is an entry's namespace guard (its restricted and allowed namespaces). */
export function entryGuard(crd: CompiledCrd): NamespaceGuard {
  return createNamespaceGuard({
    restricted: crd.entry.restrictedNamespaces,
    allowed: crd.entry.allowedNamespaces,
  });
}

/**
 * assembleEntry builds the pipeline of one entry (at one Katalog revision).
 *
 * @example
 * const pipeline = assembleEntry(crd, { ...parts, hooks: katalogHooks.hooksFor(crd) }, { revision: 'r2' });
 */
export function assembleEntry(
  crd: CompiledCrd,
  parts: EntryParts,
  options: { readonly guard?: NamespaceGuard; readonly revision?: string | undefined } = {},
): CrdPipeline {
  return new CrdPipeline({
    ...parts,
    crd,
    guard: options.guard ?? entryGuard(crd),
    ...(options.revision == null ? {} : { revision: options.revision }),
  });
}

/**
 * The `cross` hook (docs/reference/katalog.md §15.2, docs/reference/runtime.md §14.2): step 9 reads
 * CRs of other entries — in process from their primary cache, or over HTTP from `endpoint` — and
 * adds `cross.<as>` to the template context. In-process reads are recorded in the reverse index,
 * so a change of a read CR re-queues its readers.
 */
import type { CompiledValue } from '@orkestra/template';
import { compileValue } from '@orkestra/template';
import { katalogPathOf, stringForm } from '@orkestra/types';
import type { CrossRead } from '@orkestra/types';
import { notFoundCrossResult, readCross } from '../cross.js';
import type { CrossReadRecord, CrossResult } from '../cross.js';
import {
  defineHook,
  contextValue,
  errorMessage,
  isRecord,
  keyOf,
  noMemory,
  ownValue,
  readerId,
} from '../hook-unit.js';

/** CompiledCross is one `cross` item: its selector (and `endpoint`) compiled. */
export interface CompiledCross {
  readonly declaration: CrossRead;
  readonly katalogPath: string;
  /** Renders `{name?, namespace?, matchLabels?}`. */
  readonly selector: CompiledValue;
  /** Renders the endpoint URL; undefined for in-process reads. */
  readonly endpoint: CompiledValue | undefined;
}

/** crossHook is the `cross` unit. */
export const crossHook = defineHook({
  key: 'cross',
  schema: 'operatorBox.cross[] — CrossRead in @orkestra/types (schema/hooks.ts)',
  reference: 'docs/reference/katalog.md §15.2',
  phase: 'context',
  label: { place: 'cross reads', reader: 'cross reads' },
  enqueuedBy: ['cross-readers'],
  compile: (entry, base, engine): readonly CompiledCross[] =>
    entry.operatorBox.cross.map((declaration, i): CompiledCross => {
      const katalogPath = katalogPathOf(declaration) ?? `${base}.operatorBox.cross[${i}]`;
      return {
        declaration,
        katalogPath,
        selector: compileValue(declaration.selector, { path: `${katalogPath}.selector`, engine }),
        endpoint:
          declaration.endpoint == null
            ? undefined
            : compileValue(declaration.endpoint, { path: `${katalogPath}.endpoint`, engine }),
      };
    }),
  declared: (compiled) => compiled.length > 0,
  initial: () => ({}),
  settle: contextValue,
  memory: noMemory,
  results: 'by-name',
  resultKeys: ['found', 'name', 'namespace', 'labels', 'annotations', 'spec', 'status', 'error'],
  // Offline, every read (in process or HTTP) is answered from `cross.<as>`; a missing one reads as not found.
  offline: (script) => ({
    crossResult: (as) => {
      const given = ownValue(script.given(), as);
      if (given == null) script.note(`cross.${as}: no result in the context; read as not found`);
      return { ...notFoundCrossResult(), ...(isRecord(given) ? given : {}) };
    },
    crossHttp: { read: async () => ({ result: notFoundCrossResult(), url: '' }) },
    crossReaders: { record: () => undefined, forget: () => undefined },
  }),
  forget: (services, _memory, reader) => services.crossReaders.forget(reader),
  run: async (services, _memory, compiled, input): Promise<Record<string, CrossResult>> => {
    const { crd, cr } = input;
    const namespace = nonEmpty(cr.metadata.namespace);
    const results: Record<string, CrossResult> = {};
    const records: CrossReadRecord[] = [];
    for (const item of compiled) {
      const as = item.declaration.as ?? item.declaration.crd;
      let selector: { name?: string; namespace?: string; matchLabels?: Record<string, string> };
      let endpoint: string | undefined;
      try {
        selector = stringSelector(item.selector.render(input.context));
        endpoint = item.endpoint == null ? undefined : stringForm(item.endpoint.render(input.context));
      } catch (error) {
        if (services.crossResult != null) {
          results[as] = services.crossResult(as);
          continue;
        }
        results[as] = notFoundCrossResult('', namespace ?? '', `${item.katalogPath}: ${errorMessage(error)}`);
        continue;
      }
      if (services.crossResult != null) {
        results[as] = services.crossResult(as);
        continue;
      }
      if (endpoint != null) {
        const read = await services.crossHttp.read(
          {
            crd: item.declaration.crd,
            endpoint,
            selector: {
              ...(selector.name == null ? {} : { name: selector.name }),
              ...(selector.namespace == null ? {} : { namespace: selector.namespace }),
            },
            ...(item.declaration.timeout == null ? {} : { timeout: item.declaration.timeout }),
            ...(item.declaration.cacheFor == null ? {} : { cacheFor: item.declaration.cacheFor }),
            // The operator's token goes only to an endpoint the Katalog wrote literally (docs/adr/0030).
            sendToken: item.endpoint?.isStatic === true,
          },
          { namespace, signal: input.signal },
        );
        results[as] = read.result;
        if (read.expiresAt != null) input.effects.requeueAt(read.expiresAt);
        continue;
      }
      const read = readCross(
        { crd: item.declaration.crd, selector, as },
        { lookup: services.lookup, namespace },
      );
      results[as] = read.result;
      records.push(read.record);
    }
    services.crossReaders.record(readerId(crd.name, keyOf(cr)), records);
    return results;
  },
});

/** stringSelector is a rendered selector with every value in string form (an empty namespace is absent). */
function stringSelector(value: unknown): {
  name?: string;
  namespace?: string;
  matchLabels?: Record<string, string>;
} {
  const raw = (value ?? {}) as { name?: unknown; namespace?: unknown; matchLabels?: Record<string, unknown> };
  const name = raw.name == null ? undefined : stringForm(raw.name);
  const namespace = raw.namespace == null ? undefined : stringForm(raw.namespace);
  return {
    ...(name == null ? {} : { name }),
    ...(namespace == null || namespace === '' ? {} : { namespace }),
    ...(raw.matchLabels == null
      ? {}
      : {
          matchLabels: Object.fromEntries(
            Object.entries(raw.matchLabels).map(([k, v]) => [k, stringForm(v)]),
          ),
        }),
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value == null || value === '' ? undefined : value;
}

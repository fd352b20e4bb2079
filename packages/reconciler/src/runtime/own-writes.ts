/**
 * readsOwnWrites decides whether a reconcile that wrote its CR (finalizer, status, annotations)
 * must run again to reach a fixed point (runtime.md §4; ADR 0011-write-waves).
 *
 * The runtime ignores the watch echoes of its own writes and, instead, re-enqueues a CR whose
 * status or metadata it changed, so status-driven state machines advance. That second reconcile
 * can only differ from the first when something the entry evaluates reads what was written: a
 * template or condition naming `status`, `annotations`, `finalizers`, `resourceVersion`,
 * `managedFields` or the whole `metadata`; or a declared hook with results of its own (the hook
 * table's `resultUnits`: results land in annotations, provider outputs are read back from
 * `status.providers`, a read or a call may answer differently). When
 * none of these applies, the reconcile that wrote the CR has already computed the fixed point,
 * and the re-run is skipped: one reconcile per new CR instead of two.
 *
 * The check is on the Katalog entry's text, so it errs towards re-running: a word in a
 * description counts too.
 */
import { resultUnits } from '../hooks/table.js';
import type { CompiledCrd } from './compile-katalog.js';

const OWN_WRITE_FIELDS = /\b(?:status|annotations|finalizers|resourceVersion|managedFields)\b/;
/** `metadata` not followed by `.name`, `.namespace`, `.uid`, `.labels` or `.generation`. */
const WHOLE_METADATA = /\bmetadata\b(?!\s*\.\s*(?:name|namespace|uid|labels|generation)\b)/;

/** readsOwnWrites tells whether the entry may evaluate differently after the runtime wrote its CR. */
export function readsOwnWrites(crd: Pick<CompiledCrd, 'entry' | 'hooks'>): boolean {
  const hooks = crd.hooks as Readonly<Record<string, unknown>>;
  if (resultUnits.some((unit) => unit.declared(hooks[unit.key]))) return true;
  const { schema: _schema, ...rest } = crd.entry as { schema?: unknown } & Record<string, unknown>;
  return someString(rest, (text) => OWN_WRITE_FIELDS.test(text) || WHOLE_METADATA.test(text));
}

function someString(value: unknown, test: (text: string) => boolean): boolean {
  if (typeof value === 'string') return test(value);
  if (Array.isArray(value)) return value.some((v) => someString(v, test));
  if (value != null && typeof value === 'object')
    return Object.values(value).some((v) => someString(v, test));
  return false;
}

import { resourceKindInfo } from '@orkestra/types';
import { NO_RULES } from '../compare.js';
import { ensureObject } from '../ensure.js';
import { Fields, templateError } from '../fields.js';
import type { KindModule } from '../kind-module.js';
import { childName, childNamespace, commonMetadata } from '../kind-module.js';
import type { KubeObject, ObjectRef } from '../kube-object.js';
import { removeObject } from '../remove.js';

/** Keys of a custom entry that configure the runtime and never reach the manifest (docs/reference/katalog.md §6). */
const RUNTIME_KEYS = new Set([
  'apiVersion',
  'kind',
  'metadata',
  'namespaced',
  'when',
  'anyOf',
  'or',
  'forEach',
  'reconcile',
  'forceConflict',
  'prune',
  'dependsOn',
  // Readiness and ordering keys (docs/adr/0009-synced-ready.md).
  'id',
  'readyWhen',
  'waitFor',
]);

/**
 * custom creates any kind, including other operators' CRDs: `apiVersion` and `kind` from the
 * entry, `metadata.name` (required), `metadata.namespace`, `metadata.labels`/`annotations`, and
 * every other top-level key copied as is. The scope comes from the entry's `namespaced`, else from
 * discovery (ResolveHints.namespaced). Compared literally: lists are atomic.
 */
export const custom: KindModule = {
  listKey: 'custom',
  apiVersion: undefined,
  kind: undefined,
  namespaced: undefined,
  wave: resourceKindInfo('custom').wave,
  defaultNameSuffix: undefined,
  createOnly: false,
  rules: NO_RULES,
  resolve(source, owner, hints = {}) {
    const fields = new Fields(source.entry, source.path);
    const apiVersion = fields.reqStr('apiVersion');
    const kind = fields.reqStr('kind');
    if (fields.has('status')) throw templateError(fields.at('status'), 'is not allowed');
    const namespaced = fields.bool('namespaced') ?? hints.namespaced;
    if (namespaced == null) {
      throw templateError(
        fields.path,
        `the scope of ${kind} (${apiVersion}) is unknown: pass ResolveHints.namespaced from discovery`,
      );
    }
    const meta = fields.obj('metadata') ?? new Fields({}, fields.at('metadata'));
    const name = childName(meta, owner, undefined, 253);
    const namespace = childNamespace(meta, owner, namespaced);
    const metadata = commonMetadata({
      fields,
      metaFields: meta,
      owner,
      name,
      namespace,
      sourcePath: source.path,
    });
    const body: Record<string, unknown> = {};
    for (const key of fields.keys()) if (!RUNTIME_KEYS.has(key)) body[key] = fields.raw(key);
    const manifest: KubeObject = { ...body, apiVersion, kind, metadata };
    const ref: ObjectRef =
      namespace == null ? { apiVersion, kind, name } : { apiVersion, kind, name, namespace };
    return { ref, manifest, createOnly: false };
  },
  ensure(manifest, options) {
    return ensureObject(manifest, options, NO_RULES);
  },
  remove(ref, options) {
    return removeObject(ref, options);
  },
};

import { isMap } from '../is-map.js';
import type { JsonPatchOp } from './json-patch.js';

/** applyJsonPatch applies add, replace and remove (RFC 6902) as an API server does; a missing parent throws. */
export function applyJsonPatch(target: unknown, ops: readonly JsonPatchOp[]): unknown {
  const doc = structuredClone(target) as Record<string, unknown>;
  for (const op of ops) {
    const parts = op.path
      .split('/')
      .slice(1)
      .map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~'));
    const last = parts.pop();
    let node: unknown = doc;
    for (const part of parts) node = isMap(node) ? node[part] : undefined;
    if (!isMap(node) || last == null) throw new Error(`no parent for ${op.path}`);
    if (op.op !== 'add' && !Object.hasOwn(node, last)) throw new Error(`nothing at ${op.path}`);
    if (op.op === 'remove') delete node[last];
    else node[last] = structuredClone(op.value);
  }
  return doc;
}

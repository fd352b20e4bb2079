/** PathSegment is one step of a path: a map key or a list index. */
export type PathSegment = string | number;

const INDEX = /^(?:0|[1-9]\d*)$/;

/**
 * getPath reads a dot path (`spec.ports.0.port`) from a value, as conditions and forEach do
 * (katalog.md §8.4 rule 2): a leading dot is ignored, a non-negative integer segment indexes a
 * list, and a missing key, an index out of range or a step through a non-container gives
 * `undefined`. Only own properties are read. An empty path (or `.`) returns the value itself.
 */
export function getPath(obj: unknown, path: string): unknown {
  const trimmed = path.startsWith('.') ? path.slice(1) : path;
  if (trimmed === '') return obj;
  let current: unknown = obj;
  for (const segment of trimmed.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    if (Array.isArray(current)) {
      if (!INDEX.test(segment)) return undefined;
      const index = Number(segment);
      if (index >= current.length) return undefined;
      current = current[index];
    } else {
      if (!Object.hasOwn(current, segment)) return undefined;
      current = (current as Record<string, unknown>)[segment];
    }
  }
  return current;
}

/**
 * stringForm gives the string form of a value (katalog.md §8.4 rule 3): absent and null → `""`,
 * strings as they are, numbers in shortest decimal form, booleans `true`/`false`, maps and lists
 * as compact JSON.
 */
export function stringForm(value: unknown): string {
  if (value == null) return '';
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
    case 'boolean':
    case 'bigint':
      return String(value);
    case 'object':
      try {
        return JSON.stringify(value) ?? '';
      } catch {
        return String(value);
      }
    default:
      return '';
  }
}

const IDENTIFIER = /^[A-Za-z_$][\w$-]*$/;

/**
 * formatPath renders path segments the way loader issues name fields:
 * `spec.crds.website.operatorBox.onReconcile.deployments[0].replicas`. Keys that are not plain
 * identifiers are quoted: `nodeSelector["topology.kubernetes.io/region"]`.
 */
export function formatPath(segments: readonly PathSegment[]): string {
  let out = '';
  for (const segment of segments) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (IDENTIFIER.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

/** PathSegment is one step of a path: a map key or a list index. */
export type PathSegment = string | number;

const INDEX = /^(?:0|[1-9]\d*)$/;

/**
 * getPath reads a dot path (`spec.ports.0.port`) from a value, as conditions and forEach do
 * (docs/reference/katalog.md §8.4 rule 2): a leading dot is ignored, a non-negative integer segment indexes a
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
 * numberForm prints a number in shortest decimal form (`3`, `2.5`, `1000000000000000000000`,
 * `0.0000001`), never in exponent notation; non-finite numbers print as `NaN`/`Infinity`.
 */
export function numberForm(value: number): string {
  const text = String(value);
  if (!Number.isFinite(value) || !/e/i.test(text)) return text;
  const match = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/i.exec(text);
  if (match == null) return text;
  const [, sign = '', lead = '', rest = '', exp = '0'] = match;
  const digits = lead + rest;
  const point = 1 + Number(exp);
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/**
 * stringForm gives the string form of a value (docs/reference/katalog.md §8.4 rule 3): absent and null → `""`,
 * strings as they are, numbers in shortest decimal form (never exponent notation, see
 * {@link numberForm}), booleans `true`/`false`, maps and lists as compact JSON. Conditions and
 * templates (`@orkestra/template`) share this one function.
 */
export function stringForm(value: unknown): string {
  if (value == null) return '';
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
      return numberForm(value);
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

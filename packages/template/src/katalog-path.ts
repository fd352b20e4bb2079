/**
 * Helpers for the two kinds of paths this package handles: Katalog paths in error messages
 * (`onReconcile.deployments[0].replicas`) and dot paths into the template context (section 8.4).
 */

const plainKey = /^[A-Za-z_$][\w$-]*$/;

/** joinPath extends a Katalog path by a map key (`.key`, or `["odd.key"]`) or a list index (`[0]`). */
export function joinPath(base: string | undefined, key: string | number): string {
  const prefix = base ?? '';
  if (typeof key === 'number') return `${prefix}[${key}]`;
  if (plainKey.test(key)) return prefix === '' ? key : `${prefix}.${key}`;
  return `${prefix}[${JSON.stringify(key)}]`;
}

/**
 * resolveDotPath reads a dot path (`spec.ports.0.port`; a leading dot is ignored) from a value. A
 * non-negative integer segment indexes a list; a missing key, an index out of range or a step
 * through a non-container yields `undefined`.
 */
export function resolveDotPath(root: unknown, path: string): unknown {
  const trimmed = path.startsWith('.') ? path.slice(1) : path;
  if (trimmed === '') return root;
  let value: unknown = root;
  for (const segment of trimmed.split('.')) {
    if (value == null || typeof value !== 'object') return undefined;
    if (Array.isArray(value)) {
      if (!/^\d+$/.test(segment)) return undefined;
      value = value[Number(segment)];
    } else {
      value = Object.hasOwn(value, segment) ? (value as Record<string, unknown>)[segment] : undefined;
    }
  }
  return value;
}

/** describeValue shows a value in an error message: JSON, shortened to 80 characters. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/**
 * Helpers for the two kinds of paths this package handles: Katalog paths in error messages
 * (`onReconcile.deployments[0].replicas`) and dot paths into the template context (section 8.4).
 */
import { formatPath, getPath } from '@orkestra/types';

/**
 * joinPath extends a Katalog path by a map key (`.key`, or `["odd.key"]`) or a list index (`[0]`),
 * quoting keys the way @orkestra/types' formatPath (and so the Katalog loader) does.
 */
export function joinPath(base: string | undefined, key: string | number): string {
  const prefix = base ?? '';
  const step = formatPath([key]);
  return prefix === '' || step.startsWith('[') ? `${prefix}${step}` : `${prefix}.${step}`;
}

/**
 * resolveDotPath reads a dot path (`spec.ports.0.port`; a leading dot is ignored) from a value. It
 * is @orkestra/types' getPath, so forEach fields and conditions resolve paths the same way
 * (section 8.4 rule 2): a non-negative integer segment (`0`, `12`; not `01`) indexes a list; a
 * missing key, an index out of range or a step through a non-container yields `undefined`.
 */
export function resolveDotPath(root: unknown, path: string): unknown {
  return getPath(root, path);
}

/** describeValue shows a value in an error message: JSON, shortened to 80 characters. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

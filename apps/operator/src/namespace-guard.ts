/** NamespaceGuard is an entry's `restrictedNamespaces` and `allowedNamespaces` (docs/reference/katalog.md §19). */
export interface NamespaceGuard {
  readonly restricted: readonly string[];
  readonly allowed: readonly string[];
}

function matches(namespace: string, pattern: string): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('*')) return namespace.startsWith(pattern.slice(0, -1));
  if (pattern.startsWith('*')) return namespace.endsWith(pattern.slice(1));
  return namespace === pattern;
}

/**
 * isBlockedNamespace tells whether a namespace is blocked: it matches a restricted pattern, or
 * allowed patterns exist and it matches none. Restricted always beats allowed.
 */
export function isBlockedNamespace(namespace: string, guard: NamespaceGuard): boolean {
  if (guard.restricted.some((p) => matches(namespace, p))) return true;
  return guard.allowed.length > 0 && !guard.allowed.some((p) => matches(namespace, p));
}

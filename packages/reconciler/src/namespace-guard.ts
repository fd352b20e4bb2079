/**
 * The namespace guard of docs/reference/katalog.md §19 and docs/reference/runtime.md §13: `restrictedNamespaces` and
 * `allowedNamespaces` patterns, compiled once.
 */

/** NamespaceGuardOptions are an entry's namespace patterns: exact names, `prefix*`, `*suffix` or `*`. */
export interface NamespaceGuardOptions {
  /** A namespace matching any of these is blocked, whatever `allowed` says. Default []. */
  readonly restricted?: readonly string[] | undefined;
  /** When non-empty, a namespace matching none of these is blocked. Default []. */
  readonly allowed?: readonly string[] | undefined;
}

/** NamespaceGuard decides whether the runtime may act in a namespace. */
export interface NamespaceGuard {
  /** False when the entry declares no patterns at all: nothing is ever blocked. */
  readonly active: boolean;
  /** The single namespace informers can be scoped to: set when `allowed` is one exact name (and it is not restricted). */
  readonly pinnedNamespace?: string;
  /** isBlocked tells whether a namespace is blocked (restricted beats allowed). */
  isBlocked(namespace: string): boolean;
  /** reason explains the decision for a namespace in one sentence, naming the pattern that decided. */
  reason(namespace: string): string;
}

interface CompiledPattern {
  readonly source: string;
  readonly matches: (namespace: string) => boolean;
}

/**
 * compileNamespacePattern turns one pattern into a matcher: `*` matches everything, `prefix*` and
 * `*suffix` match by prefix and suffix, anything else matches exactly. Throws a TypeError for a
 * pattern with a `*` anywhere else (e.g. `a*b`, `*x*`), which the Katalog format does not define.
 */
export function compileNamespacePattern(pattern: string): (namespace: string) => boolean {
  if (pattern === '*') return () => true;
  const stars = pattern.split('*').length - 1;
  if (stars === 0) return (namespace) => namespace === pattern;
  if (stars === 1 && pattern.endsWith('*')) {
    const prefix = pattern.slice(0, -1);
    return (namespace) => namespace.startsWith(prefix);
  }
  if (stars === 1 && pattern.startsWith('*')) {
    const suffix = pattern.slice(1);
    return (namespace) => namespace.endsWith(suffix);
  }
  throw new TypeError(
    `invalid namespace pattern ${JSON.stringify(pattern)}: expected an exact name, "prefix*", "*suffix" or "*"`,
  );
}

function compileAll(patterns: readonly string[]): readonly CompiledPattern[] {
  return patterns.map((source) => ({ source, matches: compileNamespacePattern(source) }));
}

/**
 * createNamespaceGuard compiles an entry's namespace patterns (docs/reference/katalog.md §19). A namespace is
 * blocked when it matches a restricted pattern, or when allowed patterns exist and it matches none.
 * Without any pattern the guard is inactive and blocks nothing. A single exact allowed pattern that
 * is not itself restricted gives `pinnedNamespace`, the one namespace to watch.
 *
 * @example
 * const guard = createNamespaceGuard({ restricted: ['kube-*', '*-system', 'default'], allowed: ['team-*'] });
 * guard.isBlocked('team-a'); // false
 * guard.isBlocked('kube-public'); // true
 * guard.reason('default'); // 'namespace "default" is restricted (matches "default")'
 */
export function createNamespaceGuard(options: NamespaceGuardOptions = {}): NamespaceGuard {
  const restricted = compileAll(options.restricted ?? []);
  const allowed = compileAll(options.allowed ?? []);
  const active = restricted.length > 0 || allowed.length > 0;

  const decide = (namespace: string): string | undefined => {
    const hit = restricted.find((pattern) => pattern.matches(namespace));
    if (hit != null)
      return `namespace ${JSON.stringify(namespace)} is restricted (matches ${JSON.stringify(hit.source)})`;
    if (allowed.length > 0 && !allowed.some((pattern) => pattern.matches(namespace))) {
      return `namespace ${JSON.stringify(namespace)} is not allowed (allowedNamespaces: ${allowed
        .map((pattern) => JSON.stringify(pattern.source))
        .join(', ')})`;
    }
    return undefined;
  };

  const single = allowed.length === 1 ? allowed[0]?.source : undefined;
  const pinned =
    single != null && !single.includes('*') && single !== '' && decide(single) == null ? single : undefined;

  return {
    active,
    ...(pinned == null ? {} : { pinnedNamespace: pinned }),
    isBlocked: (namespace) => active && decide(namespace) != null,
    reason: (namespace) => {
      if (!active) return `namespace ${JSON.stringify(namespace)} is allowed (no namespace guard)`;
      return decide(namespace) ?? `namespace ${JSON.stringify(namespace)} is allowed`;
    },
  };
}

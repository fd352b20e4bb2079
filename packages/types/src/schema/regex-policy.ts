/**
 * Whether a templated `regex` pattern (one built from CR data at run time) is allowed: the loader
 * installs the Katalog's `spec.allowTemplatedRegex` for the duration of one synchronous parse
 * (docs/reference/katalog.md §8.3, ADR 0028). Outside a parse, templated patterns are refused.
 */
let allowTemplated = false;

/** withTemplatedRegex runs `run` with templated regex patterns allowed or refused. */
export function withTemplatedRegex<T>(allow: boolean, run: () => T): T {
  const previous = allowTemplated;
  allowTemplated = allow;
  try {
    return run();
  } finally {
    allowTemplated = previous;
  }
}

/** templatedRegexAllowed tells whether the Katalog being parsed opted in to templated regex patterns. */
export function templatedRegexAllowed(): boolean {
  return allowTemplated;
}

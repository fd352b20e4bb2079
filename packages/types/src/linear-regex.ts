/**
 * Regular expressions from Katalogs and CRs (the `regex` operator of conditions, validation rules
 * and gates) run on a linear-time engine with RE2 semantics, never on V8's backtracking one, so no
 * pattern and no subject can stall the operator (docs/reference/katalog.md §8.3, ADR 0028). A
 * subject longer than REGEX_SUBJECT_LIMIT characters is not matched: the condition cannot be
 * evaluated, and says so.
 */
import { RE2JS } from 're2js';

/** REGEX_SUBJECT_LIMIT is the longest string (in UTF-16 code units) a pattern is run on: 4 KiB. */
export const REGEX_SUBJECT_LIMIT = 4096;

/** REGEX_PATTERN_LIMIT is the longest pattern compiled: 4 KiB. */
const REGEX_PATTERN_LIMIT = 4096;

/** LinearRegex is a compiled pattern; `test` is true when it matches any part of `subject`. */
export interface LinearRegex {
  readonly source: string;
  test(subject: string): boolean;
}

/** RegexError is a pattern the engine refuses (RE2 syntax: no lookaround, no backreferences) or a subject over the limit. */
class RegexError extends Error {
  override readonly name = 'RegexError';
  readonly code: 'InvalidRegex' | 'RegexSubjectTooLong';

  constructor(message: string, code: 'InvalidRegex' | 'RegexSubjectTooLong' = 'InvalidRegex') {
    super(message);
    this.code = code;
  }
}

/**
 * compileLinearRegex compiles a pattern in RE2 syntax, or throws a RegexError naming what RE2
 * cannot express (lookahead, lookbehind, backreferences, `\u` escapes: write `\x{41}`).
 *
 * @example
 * compileLinearRegex('^shop-\\w+$').test('shop-1'); // true
 */
export function compileLinearRegex(pattern: string): LinearRegex {
  if (pattern.length > REGEX_PATTERN_LIMIT)
    throw new RegexError(`the pattern is longer than ${REGEX_PATTERN_LIMIT} characters`);
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(pattern);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new RegexError(
      `${reason.replace(/^error parsing regexp: /, '')} (patterns use RE2 syntax, which runs in linear time: no lookahead, lookbehind or backreferences)`,
    );
  }
  return {
    source: pattern,
    test(subject: string): boolean {
      if (subject.length > REGEX_SUBJECT_LIMIT) {
        throw new RegexError(
          `the value is ${subject.length} characters long; a regex is run on at most ${REGEX_SUBJECT_LIMIT}`,
          'RegexSubjectTooLong',
        );
      }
      return compiled.test(subject);
    },
  };
}

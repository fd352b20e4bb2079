/**
 * Classifies one `ork` run of the fuzz scenario: a run is fine when it produced a result (exit 0
 * with output) or a clear error (exit 1 with messages); a crash when it threw out of `main`, used
 * another exit code, failed silently, reported `InternalError`, or printed what is evidently a
 * JavaScript runtime error rather than a message about the input; unclear when a message about the
 * input prints a value as `[object Object]`, or when it succeeds without printing anything.
 */

/** OrkOutcome is what one in-process `ork` run produced. */
export interface OrkOutcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** Set when `main` itself threw (it never should). */
  readonly thrown?: unknown;
}

/** JS_RUNTIME_ERRORS are message shapes of JavaScript engine errors: a bug, not an input error. */
const JS_RUNTIME_ERRORS: readonly RegExp[] = [
  /Cannot read propert(y|ies) of (undefined|null)/,
  /Cannot (set|destructure) propert/,
  /is not a function/,
  /is not iterable/,
  /is not a constructor/,
  /is not defined/,
  /Cannot convert (undefined|null|object|a Symbol)/,
  /Maximum call stack size exceeded/,
  /Invalid array length/,
  /Invalid string length/,
  /\bTypeError\b/,
  /\bReferenceError\b/,
  /\bRangeError\b/,
  /Ready=False InternalError/,
];

/** UNCLEAR_MESSAGES are message shapes that report an input error but print a value unreadably. */
const UNCLEAR_MESSAGES: readonly RegExp[] = [/\[object Object\]/];

/** Verdict says why an outcome is not fine: a crash (a bug) or an unclear message. */
export interface Verdict {
  readonly kind: 'crash' | 'unclear';
  readonly why: string;
}

/**
 * verdictOf returns why an outcome is a crash or an unclear error, or undefined when it is a
 * result or a clear error.
 */
export function verdictOf(outcome: OrkOutcome): Verdict | undefined {
  const crash = (why: string): Verdict => ({ kind: 'crash', why });
  if (outcome.thrown != null) {
    return crash(
      `main threw: ${outcome.thrown instanceof Error ? outcome.thrown.message : String(outcome.thrown)}`,
    );
  }
  if (outcome.code !== 0 && outcome.code !== 1) return crash(`exit code ${outcome.code}`);
  if (outcome.code === 1 && outcome.stderr.trim() === '') return crash('exit 1 without any message');
  if (outcome.code === 0 && outcome.stdout.trim() === '') {
    return { kind: 'unclear', why: 'exit 0 without any output or message' };
  }
  const lines = outcome.stderr.split('\n');
  for (const pattern of JS_RUNTIME_ERRORS) {
    const line = lines.find((l) => pattern.test(l));
    if (line != null) return crash(`runtime error: ${line.slice(0, 300)}`);
  }
  for (const pattern of UNCLEAR_MESSAGES) {
    const line = lines.find((l) => pattern.test(l));
    if (line != null) return { kind: 'unclear', why: line.slice(0, 300) };
  }
  return undefined;
}

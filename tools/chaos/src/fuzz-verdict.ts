/**
 * Classifies one `ork` run of the fuzz scenario: a run is fine when it produced a result (exit 0
 * with output) or a clear error (exit 1 with messages); a crash when an error of an engine class
 * (TypeError, RangeError, …) was caught anywhere (by class and stack, from the CLI's
 * caught-error channel, not from the printed text), when it threw out of `main`, used
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
  /** Errors `ork` caught and printed as messages (CAUGHT_ERROR_CHANNEL), with their class and stack. */
  readonly caught?: readonly { readonly error: unknown; readonly where: string }[];
}

/** ENGINE_ERRORS are the classes of errors the JavaScript engine throws on a bug (never about the input). */
export const ENGINE_ERRORS: readonly (new (...args: never[]) => Error)[] = [
  TypeError,
  RangeError,
  ReferenceError,
  EvalError,
  URIError,
];

/** topFrameOf returns the first stack frame of an error (`at fn (file:line:col)`), or `no stack`. */
function topFrameOf(error: Error): string {
  const frame = (error.stack ?? '').split('\n').find((line) => /^\s+at /.test(line));
  return frame == null
    ? 'no stack'
    : frame.trim().replace(/\(file:\/\/[^)]*\/(?=(apps|packages|tools)\/)/, '(');
}

/** engineErrorOf returns the first caught or thrown error of an engine class, or undefined. */
function engineErrorOf(outcome: OrkOutcome): { error: Error; where: string } | undefined {
  const all = [
    ...(outcome.thrown == null ? [] : [{ error: outcome.thrown, where: 'main threw' }]),
    ...(outcome.caught ?? []),
  ];
  for (const { error, where } of all) {
    if (error instanceof Error && ENGINE_ERRORS.some((cls) => error instanceof cls)) return { error, where };
  }
  return undefined;
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
  // By class and stack: an engine error caught anywhere is a crash, whatever was printed.
  const engine = engineErrorOf(outcome);
  if (engine != null) {
    return crash(
      `${engine.error.name} caught (${engine.where}) ${topFrameOf(engine.error)}: ${engine.error.message}`,
    );
  }
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

/**
 * TestenvErrorCode names why a test server could not be had.
 *
 * - `BinaryNotFound`: no executable in `TEST_ASSET_*`, `KUBEBUILDER_ASSETS` or the build cache.
 * - `StartFailed`: the process exited or never became ready; the message ends with its log.
 * - `RequestFailed`: a request to a started server failed (metrics, reset, namespace setup).
 * - `InvalidArgument`: a helper was given input it cannot use (e.g. a kubeconfig without a current context).
 */
export const TestenvErrorCode = {
  BinaryNotFound: 'BinaryNotFound',
  StartFailed: 'StartFailed',
  RequestFailed: 'RequestFailed',
  InvalidArgument: 'InvalidArgument',
} as const;
export type TestenvErrorCode = (typeof TestenvErrorCode)[keyof typeof TestenvErrorCode];

/** TestenvErrorOptions carries the code and the optional cause of a {@link TestenvError}. */
export interface TestenvErrorOptions {
  /** Why the server could not be had. */
  readonly code: TestenvErrorCode;
  /** The underlying error, if any. */
  readonly cause?: unknown;
}

/**
 * TestenvError reports a test server that could not be found, started or reached. Its `code`
 * tells a missing binary (which a local run may skip) from a real failure.
 */
export class TestenvError extends Error {
  override readonly name = 'TestenvError';
  readonly code: TestenvErrorCode;

  constructor(message: string, options: TestenvErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = options.code;
  }
}

/** isTestenvError tells whether `error` is a {@link TestenvError}, optionally with `code`. */
export function isTestenvError(error: unknown, code?: TestenvErrorCode): error is TestenvError {
  return error instanceof TestenvError && (code == null || error.code === code);
}

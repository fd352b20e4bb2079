import { ProviderErrorCode } from '@orkestra/provider-kit';
import { ProviderError } from '@orkestra/types';

/** MongoErrorContext says which command failed on what, for the message. */
export interface MongoErrorContext {
  readonly operation: string;
  /** `database`, `database.collection` or `user@database`. */
  readonly target?: string;
}

/** Server error codes that retrying cannot fix. */
const terminalCodes = new Set([
  2, // BadValue
  9, // FailedToParse
  13, // Unauthorized
  14, // TypeMismatch
  18, // AuthenticationFailed
  20, // IllegalOperation
  31, // RoleNotFound
  40, // ConflictingUpdateOperators
  59, // CommandNotFound
  67, // CannotCreateIndex
  72, // InvalidOptions
  73, // InvalidNamespace
  85, // IndexOptionsConflict
  86, // IndexKeySpecsConflict
  115, // CommandNotSupported
  121, // DocumentValidationFailure
  166, // CommandNotSupportedOnView
  197, // InvalidIndexSpecificationOption
  238, // NotImplemented (FerretDB)
  11000, // DuplicateKey
  51003, // UserAlreadyExists
]);

/** Driver error classes that mean "the server could not be reached or was busy". */
const transientNames = new Set([
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoServerSelectionError',
  'MongoTopologyClosedError',
  'MongoPoolClearedError',
  'MongoOperationTimeoutError',
  'MongoWaitQueueTimeoutError',
]);

/** Driver error classes for mistakes in the configuration or the request. */
const terminalNames = new Set([
  'MongoParseError',
  'MongoInvalidArgumentError',
  'MongoMissingCredentialsError',
  'MongoAPIError',
]);

interface MongoErrorShape {
  readonly name?: unknown;
  readonly message?: unknown;
  readonly code?: unknown;
  readonly codeName?: unknown;
  readonly hasErrorLabel?: (label: string) => boolean;
}

/**
 * translateMongoError turns a `mongodb` driver error into a `ProviderError`: `code` is the
 * server's `codeName` (e.g. `AuthenticationFailed`) or the driver's class name, and `retryable`
 * is true for network, server selection and transient server errors, false for bad requests,
 * authentication and features the server does not implement.
 */
export function translateMongoError(error: unknown, context: MongoErrorContext): ProviderError {
  if (error instanceof ProviderError) return error;
  const shape = (typeof error === 'object' && error != null ? error : {}) as MongoErrorShape;
  const name = typeof shape.name === 'string' ? shape.name : 'Error';
  const numeric = typeof shape.code === 'number' ? shape.code : undefined;
  const codeName = typeof shape.codeName === 'string' && shape.codeName !== '' ? shape.codeName : undefined;
  const labelled =
    typeof shape.hasErrorLabel === 'function' &&
    (shape.hasErrorLabel('RetryableWriteError') || shape.hasErrorLabel('TransientTransactionError'));
  const retryable =
    transientNames.has(name) || labelled
      ? true
      : terminalNames.has(name) || (numeric != null && terminalCodes.has(numeric))
        ? false
        : true;
  const code =
    codeName ??
    (name === 'Error' || name === 'MongoServerError'
      ? numeric == null
        ? ProviderErrorCode.Internal
        : `MongoError${numeric}`
      : name);
  const message = typeof shape.message === 'string' ? shape.message : String(error);
  const on = context.target == null ? '' : ` on ${context.target}`;
  const hint =
    numeric === 18
      ? ' (check the credentials in the provider uri)'
      : numeric === 238 || numeric === 59 || numeric === 115
        ? ' (the server does not support this)'
        : '';
  return new ProviderError(
    `MongoDB ${context.operation}${on} failed: ${code}${numeric == null ? '' : ` (${numeric})`}: ${message}${hint}`,
    {
      code,
      retryable,
      cause: error,
    },
  );
}

import { ProviderErrorCode } from '@orkestra/provider-kit';
import { ProviderError } from '@orkestra/types';

/** AwsErrorContext says which call failed, for the message. */
export interface AwsErrorContext {
  /** The SDK operation, e.g. `CreateBucket`. */
  readonly operation: string;
  readonly bucket?: string;
}

interface SdkErrorShape {
  readonly name?: unknown;
  readonly code?: unknown;
  readonly message?: unknown;
  readonly $fault?: unknown;
  readonly $retryable?: unknown;
  readonly $metadata?: { readonly httpStatusCode?: unknown };
}

/** Codes that retrying cannot fix: a wrong name, a taken name, wrong credentials, a bad request. */
const terminal = new Set([
  'InvalidBucketName',
  'BucketAlreadyExists',
  'AccessDenied',
  'AllAccessDisabled',
  'InvalidAccessKeyId',
  'InvalidClientTokenId',
  'SignatureDoesNotMatch',
  'InvalidToken',
  'ExpiredToken',
  'TokenRefreshRequired',
  'CredentialsProviderError',
  'IllegalLocationConstraintException',
  'InvalidLocationConstraint',
  'InvalidArgument',
  'InvalidRequest',
  'MalformedXML',
  'InvalidTag',
  'KMS.NotFoundException',
  'PermanentRedirect',
  'AuthorizationHeaderMalformed',
  'Forbidden',
  'BadRequest',
]);

/** Codes that mean "try again later", whatever the status code says. */
const transient = new Set([
  'SlowDown',
  'Throttling',
  'ThrottlingException',
  'RequestTimeout',
  'RequestTimeTooSkewed',
  'ServiceUnavailable',
  'InternalError',
  'OperationAborted',
  'TimeoutError',
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EPIPE',
]);

const credentialCodes = new Set([
  'InvalidAccessKeyId',
  'InvalidClientTokenId',
  'SignatureDoesNotMatch',
  'InvalidToken',
  'ExpiredToken',
  'CredentialsProviderError',
  'AuthorizationHeaderMalformed',
  'Forbidden',
  'AccessDenied',
]);

/** Codes for bodiless responses (HEAD requests), by HTTP status. */
const byStatus: Readonly<Record<number, string>> = {
  301: 'PermanentRedirect',
  400: 'BadRequest',
  403: 'Forbidden',
  404: 'NotFound',
};

/**
 * awsErrorCode reads the error code of an SDK (or Node network) error: `NoSuchBucket`,
 * `ECONNREFUSED`, … A bodiless error response (HeadBucket) is named after its status: `Forbidden`.
 */
export function awsErrorCode(error: unknown): string {
  const shape = (typeof error === 'object' && error != null ? error : {}) as SdkErrorShape;
  if (typeof shape.code === 'string' && /^E[A-Z]+$/.test(shape.code)) return shape.code;
  const named =
    typeof shape.name === 'string' && shape.name !== 'Error' && shape.name !== 'Unknown'
      ? shape.name
      : undefined;
  if (named != null) return named;
  if (typeof shape.code === 'string') return shape.code;
  const status = shape.$metadata?.httpStatusCode;
  return (typeof status === 'number' ? byStatus[status] : undefined) ?? 'Unknown';
}

/**
 * translateAwsError turns an AWS SDK v3 error (or a Node network error) into a `ProviderError`
 * whose `code` is the S3 error code and whose `retryable` says whether waiting can help:
 * throttling, 5xx and network failures are retryable; names, credentials and bad requests are
 * not. Nothing outside the provider sees the SDK's error shape (it stays as `cause`).
 */
export function translateAwsError(error: unknown, context: AwsErrorContext): ProviderError {
  if (error instanceof ProviderError) return error;
  const shape = (typeof error === 'object' && error != null ? error : {}) as SdkErrorShape;
  const code = awsErrorCode(error);
  const status =
    typeof shape.$metadata?.httpStatusCode === 'number' ? shape.$metadata.httpStatusCode : undefined;
  const retryable = terminal.has(code)
    ? false
    : transient.has(code) ||
      shape.$retryable != null ||
      shape.$fault === 'server' ||
      status == null ||
      status >= 500 ||
      status === 429;
  const message = typeof shape.message === 'string' ? shape.message : '';
  const detail = message !== '' && message !== code && message !== 'UnknownError' ? `: ${message}` : '';
  const on = context.bucket == null ? '' : ` on bucket "${context.bucket}"`;
  const hint = credentialCodes.has(code)
    ? ' (check the credentials and their permissions: credentialsSecret, the config accessKeyId/secretAccessKey, or the default chain)'
    : code === 'InvalidBucketName'
      ? ' (bucket names: 3-63 lowercase letters, digits, "." and "-")'
      : '';
  const statusText = status == null ? '' : ` (HTTP ${status})`;
  return new ProviderError(`S3 ${context.operation}${on} failed: ${code}${statusText}${detail}${hint}`, {
    code: code === 'Unknown' ? ProviderErrorCode.Internal : code,
    retryable,
    cause: error,
  });
}

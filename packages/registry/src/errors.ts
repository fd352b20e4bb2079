import type { ObjectRef } from './kube-object.js';
import { formatRef } from './kube-object.js';

/**
 * KubeErrorCode is the closed set of API failure classes, taken from the `reason` of the API
 * server's Status object (falling back to the HTTP status code), never from its message.
 */
export const KubeErrorCode = {
  NotFound: 'NotFound',
  AlreadyExists: 'AlreadyExists',
  Conflict: 'Conflict',
  Forbidden: 'Forbidden',
  Unauthorized: 'Unauthorized',
  Invalid: 'Invalid',
  BadRequest: 'BadRequest',
  Gone: 'Gone',
  TooManyRequests: 'TooManyRequests',
  Timeout: 'Timeout',
  ServerError: 'ServerError',
  Unknown: 'Unknown',
} as const;
export type KubeErrorCode = (typeof KubeErrorCode)[keyof typeof KubeErrorCode];

/** StatusCause is one item of a Status object's `details.causes`: which field failed and why. */
export interface StatusCause {
  readonly field?: string;
  readonly reason?: string;
  readonly message?: string;
}

/** KubeApiErrorOptions describes one failed API call. */
export interface KubeApiErrorOptions {
  readonly code: KubeErrorCode;
  /** HTTP status code, 0 when no response arrived (timeout, connection error). */
  readonly status: number;
  readonly verb: string;
  readonly ref?: ObjectRef;
  readonly message: string;
  readonly causes?: readonly StatusCause[];
  /** Seconds from a `Retry-After` header or `details.retryAfterSeconds`. */
  readonly retryAfterSeconds?: number;
  readonly cause?: unknown;
}

/**
 * KubeApiError is a failed Kubernetes API call with a typed `code`; `causes` carries the
 * field-level causes of the server's Status object (for Invalid, the offending field paths).
 */
export class KubeApiError extends Error {
  override readonly name: string = 'KubeApiError';
  readonly code: KubeErrorCode;
  readonly status: number;
  readonly verb: string;
  readonly ref: ObjectRef | undefined;
  readonly causes: readonly StatusCause[];
  readonly retryAfterSeconds: number | undefined;
  /** True when retrying the same request later may succeed (429, 5xx, timeouts, 409 conflicts). */
  readonly retryable: boolean;

  constructor(options: KubeApiErrorOptions) {
    const where = options.ref == null ? '' : ` ${formatRef(options.ref)}`;
    super(
      `${options.verb}${where}: ${options.message}`,
      options.cause == null ? undefined : { cause: options.cause },
    );
    this.code = options.code;
    this.status = options.status;
    this.verb = options.verb;
    this.ref = options.ref;
    this.causes = options.causes ?? [];
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.retryable = isRetryableCode(options.code);
  }

  /** fields lists the field paths named by the server's causes (e.g. `spec.ports[0].port`). */
  get fields(): readonly string[] {
    return this.causes.flatMap((c) => (c.field == null || c.field === '' ? [] : [c.field]));
  }
}

/** NotFoundError is a 404 (`reason: NotFound`). */
export class NotFoundError extends KubeApiError {
  override readonly name = 'NotFoundError';
}
/** AlreadyExistsError is a 409 on create (`reason: AlreadyExists`). */
export class AlreadyExistsError extends KubeApiError {
  override readonly name = 'AlreadyExistsError';
}
/** ConflictError is a 409 (`reason: Conflict`): a field-manager conflict or a failed precondition. */
export class ConflictError extends KubeApiError {
  override readonly name = 'ConflictError';
}
/** ForbiddenError is a 403 (`reason: Forbidden`), usually missing RBAC. */
export class ForbiddenError extends KubeApiError {
  override readonly name = 'ForbiddenError';
}
/** InvalidError is a 422 (`reason: Invalid`); `causes`/`fields` name the rejected fields. */
export class InvalidError extends KubeApiError {
  override readonly name = 'InvalidError';
}

function isRetryableCode(code: KubeErrorCode): boolean {
  return (
    code === KubeErrorCode.Conflict ||
    code === KubeErrorCode.TooManyRequests ||
    code === KubeErrorCode.Timeout ||
    code === KubeErrorCode.ServerError ||
    code === KubeErrorCode.Unknown
  );
}

/** kubeErrorCodeOf picks the code from a Status `reason` when it is one we know, else from the HTTP status. */
export function kubeErrorCodeOf(status: number, reason: string | undefined): KubeErrorCode {
  switch (reason) {
    case 'NotFound':
      return KubeErrorCode.NotFound;
    case 'AlreadyExists':
      return KubeErrorCode.AlreadyExists;
    case 'Conflict':
      return KubeErrorCode.Conflict;
    case 'Forbidden':
      return KubeErrorCode.Forbidden;
    case 'Unauthorized':
      return KubeErrorCode.Unauthorized;
    case 'Invalid':
      return KubeErrorCode.Invalid;
    case 'BadRequest':
      return KubeErrorCode.BadRequest;
    case 'Gone':
    case 'Expired':
      return KubeErrorCode.Gone;
    case 'TooManyRequests':
      return KubeErrorCode.TooManyRequests;
    case 'Timeout':
    case 'ServerTimeout':
      return KubeErrorCode.Timeout;
    case 'InternalError':
    case 'ServiceUnavailable':
      return KubeErrorCode.ServerError;
    default:
      break;
  }
  if (status === 404) return KubeErrorCode.NotFound;
  if (status === 409) return KubeErrorCode.Conflict;
  if (status === 403) return KubeErrorCode.Forbidden;
  if (status === 401) return KubeErrorCode.Unauthorized;
  if (status === 422) return KubeErrorCode.Invalid;
  if (status === 400) return KubeErrorCode.BadRequest;
  if (status === 410) return KubeErrorCode.Gone;
  if (status === 429) return KubeErrorCode.TooManyRequests;
  if (status === 504) return KubeErrorCode.Timeout;
  if (status >= 500) return KubeErrorCode.ServerError;
  return KubeErrorCode.Unknown;
}

/** createKubeApiError builds the most specific KubeApiError subclass for a code. */
export function createKubeApiError(options: KubeApiErrorOptions): KubeApiError {
  switch (options.code) {
    case KubeErrorCode.NotFound:
      return new NotFoundError(options);
    case KubeErrorCode.AlreadyExists:
      return new AlreadyExistsError(options);
    case KubeErrorCode.Conflict:
      return new ConflictError(options);
    case KubeErrorCode.Forbidden:
      return new ForbiddenError(options);
    case KubeErrorCode.Invalid:
      return new InvalidError(options);
    default:
      return new KubeApiError(options);
  }
}

/**
 * RegistryErrorCode lists the reasons this package reports for its own failures; the values are
 * the runtime's condition reasons (runtime.md §8).
 */
export const RegistryErrorCode = {
  TemplateError: 'TemplateError',
  ChildOwnedByOther: 'ChildOwnedByOther',
  ApplyFailed: 'ApplyFailed',
} as const;
export type RegistryErrorCode = (typeof RegistryErrorCode)[keyof typeof RegistryErrorCode];

/**
 * RegistryError is a failure decided by this package rather than the API server: a field that
 * cannot be coerced, a missing required field (`TemplateError`, with the Katalog path), or a child
 * that belongs to another CR (`ChildOwnedByOther`).
 */
export class RegistryError extends Error {
  override readonly name = 'RegistryError';
  readonly code: RegistryErrorCode;
  readonly katalogPath: string | undefined;
  readonly retryable: boolean;

  constructor(
    code: RegistryErrorCode,
    message: string,
    options: { katalogPath?: string; cause?: unknown } = {},
  ) {
    super(
      options.katalogPath == null ? message : `${options.katalogPath}: ${message}`,
      options.cause == null ? undefined : { cause: options.cause },
    );
    this.code = code;
    this.katalogPath = options.katalogPath;
    this.retryable = code === RegistryErrorCode.TemplateError;
  }
}

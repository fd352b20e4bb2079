import { ConditionReason, OrkestraError } from '@orkestra/types';
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
/** KubeErrorCode is one API failure class. */
export type KubeErrorCode = (typeof KubeErrorCode)[keyof typeof KubeErrorCode];

/** StatusCause is one item of a Status object's `details.causes`: which field failed and why. */
export interface StatusCause {
  readonly field?: string;
  readonly reason?: string;
  readonly message?: string;
}

/** KubeApiErrorOptions describes one failed API call. */
export interface KubeApiErrorOptions {
  /** The failure class, from the Status `reason`. Default: derived from `status` (kubeErrorCodeOf). */
  readonly reason?: KubeErrorCode;
  /**
   * The failure class under its first name; `reason` wins when both are given.
   *
   * @deprecated Use `reason`: the error's own `code` is now its condition reason (OrkestraError).
   */
  readonly code?: KubeErrorCode;
  /** HTTP status code, 0 when no response arrived (timeout, connection error). */
  readonly status: number;
  /** The request verb (`get`, `list`, `create`, `apply`, `patch`, `delete`, `discovery`). */
  readonly verb: string;
  readonly ref?: ObjectRef;
  readonly message: string;
  readonly causes?: readonly StatusCause[];
  /** Seconds from a `Retry-After` header or `details.retryAfterSeconds`. */
  readonly retryAfterSeconds?: number;
  readonly cause?: unknown;
}

/**
 * KubeApiError is a failed Kubernetes API call. It is an OrkestraError whose `code` is the
 * condition reason the reconciler reports (docs/reference/runtime.md §9.5): `ApplyConflict` for a 409 conflict of
 * a server-side apply, `PruneFailed` for a delete, `ApplyFailed` for everything else (terminal for
 * 400 and 422, retried otherwise). `reason` is the API failure class (NotFound, Invalid, …) and
 * `causes` the field-level causes of the server's Status object.
 */
export class KubeApiError extends OrkestraError {
  override readonly name: string = 'KubeApiError';
  /** The API failure class, taken from the Status `reason` (falling back to the HTTP status). */
  readonly reason: KubeErrorCode;
  /** HTTP status code, 0 when no response arrived. */
  readonly status: number;
  /** The request verb. */
  readonly verb: string;
  /** The object the request was about, when it named one. */
  readonly ref: ObjectRef | undefined;
  /** The field-level causes of the server's Status object. */
  readonly causes: readonly StatusCause[];
  /** Seconds the server asked to wait before retrying (429, some 5xx). */
  readonly retryAfterSeconds: number | undefined;

  constructor(options: KubeApiErrorOptions) {
    const where = options.ref == null ? '' : ` ${formatRef(options.ref)}`;
    const reason = options.reason ?? options.code ?? kubeErrorCodeOf(options.status, undefined);
    const code = conditionReasonOf(options.verb, reason);
    super(`${options.verb}${where}: ${options.message}`, {
      code,
      retryable: !(code === ConditionReason.ApplyFailed && isRejectedRequest(options.status, reason)),
      ...(options.cause == null ? {} : { cause: options.cause }),
    });
    this.reason = reason;
    this.status = options.status;
    this.verb = options.verb;
    this.ref = options.ref;
    this.causes = options.causes ?? [];
    this.retryAfterSeconds = options.retryAfterSeconds;
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
/**
 * ConflictError is a 409 (`reason: Conflict`): a field-manager conflict (code `ApplyConflict` for a
 * server-side apply) or a failed precondition.
 */
export class ConflictError extends KubeApiError {
  override readonly name = 'ConflictError';
}
/** ForbiddenError is a 403 (`reason: Forbidden`), usually missing RBAC; retried (docs/reference/runtime.md §9.5). */
export class ForbiddenError extends KubeApiError {
  override readonly name = 'ForbiddenError';
}
/** InvalidError is a 422 (`reason: Invalid`); `causes`/`fields` name the rejected fields. Not retried. */
export class InvalidError extends KubeApiError {
  override readonly name = 'InvalidError';
}

/**
 * conditionReasonOf maps a failed request to the condition reason it is reported with: a conflict
 * of a server-side apply is `ApplyConflict`, a failed delete `PruneFailed`, anything else (writes,
 * and the reads a write needs) `ApplyFailed`.
 */
function conditionReasonOf(verb: string, reason: KubeErrorCode): ConditionReason {
  if (verb === 'delete') return ConditionReason.PruneFailed;
  if (verb === 'apply' && reason === KubeErrorCode.Conflict) return ConditionReason.ApplyConflict;
  return ConditionReason.ApplyFailed;
}

/** A 400 or 422 is the server rejecting the request itself: sending it again cannot help. */
function isRejectedRequest(status: number, reason: KubeErrorCode): boolean {
  return (
    status === 400 ||
    status === 422 ||
    reason === KubeErrorCode.BadRequest ||
    reason === KubeErrorCode.Invalid
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
  switch (options.reason ?? options.code ?? kubeErrorCodeOf(options.status, undefined)) {
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
 * the runtime's condition reasons (docs/reference/runtime.md §8).
 */
export const RegistryErrorCode = {
  TemplateError: ConditionReason.TemplateError,
  ChildOwnedByOther: ConditionReason.ChildOwnedByOther,
  ChildConflict: ConditionReason.ChildConflict,
  ApplyFailed: ConditionReason.ApplyFailed,
} as const;
/** RegistryErrorCode is one of the condition reasons a RegistryError carries. */
export type RegistryErrorCode = (typeof RegistryErrorCode)[keyof typeof RegistryErrorCode];

/**
 * RegistryError is a failure decided by this package rather than the API server: a field that
 * cannot be coerced, a missing required field (`TemplateError`, with the Katalog path; retried),
 * or a child that belongs to another CR (`ChildOwnedByOther`; terminal). It is an OrkestraError
 * whose `code` is the condition reason and whose `retryable` follows that reason's retry class.
 */
export class RegistryError extends OrkestraError {
  override readonly name = 'RegistryError';
  declare readonly code: RegistryErrorCode;

  constructor(
    code: RegistryErrorCode,
    message: string,
    options: { katalogPath?: string; cause?: unknown } = {},
  ) {
    super(options.katalogPath == null ? message : `${options.katalogPath}: ${message}`, {
      code,
      ...(options.katalogPath == null ? {} : { katalogPath: options.katalogPath }),
      ...(options.cause == null ? {} : { cause: options.cause }),
    });
  }
}

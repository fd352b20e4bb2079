import { ConditionReason, reasonRetryClass } from './conditions.js';

/** OrkestraErrorOptions configures an OrkestraError. */
export interface OrkestraErrorOptions {
  /** The reason written on the CR. */
  readonly code: ConditionReason;
  /** Whether a retry can help. Default: true unless the reason's class is `terminal`. */
  readonly retryable?: boolean;
  /** Where in the Katalog the failing thing is declared, e.g. `website.operatorBox.onReconcile.deployments[0]`. */
  readonly katalogPath?: string;
  /** The underlying error (ES2022 `cause`). */
  readonly cause?: unknown;
}

/**
 * OrkestraError is the base of every error the runtime throws on purpose: a `code` that is the
 * CR's condition reason, a `retryable` flag, and optionally the Katalog path it concerns.
 */
export class OrkestraError extends Error {
  override readonly name: string = 'OrkestraError';
  /** The condition reason this error is reported with. */
  readonly code: ConditionReason;
  /** False for terminal failures: the work queue does not retry them. */
  readonly retryable: boolean;
  /** Where in the Katalog the failing thing is declared. */
  readonly katalogPath?: string;

  constructor(message: string, options: OrkestraErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = options.code;
    this.retryable = options.retryable ?? reasonRetryClass[options.code] !== 'terminal';
    if (options.katalogPath != null) this.katalogPath = options.katalogPath;
  }
}

/** TerminalError is an OrkestraError that is never retried; the CR is evaluated again on its next change or at resync. */
export class TerminalError extends OrkestraError {
  override readonly name: string = 'TerminalError';

  constructor(message: string, options: Omit<OrkestraErrorOptions, 'retryable'>) {
    super(message, { ...options, retryable: false });
  }
}

/**
 * ProviderError is thrown by providers to report a failure of the external system
 * (docs/reference/runtime.md §14.7). `code` is the provider's own code (e.g. `NoSuchBucket`);
 * `retryable: false` makes the failure terminal (`ProviderFailed`).
 */
export class ProviderError extends Error {
  override readonly name: string = 'ProviderError';
  /** The provider's own error code. */
  readonly code: string;
  /** False when retrying cannot help. */
  readonly retryable: boolean;

  constructor(message: string, options: { code: string; retryable: boolean; cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = options.code;
    this.retryable = options.retryable;
  }
}

/** KatalogIssue is one positioned problem found while loading a Katalog. Lines and columns are 1-based. */
export interface KatalogIssue {
  /** The file name given to the loader (`<inline>` for text without a file name). */
  readonly file: string;
  readonly line: number;
  readonly column: number;
  /** Field path from the document root, e.g. `spec.crds.website.operatorBox.onReconcile.deployments[0].replicas`; `""` for the document. */
  readonly path: string;
  readonly message: string;
}

/** formatKatalogIssue renders an issue as `file:line:column path: message`. */
export function formatKatalogIssue(issue: KatalogIssue): string {
  const where = `${issue.file}:${issue.line}:${issue.column}`;
  return issue.path === '' ? `${where} ${issue.message}` : `${where} ${issue.path}: ${issue.message}`;
}

/** KatalogError carries every issue found while loading a Katalog; thrown only by `loadKatalogOrThrow`. */
export class KatalogError extends OrkestraError {
  override readonly name: string = 'KatalogError';
  /** Every issue, in document order. */
  readonly issues: readonly KatalogIssue[];

  constructor(issues: readonly KatalogIssue[], options: { cause?: unknown } = {}) {
    const shown = issues.slice(0, 20).map(formatKatalogIssue);
    const more = issues.length > 20 ? `\n… and ${issues.length - 20} more` : '';
    super(
      `invalid Katalog (${issues.length} ${issues.length === 1 ? 'error' : 'errors'}):\n${shown.join('\n')}${more}`,
      {
        code: ConditionReason.KatalogInvalid,
        retryable: false,
        ...(options.cause === undefined ? {} : { cause: options.cause }),
      },
    );
    this.issues = Object.freeze([...issues]);
  }
}

/** DurationError reports text that is not a duration (docs/reference/katalog.md §1); code `TemplateError`, not retryable. */
export class DurationError extends OrkestraError {
  override readonly name: string = 'DurationError';
  /** The rejected input. */
  readonly input: unknown;

  constructor(input: unknown, options: { katalogPath?: string } = {}) {
    super(
      `invalid duration ${JSON.stringify(input) ?? String(input)}: expected <number><unit> pairs with units ms, s, m, h, d, w, mo, y (e.g. "30s", "1h30m", "1.5d") or 0`,
      {
        code: ConditionReason.TemplateError,
        retryable: false,
        ...(options.katalogPath == null ? {} : { katalogPath: options.katalogPath }),
      },
    );
    this.input = input;
  }
}

/**
 * toOrkestraError normalizes anything thrown into an OrkestraError: OrkestraErrors are returned as
 * they are, a ProviderError becomes `ProviderFailed` (keeping its `retryable`), anything else
 * becomes a retryable `InternalError` with the original as `cause`.
 */
export function toOrkestraError(error: unknown, options: { katalogPath?: string } = {}): OrkestraError {
  if (error instanceof OrkestraError) return error;
  const path = options.katalogPath == null ? {} : { katalogPath: options.katalogPath };
  if (error instanceof ProviderError) {
    return new OrkestraError(`${error.code}: ${error.message}`, {
      code: ConditionReason.ProviderFailed,
      retryable: error.retryable,
      cause: error,
      ...path,
    });
  }
  const message =
    error instanceof Error ? error.message : typeof error === 'string' ? error : describe(error);
  return new OrkestraError(message, {
    code: ConditionReason.InternalError,
    retryable: true,
    cause: error,
    ...path,
  });
}

function describe(value: unknown): string {
  try {
    return `non-error thrown: ${JSON.stringify(value) ?? String(value)}`;
  } catch {
    return `non-error thrown: ${String(value)}`;
  }
}

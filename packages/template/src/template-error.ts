import { ConditionReason, OrkestraError } from '@orkestra/types';

/** TemplateErrorOptions describes where a template error happened. */
export interface TemplateErrorOptions {
  /** Katalog path of the field holding the template, e.g. `website.operatorBox.onReconcile.deployments[0].replicas`. */
  readonly katalogPath?: string | undefined;
  /** 1-based line within the template string (compile errors only). */
  readonly line?: number | undefined;
  /** 1-based column within the template string (compile errors only). */
  readonly column?: number | undefined;
  /** A suggested rewrite, e.g. for a Go-template construct. */
  readonly suggestion?: string | undefined;
  /** The underlying error. */
  readonly cause?: unknown;
}

function locate(detail: string, options: TemplateErrorOptions): string {
  let message = detail;
  if (options.column != null) {
    message +=
      options.line != null && options.line > 1
        ? ` (line ${options.line}, column ${options.column})`
        : ` (column ${options.column})`;
  }
  if (options.suggestion != null) message += `; write ${options.suggestion}`;
  return options.katalogPath != null && options.katalogPath !== ''
    ? `${options.katalogPath}: ${message}`
    : message;
}

/**
 * TemplateError reports a template that does not compile (load time) or fails to render, coerce or
 * normalize (run time). It is an `OrkestraError` with code `TemplateError` (retry policy from
 * @orkestra/types) and the Katalog path in `katalogPath`.
 */
export class TemplateError extends OrkestraError {
  override readonly name: string = 'TemplateError';
  /** The error without the Katalog path and position. */
  readonly detail: string;
  readonly line: number | undefined;
  readonly column: number | undefined;
  readonly suggestion: string | undefined;

  constructor(detail: string, options: TemplateErrorOptions = {}) {
    super(locate(detail, options), {
      code: ConditionReason.TemplateError,
      ...(options.katalogPath == null ? {} : { katalogPath: options.katalogPath }),
      ...(options.cause === undefined ? {} : { cause: options.cause }),
    });
    this.detail = detail;
    this.line = options.line;
    this.column = options.column;
    this.suggestion = options.suggestion;
  }

  /** withPath returns the same error located at a Katalog path (used when a cached compile is reused). */
  withPath(katalogPath: string | undefined): TemplateError {
    if (katalogPath === this.katalogPath) return this;
    return new TemplateError(this.detail, {
      katalogPath,
      line: this.line,
      column: this.column,
      suggestion: this.suggestion,
      cause: this.cause,
    });
  }
}

/** isTemplateError tells whether a value is a {@link TemplateError}. */
export function isTemplateError(value: unknown): value is TemplateError {
  return value instanceof TemplateError;
}

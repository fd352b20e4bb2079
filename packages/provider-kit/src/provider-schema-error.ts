import { ProviderError } from '@orkestra/types';
import type { ZodError } from 'zod';
import type { ProviderErrorCode } from './provider-error-code.js';

/** SchemaIssue is one field that failed validation: a dot path (`roles[0].db`, `""` for the root) and a message. */
export interface SchemaIssue {
  readonly path: string;
  readonly message: string;
}

/** ProviderSchemaErrorOptions configures a ProviderSchemaError. */
export interface ProviderSchemaErrorOptions {
  /** `InvalidSpec` for a declaration, `InvalidConfig` for the provider's config. */
  readonly code: typeof ProviderErrorCode.InvalidSpec | typeof ProviderErrorCode.InvalidConfig;
  /** What was being validated, e.g. `s3 declaration "assets" (website.operatorBox.providers.aws[0])`. */
  readonly subject: string;
  readonly issues: readonly SchemaIssue[];
  readonly cause?: unknown;
}

/**
 * ProviderSchemaError is the typed, never-retryable `ProviderError` for a declaration or config
 * that does not match its schema. Its message names every failing field; `issues` lists them.
 */
export class ProviderSchemaError extends ProviderError {
  override readonly name: string = 'ProviderSchemaError';
  /** Every failing field, in the schema's order. */
  readonly issues: readonly SchemaIssue[];

  constructor(options: ProviderSchemaErrorOptions) {
    const fields = options.issues.map((i) => (i.path === '' ? i.message : `${i.path}: ${i.message}`));
    super(`invalid ${options.subject}: ${fields.join('; ')}`, {
      code: options.code,
      retryable: false,
      ...(options.cause === undefined ? {} : { cause: options.cause }),
    });
    this.issues = Object.freeze([...options.issues]);
  }
}

/** schemaIssues turns a zod error into dot-path issues (`tags.team`, `roles[0].db`). */
export function schemaIssues(error: ZodError): SchemaIssue[] {
  return error.issues.map((issue) => ({ path: formatPath(issue.path), message: issue.message }));
}

/** formatPath renders a zod issue path as a dot path with `[n]` for array indices. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}

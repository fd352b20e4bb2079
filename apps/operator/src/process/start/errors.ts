/** OperatorStartError is a failure before the operator runs: the Katalog, providers, connection or CRDs. */
export class OperatorStartError extends Error {
  override readonly name = 'OperatorStartError';
  readonly code = 'OperatorStartFailed';
  /** One line per problem (e.g. every Katalog error with file:line:col). */
  readonly details: readonly string[];

  constructor(message: string, details: readonly string[] = [], options?: ErrorOptions) {
    super(message, options);
    this.details = details;
  }
}

/** errorMessage is an error's message, or the thrown value as text. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

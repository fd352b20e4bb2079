import type { Logger } from '@orkestra/types';
import type { DestinationStream } from 'pino';
import { createRedactingLogger } from '@orkestra/reconciler';
import type { LogLevel } from './config.js';

// The redaction itself lives in @orkestra/reconciler, so the library's default logger (a
// createKatalogRuntime without `logger`) redacts exactly as the operator does.
export { REDACTED } from '@orkestra/reconciler';

/** CreateLoggerOptions configures createLogger. */
export interface CreateLoggerOptions {
  /** The Katalog's `metadata.name`, written as `katalog` on every line. */
  readonly katalogName: string;
  /** Minimum level. Default `info`. */
  readonly level?: LogLevel;
  /** Where JSON lines go. Default stdout (pino's default destination). */
  readonly destination?: DestinationStream;
}

/** OperatorLogger is the operator's Logger plus what the process needs around it. */
export interface OperatorLogger extends Logger {
  /** flush writes buffered lines (call before exiting). */
  flush(): void;
}

/**
 * createLogger builds the operator's pino logger (docs/reference/runtime.md §18.3): JSON lines with `time`, `level`
 * as a label, `msg` and `katalog` on every line, errors under `err` (`type`, `message`, `code`; `stack` only at debug), and secrets
 * redacted at any depth (credential keys, credentials in URLs).
 *
 * @example
 * const logger = createLogger({ katalogName: 'shop', level: 'debug' });
 * logger.child({ controller: 'website' }).info({ durationMs: 12 }, 'reconciled');
 */
export function createLogger(options: CreateLoggerOptions): OperatorLogger {
  return createRedactingLogger({
    level: options.level ?? 'info',
    base: { katalog: options.katalogName },
    ...(options.destination == null ? {} : { destination: options.destination }),
  });
}

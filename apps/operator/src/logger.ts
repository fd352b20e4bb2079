import type { Logger } from '@orkestra/types';
import { pino } from 'pino';
import type { DestinationStream, LoggerOptions } from 'pino';
import type { LogLevel } from './config.js';

/** REDACTED is what a redacted value is replaced with in log lines. */
export const REDACTED = '[REDACTED]';

/** Keys whose values are credentials wherever they appear. */
const SECRET_KEYS = [
  'password',
  'passwd',
  'token',
  'accessToken',
  'refreshToken',
  'bearerToken',
  'idToken',
  'authorization',
  'Authorization',
  'cookie',
  'secretAccessKey',
  'sessionToken',
  'clientSecret',
  'privateKey',
  'apiKey',
] as const;

/** Keys whose whole value is secret material: Secret `data`/`stringData` (ConfigMap data cannot be told apart cheaply, so it is hidden too). */
const SECRET_CONTAINERS = ['data', 'stringData'] as const;

const DEPTH = 4;

function atEveryDepth(key: string): string[] {
  return Array.from({ length: DEPTH }, (_, depth) => `${'*.'.repeat(depth)}${key}`);
}

/**
 * LOG_REDACT_PATHS are the pino redaction paths the operator logger uses (docs/reference/runtime.md §18.3): credential
 * keys (`password`, `token`, `authorization`, `secretAccessKey`, …) and Secret `data`/`stringData` at the
 * first four levels, and every value of a provider's `config` (its keys stay visible).
 */
export const LOG_REDACT_PATHS: readonly string[] = [
  ...SECRET_KEYS.flatMap(atEveryDepth),
  ...SECRET_CONTAINERS.flatMap(atEveryDepth),
  'config.*',
  '*.config.*',
  '*.*.config.*',
  '*.*.*.config.*',
];

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
 * redacted (LOG_REDACT_PATHS).
 *
 * @example
 * const logger = createLogger({ katalogName: 'shop', level: 'debug' });
 * logger.child({ controller: 'website' }).info({ durationMs: 12 }, 'reconciled');
 */
export function createLogger(options: CreateLoggerOptions): OperatorLogger {
  let debugEnabled = (): boolean => false;
  const settings: LoggerOptions = {
    level: options.level ?? 'info',
    base: { katalog: options.katalogName },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    redact: { paths: [...LOG_REDACT_PATHS], censor: REDACTED },
    serializers: {
      err: (error: Error) => {
        const { stack, ...rest } = pino.stdSerializers.err(error);
        return debugEnabled() ? { ...rest, stack } : rest;
      },
    },
  };
  const base = options.destination == null ? pino(settings) : pino(settings, options.destination);
  debugEnabled = () => base.isLevelEnabled('debug');
  const logger: OperatorLogger = base;
  return logger;
}

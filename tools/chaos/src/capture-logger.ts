/**
 * The operator's own logger (`createLogger` of @orkestra/operator, with its redaction) writing into
 * memory, so scenarios can count warnings and search every line for secret values.
 */
import { createLogger } from '@orkestra/operator';
import type { LogLevel, OperatorLogger } from '@orkestra/operator';

/** CapturedLog is a logger and the JSON lines it wrote. */
export interface CapturedLog {
  readonly logger: OperatorLogger;
  /** Every line written so far, in order. */
  readonly lines: readonly string[];
  /** countAtLevel counts the lines with this `level` label. */
  countAtLevel(level: LogLevel): number;
}

/** CaptureLoggerOptions configures {@link captureLogger}. */
export interface CaptureLoggerOptions {
  readonly katalogName: string;
  /** Minimum level. Default `warn`. */
  readonly level?: LogLevel;
  /** Also echo each line to stderr (e.g. with ORKESTRA_CHAOS_LOG set). Default false. */
  readonly echo?: boolean;
}

/**
 * captureLogger returns the operator's logger writing JSON lines into memory.
 *
 * @example
 * const log = captureLogger({ katalogName: 'shop', level: 'debug' });
 * createKatalogRuntime({ katalog, kubeConfig, logger: log.logger });
 */
export function captureLogger(options: CaptureLoggerOptions): CapturedLog {
  const lines: string[] = [];
  const logger = createLogger({
    katalogName: options.katalogName,
    level: options.level ?? 'warn',
    destination: {
      write(line: string) {
        lines.push(line);
        if (options.echo === true) process.stderr.write(line);
      },
    },
  });
  return {
    logger,
    lines,
    countAtLevel: (level) =>
      lines.filter((line) => (JSON.parse(line) as { level?: string }).level === level).length,
  };
}

import { parseArgs } from 'node:util';
import type { ParseArgsConfig } from 'node:util';

/** CliOutput is where a command writes text: a stream or an in-memory capture in tests. */
export interface CliOutput {
  write(chunk: string): unknown;
}

/** CliIo is everything a command may touch besides files: its output streams, environment and working directory. */
export interface CliIo {
  readonly stdout: CliOutput;
  readonly stderr: CliOutput;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Relative paths in arguments are resolved against this directory. */
  readonly cwd: string;
}

/** ExitCode is the closed set of exit codes `ork` uses. */
export const ExitCode = {
  /** The command did what it was asked. */
  Ok: 0,
  /** The input is invalid or the work failed (errors on stderr). */
  Failed: 1,
  /** The command line itself is wrong (usage on stderr). */
  Usage: 2,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/**
 * Command is one `ork` sub-command. Each lives in its own file under `src/commands/` and is listed
 * once in `src/commands/index.ts`; `run`, `dev` and `demo` plug in the same way.
 */
export interface Command {
  /** The word after `ork`, e.g. `validate`. */
  readonly name: string;
  /** One line for `ork --help`. */
  readonly summary: string;
  /** The full usage text, printed by `ork <name> --help` and after a usage error. */
  readonly usage: string;
  /** run executes the command with the arguments after its name and returns the exit code. */
  run(args: readonly string[], io: CliIo): Promise<number>;
}

/** UsageError is a wrong command line: the CLI prints its message and the command's usage, and exits 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  readonly code = 'UsageError';
}

/** CommandArgs is the result of parseCommandArgs: option values by name and positionals. */
export interface CommandArgs<T extends NonNullable<ParseArgsConfig['options']>> {
  readonly values: ReturnType<
    typeof parseArgs<{ options: T; allowPositionals: true; strict: true }>
  >['values'];
  readonly positionals: readonly string[];
  readonly help: boolean;
}

/**
 * parseCommandArgs parses a command's arguments with node:util parseArgs (strict, positionals
 * allowed, `-h`/`--help` added) and turns parseArgs' errors into UsageErrors with a clear message.
 */
export function parseCommandArgs<T extends NonNullable<ParseArgsConfig['options']>>(
  args: readonly string[],
  options: T,
): CommandArgs<T> {
  const withHelp = { ...options, help: { type: 'boolean', short: 'h' } } as const;
  try {
    const parsed = parseArgs({ args: [...args], options: withHelp, allowPositionals: true, strict: true });
    const { help, ...values } = parsed.values as Record<string, unknown>;
    return {
      values: values as CommandArgs<T>['values'],
      positionals: parsed.positionals,
      help: help === true,
    };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new UsageError(message.replace(/\. To specify a positional argument.*$/s, '.'));
  }
}

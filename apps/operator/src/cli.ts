import { operatorVersion } from './version.js';
import { commands } from './commands/index.js';
import type { CliIo, Command } from './commands/command.js';
import { ExitCode, UsageError } from './commands/command.js';
import { reportCaughtError } from './caught-error.js';

function overview(list: readonly Command[]): string {
  const width = Math.max(...list.map((c) => c.name.length));
  return [
    'Usage: ork <command> [options]',
    '',
    'Commands:',
    ...list.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Run `ork <command> --help` for the options of a command.',
  ].join('\n');
}

/**
 * main runs the `ork` command line: `argv` without the node and script names, effects through
 * `io`. It returns the exit code (0 ok, 1 failed, 2 usage error) and never calls process.exit, so
 * tests run it in-process.
 *
 * @example
 * const code = await main(['validate', 'examples/website/katalog.yaml'], {
 *   stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd(),
 * });
 */
export async function main(
  argv: readonly string[],
  io: CliIo,
  list: readonly Command[] = commands,
): Promise<number> {
  const [name, ...rest] = argv;
  if (name == null || name === '-h' || name === '--help' || name === 'help') {
    (name == null ? io.stderr : io.stdout).write(`${overview(list)}\n`);
    return name == null ? ExitCode.Usage : ExitCode.Ok;
  }
  if (name === '--version' || name === '-v') {
    io.stdout.write(`${operatorVersion()}\n`);
    return ExitCode.Ok;
  }
  const command = list.find((c) => c.name === name);
  if (command == null) {
    io.stderr.write(`ork: unknown command ${JSON.stringify(name)}\n\n${overview(list)}\n`);
    return ExitCode.Usage;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`ork ${command.name}: ${error.message}\n\n${command.usage}\n`);
      return ExitCode.Usage;
    }
    reportCaughtError(error, command.name);
    const message = error instanceof Error ? error.message : String(error);
    io.stderr.write(`ork ${command.name}: ${message}\n`);
    return ExitCode.Failed;
  }
}

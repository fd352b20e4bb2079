import { RUN_FLAGS_USAGE, parseRunConfig } from '../process/config.js';
import { OperatorStartError, startOperator } from '../process/operator.js';
import type { CliIo, Command } from './command.js';
import { ExitCode, UsageError } from './command.js';

const usage = `Usage: ork run [<katalog>] [flags]

Run the operator for a Katalog against the cluster of the kubeconfig (or in-cluster): informers
on every replica, workers on the leader. JSON log lines on stdout; /metrics and /katalog on the
metrics address; /healthz and /readyz on the health address; when an entry has crossAccess: true,
/katalog/crds/<entry>/objects/<namespace>/<name> on the cross address, for callers with a token
(audience orkestra-cross) that may get the CR. The Katalog file is watched: a valid change is applied in place, an invalid
one is logged and the running Katalog stays. SIGTERM or SIGINT shut down gracefully (in-flight
reconciles finish, the Lease is released); losing the Lease exits 1.

${RUN_FLAGS_USAGE}  -h, --help                          Show this help.`;

/** runCommand is `ork run`: the operator process (docs/reference/runtime.md §2, §17, §18, §22). */
export const runCommand: Command = {
  name: 'run',
  summary: 'Run the operator for a Katalog',
  usage,
  async run(args: readonly string[], io: CliIo): Promise<number> {
    if (args.includes('-h') || args.includes('--help')) {
      io.stdout.write(`${usage}\n`);
      return ExitCode.Ok;
    }
    const parsed = parseRunConfig(args, { env: io.env });
    if (!parsed.ok) throw new UsageError(parsed.errors.join('\n'));
    let code: number;
    try {
      const operator = await startOperator({
        config: parsed.config,
        env: io.env,
        cwd: io.cwd,
        // A second SIGINT/SIGTERM during shutdown ends the process at once.
        forceExit: (exitCode) => process.exit(exitCode),
      });
      code = await operator.done;
    } catch (error) {
      if (!(error instanceof OperatorStartError)) throw error;
      for (const line of error.details) io.stderr.write(`${line}\n`);
      io.stderr.write(`ork run: ${error.message}\n`);
      return ExitCode.Failed;
    }
    return code;
  },
};

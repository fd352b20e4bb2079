import { LocalControlPlaneError } from '../process/local-control-plane.js';
import { OperatorStartError } from '../process/operator.js';
import type { CliIo, Command } from './command.js';
import { ExitCode, UsageError, parseCommandArgs } from './command.js';

const usage = `Usage: ork demo

Show Orkestra end to end on a local control plane (no cluster needed): start etcd,
kube-apiserver and kube-controller-manager from @orkestra/testenv, run the website and
multi-region example Katalogs, create their sample CRs from examples/*/crs, wait for
Ready, print each CR's children and status, edit a child and watch the operator restore it,
delete a CR and watch its children go, then stop everything and exit 0.

Missing test servers are built first with tools/testenv/build.sh (several minutes, once).

Options:
  --control-center  Serve the Control Center on loopback (http://127.0.0.1:<port>/ui/, all
                    operators) and, before the cleanup, wait for Ctrl-C, which stops everything.
  -h, --help        Show this help.`;

/** demoCommand is `ork demo`: the example Katalogs end to end on a local control plane. */
export const demoCommand: Command = {
  name: 'demo',
  summary: 'Run the example Katalogs end to end on a local control plane',
  usage,
  async run(args: readonly string[], io: CliIo): Promise<number> {
    const parsed = parseCommandArgs(args, { 'control-center': { type: 'boolean' } });
    if (parsed.help) {
      io.stdout.write(`${usage}\n`);
      return ExitCode.Ok;
    }
    if (parsed.positionals.length > 0)
      throw new UsageError(`unexpected argument ${parsed.positionals[0] ?? ''}`);
    // Loaded here, not at start-up: the demo drives the cluster through client-node's generated API
    // classes, which the operator process itself does not load (docs/reference/runtime.md §20).
    const { DemoError, runDemo } = await import('../process/demo.js');
    try {
      const controlCenter =
        parsed.values['control-center'] === true
          ? {
              waitUntilStopped: () =>
                new Promise<void>((done) => {
                  process.once('SIGINT', () => done());
                  process.once('SIGTERM', () => done());
                }),
            }
          : undefined;
      return await runDemo({
        out: io.stdout,
        env: io.env,
        cwd: io.cwd,
        ...(controlCenter == null ? {} : { controlCenter }),
      });
    } catch (error) {
      if (error instanceof OperatorStartError) {
        for (const line of error.details) io.stderr.write(`${line}\n`);
      }
      if (
        error instanceof DemoError ||
        error instanceof LocalControlPlaneError ||
        error instanceof OperatorStartError
      ) {
        io.stderr.write(`ork demo: ${error.message}\n`);
        return ExitCode.Failed;
      }
      throw error;
    }
  },
};

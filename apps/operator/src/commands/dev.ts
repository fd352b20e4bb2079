import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { RUN_FLAGS_USAGE, parseRunConfig } from '../process/config.js';
import { LOOPBACK_CIDRS } from '@orkestra/reconciler';
import {
  LocalControlPlaneError,
  loadTestenv,
  startLocalControlPlane,
} from '../process/local-control-plane.js';
import { OperatorStartError, startOperator } from '../process/operator.js';
import { startReplicaProcesses } from '../process/replica-processes.js';
import type { ReplicaProcesses } from '../process/replica-processes.js';
import type { CliIo, Command } from './command.js';
import { ExitCode, UsageError } from './command.js';

/** DEFAULT_DEV_KUBECONFIG is where `ork dev` writes the control plane's kubeconfig unless told otherwise. */
const DEFAULT_DEV_KUBECONFIG = '.orkestra/dev.kubeconfig';

const usage = `Usage: ork dev [<katalog>] [--kubeconfig-out <file>] [flags]

Start the local control plane from @orkestra/testenv (etcd, kube-apiserver,
kube-controller-manager, kube-scheduler and kwok on loopback: Pods are scheduled and reported
Running by kwok, no container runs), create the operator namespace, install the Katalog's CRDs,
run the operator in this process (no leader election; with --replicas, more processes) and
write an admin kubeconfig for kubectl.
The Katalog file is watched and hot-reloaded. Ctrl-C stops the operator and the control plane.

  --kubeconfig-out <file>             where to write the kubeconfig (${DEFAULT_DEV_KUBECONFIG});
                                      removed again on exit
  --replicas <n>                      run n sharded operators: this process and n - 1 \`ork run\`
                                      processes (--sharding, leader election on, their own loopback
                                      ports; docs/reference/runtime.md §25) (1)

${RUN_FLAGS_USAGE.replace('(false)\n', '(true in ork dev)\n').replace('run leader election (true)', 'run leader election (false in ork dev)')}  -h, --help                          Show this help.`;

/** Splits `--kubeconfig-out <file>` / `--kubeconfig-out=<file>` off the run flags. */
function takeKubeconfigOut(args: readonly string[]): { out?: string; rest: string[] } {
  const rest: string[] = [];
  let out: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '--kubeconfig-out') {
      const value = args[i + 1];
      if (value == null || value.startsWith('--')) throw new UsageError('--kubeconfig-out needs a file');
      out = value;
      i++;
    } else if (arg.startsWith('--kubeconfig-out=')) {
      out = arg.slice('--kubeconfig-out='.length);
    } else {
      rest.push(arg);
    }
  }
  if (out === '') throw new UsageError('--kubeconfig-out needs a file');
  return out == null ? { rest } : { out, rest };
}

/** Splits `--replicas <n>` / `--replicas=<n>` off the run flags. */
function takeReplicas(args: readonly string[]): { replicas: number; rest: string[] } {
  const rest: string[] = [];
  let text: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '--replicas') {
      text = args[i + 1] ?? '';
      i++;
    } else if (arg.startsWith('--replicas=')) {
      text = arg.slice('--replicas='.length);
    } else {
      rest.push(arg);
    }
  }
  if (text == null) return { replicas: 1, rest };
  const replicas = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(replicas) || replicas < 1 || replicas > 16)
    throw new UsageError(`--replicas: expected a whole number from 1 to 16, got "${text}"`);
  return { replicas, rest };
}

/** devCommand is `ork dev`: a local control plane with the operator running against it. */
export const devCommand: Command = {
  name: 'dev',
  summary: 'Run the operator against a local control plane',
  usage,
  async run(args: readonly string[], io: CliIo): Promise<number> {
    if (args.includes('-h') || args.includes('--help')) {
      io.stdout.write(`${usage}\n`);
      return ExitCode.Ok;
    }
    const { out, rest: withReplicas } = takeKubeconfigOut(args);
    const { replicas, rest: runArgs } = takeReplicas(withReplicas);
    // Several replicas are shards: every one reconciles its part, the leader runs the sharder.
    const rest =
      replicas > 1 && !runArgs.some((a) => a.startsWith('--sharding')) ? [...runArgs, '--sharding'] : runArgs;
    if (rest.some((arg) => arg === '--kubeconfig' || arg.startsWith('--kubeconfig='))) {
      throw new UsageError('ork dev brings its own cluster; use ork run --kubeconfig for another one');
    }
    const parsed = parseRunConfig(rest, {
      env: { ...io.env, KUBECONFIG: undefined },
      // ork dev runs beside local servers: loopback is allowed explicitly (runtime.md §14.4).
      defaults: {
        leaderElect: replicas > 1,
        installCrds: true,
        allowPrivateAddresses: LOOPBACK_CIDRS,
        // The API server calls the conversion webhook on the loopback address, any free port (runtime.md §26).
        webhookBindAddress: '127.0.0.1:0',
        webhookService: 'loopback',
      },
    });
    if (!parsed.ok) throw new UsageError(parsed.errors.join('\n'));
    const config = parsed.config;
    const kubeconfigOut = resolve(io.cwd, out ?? DEFAULT_DEV_KUBECONFIG);

    let cp;
    let replicaProcesses: ReplicaProcesses | undefined;
    try {
      cp = await startLocalControlPlane({ progress: io.stderr, env: io.env });
    } catch (error) {
      if (!(error instanceof LocalControlPlaneError)) throw error;
      io.stderr.write(`ork dev: ${error.message}\n`);
      return ExitCode.Failed;
    }
    try {
      // The operator namespace holds the Katalog revisions (runtime.md §24) and the Lease; a fresh
      // control plane has none, and without it revisions would be off.
      await (await loadTestenv()).createNamespace(cp.kubeConfig, config.namespace);
      mkdirSync(dirname(kubeconfigOut), { recursive: true });
      writeFileSync(kubeconfigOut, cp.kubeConfig.exportConfig(), { mode: 0o600 });
      const shown = relative(io.cwd, kubeconfigOut) || kubeconfigOut;
      io.stderr.write(
        `Kubeconfig written to ${shown} (admin). Try: kubectl --kubeconfig ${shown} get crds\n` +
          `Starting the operator for ${config.katalog} (logs are JSON lines on stdout; Ctrl-C stops everything).\n`,
      );
      const operator = await startOperator({
        config,
        env: io.env,
        cwd: io.cwd,
        kubeConfig: cp.kubeConfig,
        forceExit: (code) => process.exit(code),
      });
      void operator.synced.then(() => {
        io.stderr.write(
          `Operator ready: ${Object.keys(operator.katalog.spec.crds).join(', ')}. Create CRs with kubectl (kwok reports their Pods Running; no container runs).\n`,
        );
        // `ork dev --control-center` (docs/reference/runtime.md §23).
        if (config.controlCenter && operator.metricsAddress != null)
          io.stderr.write(
            `Control Center: http${config.controlCenterCert == null ? '' : 's'}://127.0.0.1:${operator.metricsAddress.port}/ui/${operator.controlCenterToken == null ? '' : `?token=${operator.controlCenterToken}`}\n`,
          );
      });
      // The other replicas: `ork run --sharding` processes of their own against this control plane.
      replicaProcesses =
        replicas > 1
          ? startReplicaProcesses({
              count: replicas - 1,
              runArgs: rest,
              config,
              kubeconfigFile: kubeconfigOut,
              env: io.env,
              cwd: io.cwd,
              stdout: io.stdout,
              stderr: io.stderr,
            })
          : undefined;
      if (replicaProcesses != null)
        io.stderr.write(
          `Started ${replicas} replicas: this process (shard ${operator.shard ?? '?'}) and pids ${replicaProcesses.pids.join(', ')}.\n`,
        );
      const code = await operator.done;
      await replicaProcesses?.stop();
      io.stderr.write('Operator stopped; stopping the control plane…\n');
      return code;
    } catch (error) {
      if (!(error instanceof OperatorStartError)) throw error;
      for (const line of error.details) io.stderr.write(`${line}\n`);
      io.stderr.write(`ork dev: ${error.message}\n`);
      return ExitCode.Failed;
    } finally {
      await replicaProcesses?.stop();
      await cp.stop();
      rmSync(kubeconfigOut, { force: true });
    }
  },
};

/**
 * Test support for the integration tests that run the operator in this process: `ork run`'s flags
 * parsed as the CLI parses them, then startOperator without signal handlers or a Katalog watch.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { parseRunConfig } from '../src/process/config.js';
import { startOperator } from '../src/process/operator.js';
import type { Operator, StartOperatorOptions } from '../src/process/operator.js';

/** InProcessOperatorOptions say what the operator runs and what it adds to the shared flags. */
export interface InProcessOperatorOptions {
  readonly katalogFile: string;
  readonly cwd: string;
  readonly kubeConfig: KubeConfig;
  /** `--namespace`. */
  readonly namespace: string;
  /**
   * Flags after the shared ones (later flags win). The shared ones: no leader election, CRDs
   * installed, metrics and health off, `--log-level warn`.
   */
  readonly args?: readonly string[];
  /** startOperator options beside the shared ones. */
  readonly options?: Partial<StartOperatorOptions>;
  /** The environment the flags are read with and the operator gets (default none). */
  readonly env?: Readonly<Record<string, string>>;
}

/** InProcessFlagsOptions: `ork run`'s flags as written, and startOperator options beside the shared ones. */
export interface InProcessFlagsOptions {
  readonly flags: readonly string[];
  readonly cwd: string;
  readonly kubeConfig: KubeConfig;
  readonly options?: Partial<StartOperatorOptions>;
  /** The environment the flags are read with and the operator gets (default none). */
  readonly env?: Readonly<Record<string, string>>;
}

/** startWithFlags parses `flags` as the CLI does and starts the operator without signal handlers or a Katalog watch. */
export async function startWithFlags(o: InProcessFlagsOptions): Promise<Operator> {
  const env = o.env ?? {};
  const parsed = parseRunConfig([...o.flags], { env });
  if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
  return startOperator({
    config: parsed.config,
    env,
    cwd: o.cwd,
    kubeConfig: o.kubeConfig,
    handleSignals: false,
    watchKatalog: false,
    ...o.options,
  });
}

/** startInProcessOperator starts the operator; it does not wait for its caches (`operator.synced`). */
export async function startInProcessOperator(o: InProcessOperatorOptions): Promise<Operator> {
  return startWithFlags({
    flags: [
      ...['--katalog', o.katalogFile, '--leader-elect=false', '--install-crds', '--namespace', o.namespace],
      ...['--metrics-bind-address', '0', '--health-probe-bind-address', '0', '--log-level', 'warn'],
      ...(o.args ?? []),
    ],
    cwd: o.cwd,
    kubeConfig: o.kubeConfig,
    ...(o.options === undefined ? {} : { options: o.options }),
    ...(o.env === undefined ? {} : { env: o.env }),
  });
}

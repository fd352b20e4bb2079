import { parseArgs } from 'node:util';
import { OciBuilder as ReconcilerOciBuilder, RUNTIME_TUNING_DEFAULTS, parseCidr } from '@orkestra/reconciler';
import type { RuntimeTuning } from '@orkestra/reconciler';
import { parseDuration } from '@orkestra/types';
import { parseBindAddress } from './http-server.js';

/** LogLevel is the closed set of `--log-level` values (pino's levels). */
export const LogLevel = {
  Trace: 'trace',
  Debug: 'debug',
  Info: 'info',
  Warn: 'warn',
  Error: 'error',
  Fatal: 'fatal',
  Silent: 'silent',
} as const;
export type LogLevel = (typeof LogLevel)[keyof typeof LogLevel];

/** OciBuilder is the closed set of `OCI_BUILDER` values (docs/reference/katalog.md §16.2, docker hook `builder`): the reconciler's one list. */
export const OciBuilder = ReconcilerOciBuilder;
export type OciBuilder = (typeof OciBuilder)[keyof typeof OciBuilder];

/**
 * OperatorTuning is the part of the runtime's RuntimeTuning that `ork run` sets from flags
 * (`--reconcile-timeout`, `--max-concurrent-writes`, `--watch-idle-timeout`, `--work-dir`,
 * `--max-work-dir-bytes`, `--max-concurrent-builds`, `--resync-skip-recent`), always given. The knobs are declared once, in RuntimeTuning.
 */
export type OperatorTuning = {
  readonly [
    K in
      | 'reconcileTimeoutMs'
      | 'maxConcurrentWrites'
      | 'watchIdleTimeoutMs'
      | 'workDir'
      | 'maxWorkDirBytes'
      | 'maxConcurrentBuilds'
      | 'resyncSkipRecent'
  ]-?: NonNullable<RuntimeTuning[K]>;
};

/** RunConfig is the parsed configuration of `ork run` (docs/reference/runtime.md §22). Durations are in milliseconds. */
export interface RunConfig extends OperatorTuning {
  /** Katalog file (`--katalog`, `ORKESTRA_KATALOG`, or the first positional). Default `./katalog.yaml`. */
  readonly katalog: string;
  /** Kubeconfig path (`--kubeconfig`, `KUBECONFIG`); undefined = in-cluster, else `~/.kube/config`. */
  readonly kubeconfig?: string;
  /** Operator namespace, where the Lease lives (`--namespace`, `POD_NAMESPACE`). Default `orkestra-system`. */
  readonly namespace: string;
  /** Whether to run leader election. Default true. */
  readonly leaderElect: boolean;
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
  /**
   * Active-active sharding (`--sharding`, `ORKESTRA_SHARDING`; docs/reference/runtime.md §25): each
   * replica holds a shard Lease and reconciles the CRs the sharder (on the leader) labels with its
   * shard ID. Needs leader election. Default false: the leader reconciles every CR.
   */
  readonly sharding: boolean;
  /** Bind address of the metrics server; `0` disables it. */
  readonly metricsBindAddress: string;
  /** Bind address of the health server; `0` disables it. */
  readonly healthProbeBindAddress: string;
  readonly logLevel: LogLevel;
  readonly shutdownTimeoutMs: number;
  /** Default OCI builder (`OCI_BUILDER`). */
  readonly ociBuilder: OciBuilder;
  /** Apply the Katalog's CRDs at start-up (`ork dev`). Default false. */
  readonly installCrds: boolean;
  /** Serve the Control Center (`/ui`, `/api/v1`) on the metrics server (`--control-center`, `ORKESTRA_CONTROL_CENTER`). Default false. */
  readonly controlCenter: boolean;
  /** Who may read it: `local` (loopback clients only) or `token` (TokenReview + SubjectAccessReview). Default `local`. */
  readonly controlCenterAuth: 'local' | 'token';
  /** Other operators' base URLs the Control Center aggregates (`--control-center-upstreams a,b`). */
  readonly controlCenterUpstreams: readonly string[];
  /**
   * Bind address of the cross-read server (`--cross-bind-address`, docs/reference/runtime.md §18.5);
   * started only when an entry has `crossAccess: true`; `0` disables it. Default `:8082`.
   */
  readonly crossBindAddress: string;
  /**
   * Bind address of the webhook endpoint (`--webhook-bind-address`, docs/reference/runtime.md §26):
   * HTTPS, started when an entry declares `conversion`, or with `--sharding` (the shard-assignment
   * webhook, ADR 0110); `0` disables it. Default `:9443`.
   */
  readonly webhookBindAddress: string;
  /**
   * Whether `--webhook-bind-address` was given (or the command's default, as `ork dev`'s): only then
   * does an endpoint serve the admission webhook of a Katalog that converts nothing (ADR 0089), so
   * an `ork run` outside a cluster listens on no port it was not asked for.
   */
  readonly webhookAsked: boolean;
  /**
   * Where the API server reaches the endpoint (`--webhook-service`): `<name>` (a Service of the
   * operator namespace, port 443; default `orkestra-webhook`, the chart's) or an `https://` URL
   * (`ork dev`: the loopback address). Names the serving certificate's hosts and the CRDs' clientConfig.
   */
  readonly webhookService: string;
  /** CIDRs outbound calls may reach although the address guard refuses them (`--allow-private-addresses`); `ork dev` passes loopback. */
  readonly allowPrivateAddresses: readonly string[];
  /** Extra host names the Control Center answers to (`--control-center-hosts`), besides localhost, 127.0.0.1 and [::1] in local mode. */
  readonly controlCenterHosts: readonly string[];
  /** PEM certificate and key files: the metrics server (and the Control Center on it) speaks TLS. */
  readonly controlCenterCert?: string;
  readonly controlCenterKey?: string;
  /** Who may read: `token` (TokenReview + SubjectAccessReview) or `none` (loopback bind only). Default `token`. */
  readonly crossAuth: 'token' | 'none';
  /** The projected ServiceAccount token sent with cross reads to literal endpoints (`--cross-token-file`). */
  readonly crossTokenFile: string;
}

/** CROSS_TOKEN_FILE is where the chart projects the operator's `orkestra-cross` token. */
const CROSS_TOKEN_FILE = '/var/run/secrets/orkestra.io/cross/token';

/** isLoopbackHost tells whether a bind host is loopback only (`127.0.0.0/8`, `::1`, `localhost`). */
function isLoopbackHost(host: string | undefined): boolean {
  if (host == null) return false;
  const bare = host.toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare);
}

/** ParseRunConfigOptions configures parseRunConfig. */
export interface ParseRunConfigOptions {
  /** Environment to read `ORKESTRA_KATALOG`, `KUBECONFIG`, `POD_NAMESPACE`, `LOG_LEVEL`, `OCI_BUILDER` from. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Defaults that differ per command (`ork dev` passes `{ leaderElect: false, installCrds: true }`). */
  readonly defaults?: Partial<
    Pick<
      RunConfig,
      | 'leaderElect'
      | 'installCrds'
      | 'controlCenter'
      | 'allowPrivateAddresses'
      | 'webhookBindAddress'
      | 'webhookService'
    >
  >;
}

/** ParseRunConfigResult is a RunConfig, or every problem found on the command line and in the environment. */
export type ParseRunConfigResult =
  | { readonly ok: true; readonly config: RunConfig }
  | { readonly ok: false; readonly errors: readonly string[] };

const STRING_FLAGS = [
  'katalog',
  'kubeconfig',
  'namespace',
  'lease-duration',
  'renew-deadline',
  'retry-period',
  'metrics-bind-address',
  'health-probe-bind-address',
  'log-level',
  'reconcile-timeout',
  'shutdown-timeout',
  'max-concurrent-writes',
  'watch-idle-timeout',
  'work-dir',
  'max-work-dir-bytes',
  'max-concurrent-builds',
  'control-center-auth',
  'control-center-upstreams',
  'control-center-hosts',
  'control-center-cert',
  'control-center-key',
  'allow-private-addresses',
  'cross-bind-address',
  'webhook-bind-address',
  'webhook-service',
  'cross-auth',
  'cross-token-file',
] as const;
const BOOLEAN_FLAGS = [
  'leader-elect',
  'install-crds',
  'control-center',
  'sharding',
  'resync-skip-recent',
] as const;

/** RUN_FLAGS_USAGE lists the flags parseRunConfig understands, for `ork run --help`. */
export const RUN_FLAGS_USAGE = `Flags (environment, default):
  --katalog <file>                    Katalog file (ORKESTRA_KATALOG, ./katalog.yaml); also the first argument
  --kubeconfig <file>                 kubeconfig (KUBECONFIG, in-cluster else ~/.kube/config)
  --namespace <ns>                    operator namespace, holds the Lease (POD_NAMESPACE, orkestra-system)
  --leader-elect[=true|false]         run leader election (true)
  --lease-duration <d>                Lease duration (15s)
  --renew-deadline <d>                leader gives up after failing to renew this long (10s)
  --retry-period <d>                  between acquire and renew attempts (2s)
  --sharding[=true|false]             every replica reconciles its shard of the CRs (ORKESTRA_SHARDING, false)
  --metrics-bind-address <addr>       /metrics; 0 disables (:8080)
  --health-probe-bind-address <addr>  /healthz, /readyz; 0 disables (:8081)
  --log-level <level>                 trace|debug|info|warn|error|fatal|silent (LOG_LEVEL, info)
  --reconcile-timeout <d>             per reconcile (5m)
  --shutdown-timeout <d>              wait for in-flight reconciles on shutdown (30s)
  --max-concurrent-writes <n>         parallel child writes per CR (8)
  --watch-idle-timeout <d>            restart a silent watch after (5m)
  --resync-skip-recent[=true|false]   skip the resync of a CR reconciled after a change within
                                      its resync interval (true)
  --work-dir <dir>                    git checkouts and build contexts (/var/lib/orkestra)
  --max-work-dir-bytes <n>            most bytes git checkouts may fill the work directory with:
                                      a number with an optional Ki/Mi/Gi suffix; 0 no cap (1Gi)
  --max-concurrent-builds <n>         parallel image builds (1)
  --install-crds[=true|false]         apply the Katalog's CRDs at start-up (false)
  --control-center[=true|false]       serve the Control Center at /ui on the metrics port
                                      (ORKESTRA_CONTROL_CENTER, false)
  --control-center-auth <mode>        local (loopback clients only) or token (bearer token,
                                      TokenReview + SubjectAccessReview) (local)
  --control-center-upstreams <urls>   other operators' metrics URLs to aggregate, comma-separated
  --control-center-hosts <names>      host names the Control Center answers to besides localhost,
                                      127.0.0.1 and [::1] (DNS-rebinding guard), comma-separated
  --control-center-cert <file>        PEM certificate: the metrics port speaks TLS (needed for
  --control-center-key <file>         token mode unless --metrics-bind-address is loopback)
  --allow-private-addresses <cidrs>   let outbound calls reach these refused ranges (loopback,
                                      unspecified, metadata), comma-separated (none; ork dev: loopback)
  --cross-bind-address <addr>         cross reads for other operators, when an entry has
                                      crossAccess: true; 0 disables (:8082)
  --webhook-bind-address <addr>       HTTPS endpoint for conversion webhooks, when an entry
                                      declares conversion, and, when given, for the admission
                                      webhook of rules CEL cannot express; with --sharding for the
                                      shard-assignment webhook; 0 disables (:9443)
  --webhook-service <name|url>        the Service (operator namespace, port 443) or https URL the
                                      API server calls (orkestra-webhook)
  --cross-auth <mode>                 token (TokenReview, audience orkestra-cross, and a
                                      SubjectAccessReview get) or none (loopback address only) (token)
  --cross-token-file <file>           token sent with cross reads to literal endpoints
                                      (${CROSS_TOKEN_FILE})
  OCI_BUILDER                         docker|podman|buildah (docker)
`;

/** envBool reads `true`/`false` (any case, also 1/0) from the environment; undefined otherwise. */
function envBool(value: string | undefined): boolean | undefined {
  const text = value?.trim().toLowerCase();
  if (text === 'true' || text === '1') return true;
  if (text === 'false' || text === '0') return false;
  return undefined;
}

/** Turns `--flag=true|false` into `--flag` / `--no-flag`, since parseArgs booleans take no value. */
function normalizeBooleans(args: readonly string[], errors: string[]): string[] {
  return args.map((arg) => {
    for (const flag of BOOLEAN_FLAGS) {
      if (!arg.startsWith(`--${flag}=`)) continue;
      const value = arg.slice(flag.length + 3).toLowerCase();
      if (value === 'true') return `--${flag}`;
      if (value === 'false') return `--no-${flag}`;
      errors.push(`--${flag}: expected true or false, got "${arg.slice(flag.length + 3)}"`);
      return `--${flag}`;
    }
    return arg;
  });
}

/**
 * parseRunConfig reads the flags and environment of `ork run` (docs/reference/runtime.md §22) with node:util
 * parseArgs. Flags win over the environment; durations use the Katalog grammar (`15s`, `1m30s`).
 * Every problem is collected, so the user sees them all at once.
 *
 * @example
 * const result = parseRunConfig(['--katalog', 'k.yaml', '--leader-elect=false'], { env: process.env });
 * if (!result.ok) for (const e of result.errors) console.error(e);
 */
export function parseRunConfig(
  args: readonly string[],
  options: ParseRunConfigOptions,
): ParseRunConfigResult {
  const errors: string[] = [];
  const env = options.env;
  const parseOptions = {
    ...Object.fromEntries(STRING_FLAGS.map((flag) => [flag, { type: 'string' as const }])),
    ...Object.fromEntries(
      BOOLEAN_FLAGS.flatMap((flag) => [
        [flag, { type: 'boolean' as const }],
        [`no-${flag}`, { type: 'boolean' as const }],
      ]),
    ),
  };
  let values: Record<string, string | boolean | undefined>;
  let positionals: string[];
  try {
    const parsed = parseArgs({
      args: normalizeBooleans(args, errors),
      options: parseOptions,
      allowPositionals: true,
      strict: true,
    });
    values = parsed.values as Record<string, string | boolean | undefined>;
    positionals = parsed.positionals;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      errors: [...errors, message.replace(/\. To specify a positional argument.*$/s, '.')],
    };
  }

  const text = (flag: (typeof STRING_FLAGS)[number]): string | undefined => {
    const value = values[flag];
    return typeof value === 'string' ? value : undefined;
  };
  const nonEmpty = (value: string | undefined): string | undefined =>
    value == null || value === '' ? undefined : value;
  const bool = (flag: (typeof BOOLEAN_FLAGS)[number], fallback: boolean): boolean => {
    const yes = values[flag] === true;
    const no = values[`no-${flag}`] === true;
    if (yes && no) errors.push(`--${flag} is given both as true and false`);
    return yes ? true : no ? false : fallback;
  };
  const duration = (flag: (typeof STRING_FLAGS)[number], fallback: string): number => {
    const value = text(flag) ?? fallback;
    try {
      const ms = parseDuration(value);
      if (ms <= 0) errors.push(`--${flag}: must be greater than 0, got "${value}"`);
      return ms;
    } catch {
      errors.push(`--${flag}: "${value}" is not a duration (examples: 500ms, 15s, 5m, 1h30m)`);
      return parseDuration(fallback);
    }
  };
  const positiveInt = (flag: (typeof STRING_FLAGS)[number], fallback: number): number => {
    const value = text(flag);
    if (value == null) return fallback;
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < 1) {
      errors.push(`--${flag}: expected a whole number of at least 1, got "${value}"`);
      return fallback;
    }
    return n;
  };
  const bytes = (flag: (typeof STRING_FLAGS)[number], fallback: number): number => {
    const value = text(flag);
    if (value == null) return fallback;
    const match = /^(\d+)(Ki|Mi|Gi)?$/.exec(value.trim());
    const unit =
      ({ Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3 } as Record<string, number>)[match?.[2] ?? ''] ?? 1;
    const n = match == null ? NaN : Number(match[1]) * unit;
    if (!Number.isSafeInteger(n)) {
      errors.push(
        `--${flag}: expected a number of bytes with an optional Ki, Mi or Gi suffix, got "${value}"`,
      );
      return fallback;
    }
    return n;
  };
  const address = (flag: (typeof STRING_FLAGS)[number], fallback: string): string => {
    const value = text(flag) ?? fallback;
    try {
      parseBindAddress(value);
    } catch (error) {
      errors.push(`--${flag}: ${(error as Error).message}`);
    }
    return value;
  };

  if (positionals.length > 1) errors.push(`expected at most one Katalog file, got ${positionals.join(', ')}`);
  const flagKatalog = text('katalog');
  const positional = positionals[0];
  if (flagKatalog != null && positional != null && flagKatalog !== positional) {
    errors.push(`the Katalog is given twice: --katalog ${flagKatalog} and ${positional}`);
  }
  const katalog = flagKatalog ?? positional ?? nonEmpty(env['ORKESTRA_KATALOG']) ?? './katalog.yaml';

  const kubeconfig = nonEmpty(text('kubeconfig')) ?? nonEmpty(env['KUBECONFIG']);
  const namespace = nonEmpty(text('namespace')) ?? nonEmpty(env['POD_NAMESPACE']) ?? 'orkestra-system';
  if (!/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(namespace)) {
    errors.push(`--namespace: "${namespace}" is not a valid namespace name (lowercase DNS label)`);
  }

  const levelText = text('log-level') ?? nonEmpty(env['LOG_LEVEL']) ?? 'info';
  const levels = Object.values(LogLevel) as string[];
  const logLevel = levelText.toLowerCase();
  if (!levels.includes(logLevel)) {
    errors.push(`--log-level: "${levelText}" is not one of ${levels.join(', ')}`);
  }

  const builder = nonEmpty(env['OCI_BUILDER']) ?? OciBuilder.Docker;
  const builders = Object.values(OciBuilder) as string[];
  if (!builders.includes(builder))
    errors.push(`OCI_BUILDER: "${builder}" is not one of ${builders.join(', ')}`);

  const leaseDurationMs = duration('lease-duration', '15s');
  const renewDeadlineMs = duration('renew-deadline', '10s');
  const retryPeriodMs = duration('retry-period', '2s');
  const leaderElect = bool('leader-elect', options.defaults?.leaderElect ?? true);
  const sharding = bool('sharding', env['ORKESTRA_SHARDING'] === 'true');
  if (sharding && !leaderElect) {
    errors.push(
      '--sharding needs leader election: the sharder runs on the leader (drop --leader-elect=false)',
    );
  }
  if (leaderElect && leaseDurationMs <= renewDeadlineMs) {
    errors.push('--lease-duration must be greater than --renew-deadline');
  }
  if (leaderElect && renewDeadlineMs <= retryPeriodMs * 1.2) {
    errors.push('--renew-deadline must be greater than 1.2 × --retry-period');
  }

  const authText = text('control-center-auth') ?? nonEmpty(env['ORKESTRA_CONTROL_CENTER_AUTH']) ?? 'local';
  if (authText !== 'local' && authText !== 'token')
    errors.push(`--control-center-auth: "${authText}" is not one of local, token`);
  const controlCenterAuth = authText === 'token' ? 'token' : 'local';
  const controlCenterUpstreams = (
    text('control-center-upstreams') ??
    nonEmpty(env['ORKESTRA_CONTROL_CENTER_UPSTREAMS']) ??
    ''
  )
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  for (const upstream of controlCenterUpstreams) {
    if (!/^https?:\/\/[^\s/]+/.test(upstream))
      errors.push(`--control-center-upstreams: "${upstream}" is not an http(s) URL`);
  }

  const controlCenterHosts = (text('control-center-hosts') ?? '')
    .split(',')
    .map((item) => item.trim().toLowerCase())
    .filter((item) => item !== '');
  const controlCenterCert = nonEmpty(text('control-center-cert'));
  const controlCenterKey = nonEmpty(text('control-center-key'));
  if ((controlCenterCert == null) !== (controlCenterKey == null))
    errors.push('--control-center-cert and --control-center-key go together');
  const metricsBindAddress = address('metrics-bind-address', ':8080');
  const controlCenterOn = bool(
    'control-center',
    envBool(env['ORKESTRA_CONTROL_CENTER']) ?? options.defaults?.controlCenter ?? false,
  );
  if (controlCenterOn && controlCenterAuth === 'token' && controlCenterCert == null) {
    let host: string | undefined;
    try {
      host = parseBindAddress(metricsBindAddress)?.host;
    } catch {
      // reported by address()
    }
    if (!isLoopbackHost(host))
      errors.push(
        `--control-center-auth=token sends bearer tokens, so it needs TLS (--control-center-cert and --control-center-key) unless --metrics-bind-address is a loopback address; got "${metricsBindAddress}" over plain HTTP`,
      );
  }
  const allowText = text('allow-private-addresses');
  const allowPrivateAddresses =
    allowText == null
      ? (options.defaults?.allowPrivateAddresses ?? [])
      : allowText
          .split(',')
          .map((item) => item.trim())
          .filter((item) => item !== '');
  for (const cidr of allowPrivateAddresses) {
    try {
      parseCidr(cidr);
    } catch (error) {
      errors.push(`--allow-private-addresses: ${(error as Error).message}`);
    }
  }
  const crossBindAddress = address('cross-bind-address', ':8082');
  const webhookBindAddress = address('webhook-bind-address', options.defaults?.webhookBindAddress ?? ':9443');
  const webhookAsked = text('webhook-bind-address') != null || options.defaults?.webhookBindAddress != null;
  const webhookService =
    nonEmpty(text('webhook-service')) ?? options.defaults?.webhookService ?? 'orkestra-webhook';
  if (
    webhookService !== 'loopback' &&
    !/^https:\/\/\S+$/.test(webhookService) &&
    !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(webhookService)
  )
    errors.push(`--webhook-service: "${webhookService}" is neither a Service name nor an https:// URL`);
  const crossAuthText = text('cross-auth') ?? 'token';
  if (crossAuthText !== 'token' && crossAuthText !== 'none')
    errors.push(`--cross-auth: "${crossAuthText}" is not one of token, none`);
  const crossAuth = crossAuthText === 'none' ? 'none' : 'token';
  if (crossAuth === 'none' && crossBindAddress.trim() !== '0') {
    let host: string | undefined;
    try {
      host = parseBindAddress(crossBindAddress)?.host;
    } catch {
      // reported by address()
    }
    if (!isLoopbackHost(host))
      errors.push(
        `--cross-auth=none serves cross reads without authentication, so --cross-bind-address must be a loopback address (127.0.0.1:<port> or [::1]:<port>), got "${crossBindAddress}"`,
      );
  }

  const config: RunConfig = {
    katalog,
    ...(kubeconfig == null ? {} : { kubeconfig }),
    namespace,
    leaderElect,
    leaseDurationMs,
    renewDeadlineMs,
    retryPeriodMs,
    sharding,
    metricsBindAddress,
    healthProbeBindAddress: address('health-probe-bind-address', ':8081'),
    logLevel: logLevel as LogLevel,
    // The runtime's defaults are RUNTIME_TUNING_DEFAULTS (one place); only the work directory is the image's.
    reconcileTimeoutMs: duration('reconcile-timeout', `${RUNTIME_TUNING_DEFAULTS.reconcileTimeoutMs}ms`),
    shutdownTimeoutMs: duration('shutdown-timeout', '30s'),
    maxConcurrentWrites: positiveInt('max-concurrent-writes', RUNTIME_TUNING_DEFAULTS.maxConcurrentWrites),
    watchIdleTimeoutMs: duration('watch-idle-timeout', `${RUNTIME_TUNING_DEFAULTS.watchIdleTimeoutMs}ms`),
    workDir: nonEmpty(text('work-dir')) ?? '/var/lib/orkestra',
    maxWorkDirBytes: bytes('max-work-dir-bytes', RUNTIME_TUNING_DEFAULTS.maxWorkDirBytes),
    maxConcurrentBuilds: positiveInt('max-concurrent-builds', RUNTIME_TUNING_DEFAULTS.maxConcurrentBuilds),
    resyncSkipRecent: bool('resync-skip-recent', RUNTIME_TUNING_DEFAULTS.resyncSkipRecent),
    ociBuilder: builder as OciBuilder,
    installCrds: bool('install-crds', options.defaults?.installCrds ?? false),
    controlCenter: controlCenterOn,
    controlCenterAuth,
    controlCenterUpstreams,
    controlCenterHosts,
    ...(controlCenterCert == null ? {} : { controlCenterCert }),
    ...(controlCenterKey == null ? {} : { controlCenterKey }),
    allowPrivateAddresses,
    crossBindAddress,
    webhookBindAddress,
    webhookAsked,
    webhookService,
    crossAuth,
    crossTokenFile: nonEmpty(text('cross-token-file')) ?? CROSS_TOKEN_FILE,
  };
  return errors.length === 0 ? { ok: true, config } : { ok: false, errors };
}

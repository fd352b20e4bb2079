/**
 * Helpers for the e2e tests: build the `ork` binary, run `ork run` as a child process, read its
 * JSON log lines, and give it a ServiceAccount identity bound only to `ork generate rbac` output.
 */
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import type { KubeConfig } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { applyAll, documentsOf } from '../apply.js';
import { REPO_ROOT, runOrk } from '../run-ork.js';
import { runTool } from '../tools.js';

/** ORK_BIN is the built CLI entry point the tests spawn. */
const ORK_BIN = join(REPO_ROOT, 'apps/operator/bin/ork.mjs');

const BUILD_LOCK = join(tmpdir(), 'orkestra-e2e-build.lock');

/** Holds a cross-process lock (a directory) while `fn` runs, so parallel test files do not build at once. */
function withBuildLock(fn: () => void): void {
  const deadline = Date.now() + 900_000;
  for (;;) {
    try {
      mkdirSync(BUILD_LOCK);
      break;
    } catch {
      // A lock older than the deadline was left by a killed run.
      const heldMs = Date.now() - (statSync(BUILD_LOCK, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (heldMs > 900_000 || Date.now() > deadline) {
        rmSync(BUILD_LOCK, { recursive: true, force: true });
        continue;
      }
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500);
    }
  }
  try {
    fn();
  } finally {
    rmSync(BUILD_LOCK, { recursive: true, force: true });
  }
}

/** buildOrk builds the operator and its dependencies with nx, as `pnpm ork` does (one test file at a time; nx caches). */
export function buildOrk(): void {
  withBuildLock(build);
}

function build(): void {
  try {
    execFileSync('pnpm', ['exec', 'nx', 'run', '@orkestra/operator:build', '--outputStyle=static'], {
      cwd: REPO_ROOT,
      stdio: 'pipe',
      env: { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true', NX_TUI: 'false' },
    });
  } catch (error) {
    const output = (error as { stdout?: Buffer }).stdout?.toString('utf8') ?? '';
    throw new Error(`building @orkestra/operator failed:\n${output.slice(-4000)}`, { cause: error });
  }
}

/** sleep resolves after `ms`. */
function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** waitFor polls until `check` returns a value other than undefined; the deadline only turns a hang into a failure. */
export async function waitFor<T>(
  what: string,
  check: () => T | undefined | Promise<T | undefined>,
  deadlineMs = 60_000,
): Promise<T> {
  const until = Date.now() + deadlineMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > until) {
      throw new Error(`timed out waiting for ${what}${last == null ? '' : ` (last error: ${String(last)})`}`);
    }
    await sleep(100);
  }
}

/** LogLine is one parsed JSON log line of the operator. */
export type LogLine = Record<string, unknown> & { readonly msg?: string; readonly level?: string };

/** OrkProcess is a running `ork` child process with its output captured. */
export interface OrkProcess {
  readonly child: ChildProcess;
  /** Every JSON line of stdout so far. */
  readonly logs: LogLine[];
  /** stdout lines that were not JSON (should stay empty). */
  readonly otherStdout: string[];
  stderr(): string;
  /** Resolves with the exit code (or the signal name) once the process ended. */
  readonly exited: Promise<number | string>;
  /** waitForLog resolves with the first line matching `match` (already seen or future). */
  waitForLog(what: string, match: (line: LogLine) => boolean, deadlineMs?: number): Promise<LogLine>;
  /** The metrics server's base URL, read from the `operator starting` line. */
  metricsUrl(): Promise<string>;
  /** The health server's base URL, read from the `operator starting` line. */
  healthUrl(): Promise<string>;
}

/** spawnOrk starts `node apps/operator/bin/ork.mjs <args>` with a clean environment plus `env`. */
export function spawnOrk(args: readonly string[], env: Record<string, string> = {}): OrkProcess {
  const base: Record<string, string> = {};
  for (const key of ['PATH', 'HOME', 'TMPDIR', 'XDG_CACHE_HOME', 'LANG']) {
    const value = process.env[key];
    if (value != null) base[key] = value;
  }
  const child = spawn(process.execPath, [ORK_BIN, ...args], {
    cwd: REPO_ROOT,
    env: { ...base, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: LogLine[] = [];
  const otherStdout: string[] = [];
  let stderr = '';
  let pending = '';
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => {
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      if (line.trim() === '') continue;
      try {
        logs.push(JSON.parse(line) as LogLine);
      } catch {
        otherStdout.push(line);
      }
    }
  });
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<number | string>((resolve) => {
    child.on('exit', (code, signal) => resolve(code ?? signal ?? 'unknown'));
  });
  const waitForLog: OrkProcess['waitForLog'] = (what, match, deadlineMs = 60_000) =>
    waitFor(`${what} (stderr: ${stderr.slice(-500)})`, () => logs.find(match), deadlineMs);
  const address = async (key: 'metrics' | 'health'): Promise<string> => {
    const line = await waitForLog('the operator starting line', (l) => l.msg === 'operator starting');
    return `http://${String(line[key])}`;
  };
  return {
    child,
    logs,
    otherStdout,
    stderr: () => stderr,
    exited,
    waitForLog,
    metricsUrl: () => address('metrics'),
    healthUrl: () => address('health'),
  };
}

/** forbiddenLines returns the log lines that mention a 403 / Forbidden answer. */
export function forbiddenLines(logs: readonly LogLine[]): LogLine[] {
  return logs.filter((line) => /forbidden|\b403\b/i.test(JSON.stringify(line)));
}

/** websiteKatalog derives the website example with its own API group and name, so test files do not share CRDs or Leases. */
export function websiteKatalog(suffix: string): { text: string; group: string; name: string } {
  const group = `e2e${suffix}.example.com`;
  const name = `website-${suffix}`;
  const text = readFileSync(join(REPO_ROOT, 'examples/website/katalog.yaml'), 'utf8')
    .replaceAll('demo.example.com', group)
    .replace('name: website-operator', `name: ${name}`);
  return { text, group, name };
}

/** uniqueSuffix is a short random DNS-safe suffix. */
export function uniqueSuffix(): string {
  return randomBytes(3).toString('hex');
}

/** tempDir creates a temporary directory for a test's files. */
export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'ork-e2e-'));
}

/**
 * serviceAccountKubeConfig applies `ork generate rbac <katalog> -n <namespace>` as admin (the
 * ServiceAccount, its ClusterRole or Role and bindings, the leader-election Role), requests a
 * token for the ServiceAccount through the TokenRequest API and writes a kubeconfig that uses
 * only that token. Returns the kubeconfig path and the ServiceAccount name.
 */
export async function serviceAccountKubeConfig(
  admin: KubeConfig,
  katalogFile: string,
  namespace: string,
  dir: string,
  /** More `ork generate rbac` flags, e.g. `--sharding`. */
  rbacFlags: readonly string[] = [],
): Promise<{ file: string; serviceAccount: string }> {
  const rbac = await runOrk(['generate', 'rbac', katalogFile, '-n', namespace, ...rbacFlags]);
  if (rbac.code !== 0) throw new Error(`ork generate rbac failed: ${rbac.stderr}`);
  const objects = documentsOf(rbac.stdout);
  await applyAll(admin, objects, { dryRun: false });
  const account = objects.find((o) => o.kind === 'ServiceAccount');
  const serviceAccount = account?.metadata?.name;
  if (serviceAccount == null) throw new Error('ork generate rbac wrote no ServiceAccount');
  const file = await tokenKubeConfig(admin, serviceAccount, namespace, dir, { contextNamespace: true });
  return { file, serviceAccount };
}

/**
 * tokenKubeConfig requests a token for `serviceAccount` through the TokenRequest API and writes a
 * kubeconfig into `dir` that uses only that token (its context in `namespace` with
 * `contextNamespace`). Returns the file's path.
 */
export async function tokenKubeConfig(
  admin: KubeConfig,
  serviceAccount: string,
  namespace: string,
  dir: string,
  options: { readonly contextNamespace?: boolean } = {},
): Promise<string> {
  const token = await admin.makeApiClient(CoreV1Api).createNamespacedServiceAccountToken({
    name: serviceAccount,
    namespace,
    body: { spec: { audiences: [], expirationSeconds: 3600 } },
  });
  const cluster = admin.getCurrentCluster();
  if (cluster == null || token.status?.token == null) throw new Error('no cluster or no token');
  const file = join(dir, `${serviceAccount}.kubeconfig`);
  writeFileSync(
    file,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name: 'testenv',
          cluster: {
            server: cluster.server,
            ...(cluster.caData == null ? {} : { 'certificate-authority-data': cluster.caData }),
            ...(cluster.caFile == null ? {} : { 'certificate-authority': cluster.caFile }),
          },
        },
      ],
      users: [{ name: serviceAccount, user: { token: token.status.token } }],
      contexts: [
        {
          name: 'sa',
          context: {
            cluster: 'testenv',
            user: serviceAccount,
            ...(options.contextNamespace ? { namespace } : {}),
          },
        },
      ],
      'current-context': 'sa',
    }),
    { mode: 0o600 },
  );
  return file;
}

/**
 * spawnDev starts `ork dev <katalog>` as a user does, writing its kubeconfig to `kubeconfig`, with
 * no metrics or health port and its control plane under `workDir`; `kubectl` runs the pinned
 * kubectl against that kubeconfig (the raw result) and `kubectlOk` throws on a non-zero exit.
 */
export function spawnDev(
  katalog: string,
  kubeconfig: string,
  workDir: string,
  /** More `ork dev` flags, e.g. `--replicas 3`. */
  flags: readonly string[] = [],
): {
  dev: OrkProcess;
  kubectl: (...args: string[]) => ReturnType<typeof runTool>;
  kubectlOk: (...args: string[]) => Promise<string>;
} {
  const dev = spawnOrk([
    'dev',
    katalog,
    '--kubeconfig-out',
    kubeconfig,
    '--metrics-bind-address',
    '0',
    '--health-probe-bind-address',
    '0',
    '--work-dir',
    workDir,
    ...flags,
  ]);
  const kubectl = (...args: string[]) => runTool('kubectl', ['--kubeconfig', kubeconfig, ...args]);
  const kubectlOk = async (...args: string[]) => {
    const run = await kubectl(...args);
    if (run.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${run.stderr}`);
    return run.stdout;
  };
  return { dev, kubectl, kubectlOk };
}

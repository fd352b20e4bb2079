/**
 * Attack replay: every finding of the December 2026 security review that has a public surface,
 * replayed as an attack through that surface only — the built `ork` binary (validate, render,
 * generate, run; spawned with an argv array, never a shell) and a real operator on the local
 * control plane (metrics, cross-read and Control Center ports, and what it does to the cluster).
 * Each attack must fail for the right reason: the positioned error, the status code, the condition
 * reason, and the bad effect absent. The boundaries themselves are listed in docs/security.md.
 *
 * | Finding | Surface replayed                                                        |
 * | ------- | ----------------------------------------------------------------------- |
 * | H1      | ork validate (literal repo); operator (CR-chosen repo), work dir         |
 * | H2      | ork validate --strict (templated regex); ork render, ork simulate (ReDoS) |
 * | H3      | operator: metrics port and cross port, unauthenticated and authenticated |
 * | M1      | ork validate; ork generate rbac                                          |
 * | M2      | ork validate                                                             |
 * | M3      | ork validate; ork render                                                 |
 * | M4      | operator: an unlabelled object with a child's name                       |
 * | M5      | operator, Control Center local mode; operator's own outbound calls       |
 * | M6      | ork run (token mode over plain HTTP); operator in token mode             |
 * | M7      | ork validate                                                             |
 * | L2, L3  | operator's outbound calls (status of the CR)                             |
 * | L4      | operator: a forged `status.inventory` ref, then the CR's deletion        |
 * | L5      | ork validate                                                             |
 * | L7      | ork validate and ork render on hostile bytes                             |
 * | L8      | ork validate (allowedRepoHosts); operator (CR-chosen file:// repo)       |
 *
 * Not replayed, because no public surface reaches them (each has its unit test, docs/security.md):
 * - M8 is a property of the chaos suite's own assertion (tools/chaos), not of the operator.
 * - L1 needs a reconcile cancelled while a cross HTTP read is in flight: an internal race, not an
 *   input an attacker controls.
 * - L6 needs a MongoDB server answering the provider; `ork render` takes provider outputs from
 *   its context file, so it never runs the provider's code.
 * - L9 (image pins) and L10 (the breadth of generated Secret rules) are not attacks; L11 is the
 *   cost of an internal function on input the message truncation already bounds.
 *
 * M4 is replayed against the operator, not `ork render`: render's `observed` objects are, by its
 * definition (ork render --help), children as the operator left them, so it does not model an
 * unmanaged object of the same name.
 *
 * The CLI attacks run in beforeAll, three `ork` processes at a time; one control plane serves
 * two operators (local-mode and token-mode Control Center; the first is restarted once, for L4).
 * Needs `pnpm build` (bin/ork.mjs runs dist).
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { useControlPlane } from '@orkestra/testenv/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Operator } from '../src/process/operator.js';
import { startInProcessOperator } from './in-process-operator.js';
import { REPO_ROOT } from './run-ork.js';
import { grant as grantRole, serviceAccountToken as serviceAccountTokenOf } from './service-accounts.js';

const ORK = join(REPO_ROOT, 'apps/operator/bin/ork.mjs');
const FIXTURES = 'apps/operator/test/attacks';
const fixture = (name: string): string => `${FIXTURES}/${name}`;
/** The review's ReDoS inputs take 58 s to hours on a backtracking engine; a run killed here failed. */
const ORK_KILL_MS = 120_000;

interface OrkRun {
  readonly code: number | null;
  readonly signal: string | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** ork spawns the built CLI with an argv array (no shell) in `cwd` (default the repo root). */
function ork(args: readonly string[], cwd = REPO_ROOT): Promise<OrkRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [ORK, ...args], {
      cwd,
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: process.env['HOME'] ?? '/tmp' },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: ORK_KILL_MS,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

// Hostile bytes for L7, written at run time (a 3 MiB fixture has no place in the repository).
const scratch = mkdtempSync(join(tmpdir(), 'orkestra-attacks-'));
const KATALOG_HEAD = `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: { name: attack-l7 }
spec:
  crds:
    x:
      apiTypes: { group: attacks.example.com, version: v1, kind: X, plural: xs }
`;
function writeHostileInputs(): Record<string, string> {
  const files: Record<string, string> = {
    deep: join(scratch, 'deep-flow.yaml'),
    nonUtf8: join(scratch, 'nonutf8.yaml'),
    utf16: join(scratch, 'utf16.yaml'),
    huge: join(scratch, 'huge.yaml'),
  };
  writeFileSync(
    files['deep']!,
    `${KATALOG_HEAD}      description: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`,
  );
  writeFileSync(
    files['nonUtf8']!,
    Buffer.concat([
      Buffer.from(KATALOG_HEAD),
      Buffer.from('      description: "caf'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('"\n'),
    ]),
  );
  writeFileSync(files['utf16']!, Buffer.from(`\ufeff${KATALOG_HEAD}`, 'utf16le'));
  writeFileSync(files['huge']!, `${KATALOG_HEAD}${`# ${'x'.repeat(98)}\n`.repeat(30_000)}`);
  return files;
}

const cli: Record<string, OrkRun> = {};

beforeAll(async () => {
  if (!existsSync(join(REPO_ROOT, 'apps/operator/dist/cli.js')))
    throw new Error('apps/operator/dist is missing: run pnpm build first (the replay runs the built ork)');
  const hostile = writeHostileInputs();
  const runs: Record<string, readonly string[]> = {
    h1Validate: ['validate', fixture('h1-git-host.yaml')],
    h2Validate: ['validate', fixture('h2-redos-tpl.yaml'), '--strict'],
    h2Render: ['render', fixture('h2-redos-optin.yaml'), '--cr', fixture('h2-cr-redos.yaml')],
    h2Simulate: ['simulate', fixture('h2-redos-optin.yaml'), '--scenario', fixture('h2-scenario.yaml')],
    m1Validate: ['validate', fixture('m1-custom-wild.yaml')],
    m1Rbac: ['generate', 'rbac', fixture('m1-custom-wild.yaml')],
    m2Validate: ['validate', fixture('m2-ext-secret.yaml'), '--strict'],
    m3Validate: ['validate', fixture('m3-copy-secret.yaml'), '--strict'],
    m3Render: ['render', fixture('m3-copy-secret.yaml'), '--cr', fixture('m3-cr.yaml')],
    m6Run: [
      'run',
      '--katalog',
      fixture('m4-adopt.yaml'),
      '--control-center',
      '--control-center-auth',
      'token',
      '--metrics-bind-address',
      '0.0.0.0:0',
      '--leader-elect=false',
    ],
    m7Validate: ['validate', fixture('m7-docker.yaml'), '--strict'],
    l5Validate: ['validate', fixture('l5-cross-ns.yaml')],
    l7Deep: ['validate', hostile['deep']!],
    l7NonUtf8: ['validate', hostile['nonUtf8']!],
    l7Utf16: ['validate', hostile['utf16']!],
    l7Huge: ['validate', hostile['huge']!],
    l8Validate: ['validate', fixture('l8-file-repo.yaml')],
  };
  const queue = Object.entries(runs);
  const worker = async (): Promise<void> => {
    for (let next = queue.shift(); next != null; next = queue.shift()) cli[next[0]] = await ork(next[1]);
  };
  await Promise.all([worker(), worker(), worker()]);
}, 600_000);

/** exited says the run ended by itself (not killed at ORK_KILL_MS) with `code`. */
function exited(run: OrkRun | undefined, code: number): OrkRun {
  expect(run, 'the ork run is missing').toBeDefined();
  expect(run?.signal, `ork was killed (${String(run?.signal)}): it did not finish`).toBeNull();
  expect(run?.code, `${run?.stderr ?? ''}${run?.stdout ?? ''}`).toBe(code);
  return run!;
}

describe('CLI replays (the built ork)', () => {
  it('H1 git ssh host with a newline: refused at validate and never reaches a shell', () => {
    const run = exited(cli['h1Validate'], 1);
    expect(run.stderr).toMatch(
      /h1-git-host\.yaml:11:\d+: spec\.crds\.site\.operatorBox\.git\.repo: .*(whitespace|control character)/,
    );
    expect(existsSync(join(REPO_ROOT, 'PWNED'))).toBe(false);
  });

  it('H2 ReDoS: a templated pattern is refused at validate, and the review inputs render at once', () => {
    const refused = exited(cli['h2Validate'], 1);
    expect(refused.stderr).toContain(
      'h2-redos-tpl.yaml:21:40: spec.crds.x.validation.rules[0].regex: a templated regex pattern is built from CR data at run time',
    );
    // With the opt-in, the 31-character field against ^(a|a)*$ (58 s backtracking) and 60 a's
    // against ^(a+)+$ (hours) finish on the linear engine: the run ends by itself, each CR denied.
    const render = exited(cli['h2Render'], 0);
    for (const name of ['r-tpl', 'r-lit'])
      expect(render.stderr).toContain(
        `h2-cr-redos.yaml: X default/${name}: Ready=False ValidationFailed: x.validation: name does not match the pattern; bad name`,
      );
    // 4,097 a's match both patterns, yet the subject is over the engine's cap: denied all the same.
    expect(render.stderr).toContain('X default/r-long: Ready=False ValidationFailed');
    expect(render.stdout).not.toMatch(/reason: ReconcileSucceeded/);
    // ork simulate runs the same engine: both steps end, each denied, every expectation held.
    const simulate = exited(cli['h2Simulate'], 0);
    expect(simulate.stdout).toContain('2 steps, 4 expectations, all passed');
    expect(
      simulate.stdout.match(/ready: False ValidationFailed: x\.validation: name does not match/g),
    ).toHaveLength(2);
  });

  it('M1 wildcards and escalate/bind/impersonate in custom roles: refused at validate and generate, each positioned', () => {
    const run = exited(cli['m1Validate'], 1);
    const custom = 'spec.crds.team.operatorBox.onReconcile.custom[0].rules[0]';
    expect(run.stderr).toContain(
      `m1-custom-wild.yaml:17:33: ${custom}.apiGroups[0]: wildcard "*" in a role rule`,
    );
    expect(run.stderr).toContain(`m1-custom-wild.yaml:17:51: ${custom}.resources[0]: wildcard "*"`);
    expect(run.stderr).toContain(`m1-custom-wild.yaml:17:65: ${custom}.verbs[0]: wildcard "*"`);
    const roles = 'spec.crds.team.operatorBox.onReconcile.roles[0]';
    expect(run.stderr).toContain(`m1-custom-wild.yaml:25:29: ${roles}.rules[1].verbs[0]: verb "escalate"`);
    expect(run.stderr).toContain(`m1-custom-wild.yaml:25:39: ${roles}.rules[1].verbs[1]: verb "bind"`);
    expect(run.stderr).toContain(`m1-custom-wild.yaml:27:91: ${roles}.rules[2].verbs[0]: verb "impersonate"`);
    const rbac = cli['m1Rbac'];
    expect(rbac?.code).not.toBe(0);
    expect(rbac?.stderr).toContain('wildcard "*" in a role rule');
    expect(rbac?.stdout).not.toMatch(/["']\*["']/);
    expect(rbac?.stdout).not.toMatch(/escalate|impersonate/);
  });

  it('M2 external auth: the CR chooses neither the credential of another namespace nor where it is sent', () => {
    const run = exited(cli['m2Validate'], 1);
    const call = 'spec.crds.app.operatorBox.external[0]';
    expect(run.stderr).toContain(
      `m2-ext-secret.yaml:12:18: ${call}.url: with \`auth\`, the URL's scheme, host and port must be literal`,
    );
    expect(run.stderr).toContain(
      `m2-ext-secret.yaml:16:25: ${call}.auth.secretRef.name: must be a literal, not a template, when auth.secretRef.namespace is set`,
    );
    expect(run.stderr).toContain(`m2-ext-secret.yaml:16:55: ${call}.auth.secretRef.key: must be a literal`);
  });

  it('M3 templated child namespace: refused at validate and render, no Secret copied out', () => {
    const run = exited(cli['m3Validate'], 1);
    const secret = 'spec.crds.app.operatorBox.onReconcile.secrets[0]';
    expect(run.stderr).toContain(
      `m3-copy-secret.yaml:14:26: ${secret}.namespace: a templated namespace in a namespaced entry needs \`allowedNamespaces\``,
    );
    expect(run.stderr).toContain(
      `m3-copy-secret.yaml:15:33: ${secret}.copyFrom.name: must be a literal source name when the copy's namespace may differ from the CR's`,
    );
    const render = cli['m3Render'];
    expect(render?.code).not.toBe(0);
    expect(render?.stderr).toContain('m3-copy-secret.yaml:14:26:');
    expect(render?.stdout).not.toContain('attacker-ns');
    expect(render?.stdout).not.toContain('c3VwZXJzZWNyZXQ=');
  });

  it('M6 token mode over plain HTTP off loopback: ork run refuses to start', () => {
    const run = exited(cli['m6Run'], 2);
    expect(run.stderr).toContain(
      'ork run: --control-center-auth=token sends bearer tokens, so it needs TLS (--control-center-cert and --control-center-key) unless --metrics-bind-address is a loopback address; got "0.0.0.0:0" over plain HTTP',
    );
  });

  it('M7 docker without a git hook: a CR-chosen build context and registry are refused at validate', () => {
    const run = exited(cli['m7Validate'], 1);
    const docker = 'spec.crds.image.operatorBox.docker';
    expect(run.stderr).toContain(
      `m7-docker.yaml:11:26: ${docker}.image: with push: true, image must start with a literal registry host`,
    );
    expect(run.stderr).toContain(
      `m7-docker.yaml:11:71: ${docker}.workingDirectory: must be a literal without a git hook`,
    );
  });

  it('L5 templated cross selector namespace: refused at validate, positioned', () => {
    const run = exited(cli['l5Validate'], 1);
    expect(run.stderr).toContain(
      'l5-cross-ns.yaml:13:70: spec.crds.app.operatorBox.cross[0].selector.namespace: a templated selector.namespace in a namespaced entry needs `allowedNamespaces`',
    );
  });

  it('L7 hostile bytes: deep nesting, non-UTF-8, UTF-16 and an oversized file are refused by name', () => {
    for (const key of ['l7Deep', 'l7NonUtf8', 'l7Utf16', 'l7Huge']) {
      const run = exited(cli[key], 1);
      expect(run.stderr).not.toMatch(/Maximum call stack size exceeded|RangeError/);
    }
    expect(cli['l7Deep']?.stderr).toMatch(/deep-flow\.yaml:8:\d+: .*nest/i);
    expect(cli['l7NonUtf8']?.stderr).toMatch(/nonutf8\.yaml:\d+:\d+: .*UTF-8/);
    expect(cli['l7Utf16']?.stderr).toMatch(/utf16\.yaml:1:1: .*UTF-16/);
    expect(cli['l7Huge']?.stderr).toMatch(/huge\.yaml:1:1: .*2 MiB/);
  });

  it('L8 allowedRepoHosts: a repository on another host is refused at validate, positioned', () => {
    const run = exited(cli['l8Validate'], 1);
    expect(run.stderr).toContain(
      'l8-file-repo.yaml:12:22: spec.crds.site.operatorBox.git.repo: git repo host "git.attacker.example" is not in spec.allowedRepoHosts (git.example.com)',
    );
  });
});

// ---------------------------------------------------------------------------------------------
// The operator on the local control plane.

const env = useControlPlane();
const group = 'attacks.example.com';
let operator: Operator | undefined;
let tokenOperator: Operator | undefined;
let workDir = '';
let metrics = '';
let cross = '';
let tokenCc = '';
let ccToken = '';
const tokens: Record<string, string> = {};
/** Requests that reached the recorder (stands in for an attacker's target on loopback). */
const recorded: { url: string; authorization?: string; from?: string | undefined }[] = [];
let recorder: http.Server | undefined;
let recorderPort = 0;

const serviceAccountToken = (name: string, audiences: string[]): Promise<string> =>
  serviceAccountTokenOf({ kubeConfig: env.kubeConfig, namespace: env.namespace, name, audiences });

const grant = (name: string, plural: string, verbs: string[], serviceAccount: string): Promise<void> =>
  grantRole({
    kubeConfig: env.kubeConfig,
    namespace: env.namespace,
    name,
    group,
    plural,
    verbs,
    serviceAccount,
  });

function custom(): CustomObjectsApi {
  return env.kubeConfig.makeApiClient(CustomObjectsApi);
}

async function createCr(plural: string, kind: string, name: string, spec: unknown): Promise<void> {
  await custom().createNamespacedCustomObject({
    group,
    version: 'v1',
    namespace: env.namespace,
    plural,
    body: { apiVersion: `${group}/v1`, kind, metadata: { name, namespace: env.namespace }, spec },
  });
}

interface CrState {
  readonly status?: Record<string, unknown> & {
    conditions?: { type: string; status: string; reason: string; message: string }[];
  };
}

async function getCr(plural: string, name: string): Promise<CrState | undefined> {
  try {
    return (await custom().getNamespacedCustomObject({
      group,
      version: 'v1',
      namespace: env.namespace,
      plural,
      name,
    })) as CrState;
  } catch {
    return undefined;
  }
}

/** waitFor polls `probe` until it returns a value (no timing asserted; the test timeout bounds it). */
async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, ms = 90_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 200));
  }
}

async function readyCondition(plural: string, name: string, reason?: string) {
  return waitFor(`${plural}/${name} Ready${reason == null ? '' : ` ${reason}`}`, async () => {
    const ready = (await getCr(plural, name))?.status?.conditions?.find((c) => c.type === 'Ready');
    if (ready == null) return undefined;
    return reason == null || ready.reason === reason ? ready : undefined;
  });
}

/** startMainOperator starts the operator of operator-katalog.yaml (Control Center local mode, cross port). */
async function startMainOperator(): Promise<Operator> {
  const started = await startInProcessOperator({
    katalogFile: join(REPO_ROOT, fixture('operator-katalog.yaml')),
    cwd: workDir,
    kubeConfig: env.kubeConfig,
    namespace: env.namespace,
    args: [
      ...['--metrics-bind-address', '127.0.0.1:0', '--cross-bind-address', '127.0.0.1:0'],
      ...['--control-center', '--work-dir', workDir],
    ],
  });
  await started.synced;
  return started;
}

beforeAll(async () => {
  try {
    void env.namespace;
  } catch {
    return; // no control plane: useControlPlane skips every test of this block
  }
  recorder = http.createServer((request, response) => {
    recorded.push({
      url: request.url ?? '',
      from: request.socket.remoteAddress,
      ...(request.headers.authorization == null ? {} : { authorization: request.headers.authorization }),
    });
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end('{"reached":true}');
  });
  await new Promise<void>((done) => recorder!.listen(0, '::', done));
  recorderPort = (recorder.address() as AddressInfo).port;

  tokens['reader'] = await serviceAccountToken('attack-reader', ['orkestra-cross']);
  tokens['nobody'] = await serviceAccountToken('attack-nobody', ['orkestra-cross']);
  tokens['apiAudience'] = await serviceAccountToken('attack-reader', []);
  tokens['viewer'] = await serviceAccountToken('attack-viewer', ['orkestra-control-center']);
  tokens['viewerApi'] = await serviceAccountToken('attack-viewer', []);
  await grant('attack-db-reader', 'dbs', ['get'], 'attack-reader');
  await grant('attack-vault-reader', 'vaults', ['get'], 'attack-reader');

  workDir = mkdtempSync(join(tmpdir(), 'orkestra-attack-work-'));
  operator = await startMainOperator();
  metrics = `http://127.0.0.1:${operator.metricsAddress?.port ?? 0}`;
  cross = `http://127.0.0.1:${operator.crossAddress?.port ?? 0}`;
  ccToken = operator.controlCenterToken ?? '';

  // A second operator: the Control Center in token mode, aggregating the recorder as its upstream.
  tokenOperator = await startInProcessOperator({
    katalogFile: join(REPO_ROOT, fixture('token-katalog.yaml')),
    cwd: workDir,
    kubeConfig: env.kubeConfig,
    namespace: env.namespace,
    args: [
      ...['--metrics-bind-address', '127.0.0.1:0', '--cross-bind-address', '0'],
      ...['--control-center', '--control-center-auth', 'token'],
      ...['--control-center-upstreams', `http://127.0.0.1:${recorderPort}`],
    ],
  });
  await tokenOperator.synced;
  tokenCc = `http://127.0.0.1:${tokenOperator.metricsAddress?.port ?? 0}`;

  await createCr('dbs', 'Db', 'payments', { connection: 'postgres://root:hunter2@db:5432/pay' });
  await createCr('vaults', 'Vault', 'keys', { rootKey: 'vault-root-hunter2' });
}, 300_000);

afterAll(async () => {
  await tokenOperator?.shutdown('test done');
  await operator?.shutdown('test done');
  await new Promise((done) => (recorder == null ? done(undefined) : recorder.close(done)));
});

async function get(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  const answer = await fetch(url, { headers, redirect: 'manual' });
  return { status: answer.status, body: await answer.text() };
}

/** filesUnder lists every path below `dir` (the work directory the git hook used). */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' });
}

describe('operator replays (local control plane)', () => {
  it('H1 git ssh host with a newline from a CR: refused before any git process, no file created by a shell', async () => {
    // The review's repo, as the CR's JSON carries it ("\n", "\t"), scp-like and ssh:// forms.
    await createCr('sites', 'Site', 'scp', { repo: 'git@a\ntouch\tPWNED\n.attacker.example:org/repo.git' });
    await createCr('sites', 'Site', 'url', {
      repo: 'ssh://git@a\ntouch\tPWNED2\n.attacker.example/org/repo.git',
    });
    for (const name of ['scp', 'url']) {
      const ready = await readyCondition('sites', name, 'GitFailed');
      expect(ready.status).toBe('False');
      expect(ready.message).toMatch(/whitespace|control character/);
    }
    expect(filesUnder(workDir).filter((path) => /PWNED/.test(path))).toEqual([]);
    expect(existsSync(join(REPO_ROOT, 'PWNED'))).toBe(false);
  }, 120_000);

  it('H3 unauthenticated read of a CR: not on the metrics port, 401 without a token, 403 without crossAccess', async () => {
    const path = `/katalog/crds/db/objects/${env.namespace}/payments`;
    // The metrics port serves no object reads at all.
    const onMetrics = await get(`${metrics}${path}`);
    expect(onMetrics.status).toBe(404);
    expect(onMetrics.body).not.toContain('hunter2');
    // The cross port: no token, a garbage token, and an API-server token (wrong audience) are 401.
    for (const bearer of [undefined, 'not-a-token', tokens['apiAudience']]) {
      const answer = await get(
        `${cross}${path}`,
        bearer == null ? {} : { authorization: `Bearer ${bearer}` },
      );
      expect(answer.status).toBe(401);
      expect(answer.body).not.toContain('hunter2');
    }
    // A token for the right audience whose user may not get the Db: 403.
    const nobody = await get(`${cross}${path}`, { authorization: `Bearer ${tokens['nobody']}` });
    expect(nobody.status).toBe(403);
    expect(nobody.body).not.toContain('hunter2');
    // crossAccess is off by default: even a caller who may get the Vault is refused it.
    const vault = await get(`${cross}/katalog/crds/vault/objects/${env.namespace}/keys`, {
      authorization: `Bearer ${tokens['reader']}`,
    });
    expect(vault.status).toBe(403);
    expect(vault.body).not.toContain('vault-root-hunter2');
    // The control: the same port serves the opted-in Db to a caller who may get it.
    await waitFor('the Db in the cache', async () => {
      const answer = await get(`${cross}${path}`, { authorization: `Bearer ${tokens['reader']}` });
      return answer.status === 200 ? answer : undefined;
    });
  }, 120_000);

  it('M4 an unmanaged object named like a child: left untouched, ChildConflict, not deleted with the CR', async () => {
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    await core.createNamespacedConfigMap({
      namespace: env.namespace,
      body: {
        metadata: { name: 'victim-config', labels: { team: 'platform' } },
        data: { dsn: 'postgres://payments-primary:5432/pay' },
      },
    });
    await createCr('apps', 'App', 'victim', {});
    const ready = await readyCondition('apps', 'victim', 'ChildConflict');
    expect(ready.status).toBe('False');
    expect(ready.message).toContain('already exists and is not managed by Orkestra');
    const untouched = await core.readNamespacedConfigMap({ name: 'victim-config', namespace: env.namespace });
    expect(untouched.metadata?.labels).toEqual({ team: 'platform' });
    expect(untouched.data).toEqual({ dsn: 'postgres://payments-primary:5432/pay' });
    expect(untouched.metadata?.ownerReferences ?? []).toEqual([]);
    await custom().deleteNamespacedCustomObject({
      group,
      version: 'v1',
      namespace: env.namespace,
      plural: 'apps',
      name: 'victim',
    });
    await waitFor('the App gone', async () => ((await getCr('apps', 'victim')) == null ? true : undefined));
    const after = await core.readNamespacedConfigMap({ name: 'victim-config', namespace: env.namespace });
    expect(after.data).toEqual({ dsn: 'postgres://payments-primary:5432/pay' });
  }, 120_000);

  it('M5 Control Center local mode: the gate runs before the proxy, Host is checked, loopback alone is not trusted', async () => {
    // (a) the upstream proxy without the token: 401, and nothing is proxied.
    const before = recorded.length;
    const proxied = await get(`${metrics}/api/v1/upstreams/0/katalog`);
    expect(proxied.status).toBe(401);
    expect(proxied.body).toContain('open the Control Center with the URL ork printed');
    // (c) loopback without the token: 401; a wrong token too.
    expect((await get(`${metrics}/api/v1`)).status).toBe(401);
    expect((await get(`${metrics}/api/v1`, { authorization: 'Bearer guessed' })).status).toBe(401);
    // (b) DNS rebinding: the right token under a foreign Host is refused.
    const rebound = await new Promise<number>((resolve, reject) => {
      http
        .get(
          {
            host: '127.0.0.1',
            port: operator?.metricsAddress?.port,
            path: '/api/v1',
            headers: {
              host: `evil.example:${operator?.metricsAddress?.port ?? 0}`,
              authorization: `Bearer ${ccToken}`,
            },
          },
          (answer) => {
            answer.resume();
            resolve(answer.statusCode ?? 0);
          },
        )
        .on('error', reject);
    });
    expect([403, 421]).toContain(rebound);
    // The control: with the token and a served Host, the API answers.
    expect((await get(`${metrics}/api/v1`, { authorization: `Bearer ${ccToken}` })).status).toBe(200);
    // (c) the operator's own outbound calls cannot reach loopback in any spelling (the recorder
    // listens on every loopback address; the Control Center is one of the targets).
    const port = operator?.metricsAddress?.port ?? 0;
    await createCr('probes', 'Probe', 'loopback', {
      a: `http://0.0.0.0:${port}/api/v1`,
      b: `http://[::ffff:127.0.0.1]:${recorderPort}/m5`,
      c: `http://2130706433:${recorderPort}/m5`,
      d: `http://0x7f.1:${recorderPort}/m5`,
    });
    const status = await waitFor('the Probe status', async () => {
      const state = await getCr('probes', 'loopback');
      return typeof state?.status?.['d'] === 'string' ? state.status : undefined;
    });
    for (const key of ['a', 'b', 'c', 'd']) {
      expect(String(status[key])).toMatch(/^false .*(loopback|refused|not allowed)/i);
    }
    expect(recorded.slice(before).filter((request) => request.url === '/m5')).toEqual([]);
  }, 120_000);

  it('M6 Control Center token mode: the audience is checked and a viewer token never reaches an upstream', async () => {
    // An API-server token (no audience) is refused; so is none.
    expect((await get(`${tokenCc}/api/v1`)).status).toBe(401);
    expect((await get(`${tokenCc}/api/v1`, { authorization: `Bearer ${tokens['viewerApi']}` })).status).toBe(
      401,
    );
    const viewer = { authorization: `Bearer ${tokens['viewer']}` };
    expect((await get(`${tokenCc}/api/v1`, viewer)).status).toBe(200);
    const before = recorded.length;
    await get(`${tokenCc}/api/v1/upstreams/0/katalog`, viewer);
    const upstream = recorded.slice(before);
    expect(upstream.map((request) => request.url)).toContain('/api/v1/katalog');
    for (const request of upstream) expect(request.authorization ?? '').not.toContain(tokens['viewer']!);
  }, 120_000);

  it('L2 credentials in a CR-chosen URL: never in the status the CR author reads', async () => {
    await createCr('probes', 'Probe', 'creds', {
      a: `http://bot:p@ss@0.0.0.0:${recorderPort}/x?private_token=glpat-SECRET`,
      b: `http://user:hunter2@127.0.0.1:${recorderPort}/y?api_key=k3y-SECRET`,
      c: 'http://169.254.169.254/latest/meta-data/',
      d: 'http://metadata.google.internal/computeMetadata/v1/',
    });
    const status = await waitFor('the Probe status', async () => {
      const state = await getCr('probes', 'creds');
      return typeof state?.status?.['d'] === 'string' ? state.status : undefined;
    });
    const text = JSON.stringify(status);
    for (const secret of ['p@ss', 'ss@0.0.0.0', 'glpat-SECRET', 'hunter2', 'k3y-SECRET'])
      expect(text).not.toContain(secret);
    expect(String(status['a'])).toMatch(/^false /);
    expect(String(status['b'])).toMatch(/^false /);
  }, 120_000);

  it('L3 address guard: Azure WireServer, OCI metadata, NAT64 and unspecified addresses are refused', async () => {
    const before = recorded.length;
    await createCr('probes', 'Probe', 'metadata', {
      a: 'http://168.63.129.16/machine?comp=goalstate',
      b: 'http://192.0.0.192/opc/v2/instance/',
      c: 'http://[64:ff9b:1::a9fe:a9fe]/latest/meta-data/',
      d: `http://[::]:${recorderPort}/l3`,
    });
    const status = await waitFor('the Probe status', async () => {
      const state = await getCr('probes', 'metadata');
      return typeof state?.status?.['d'] === 'string' ? state.status : undefined;
    });
    for (const key of ['a', 'b', 'c', 'd'])
      expect(String(status[key])).toMatch(/^false .*(refused|not allowed)/i);
    expect(recorded.slice(before).filter((request) => request.url === '/l3')).toEqual([]);
  }, 120_000);

  it('L4 a forged status.inventory ref to an unwatched object: not deleted with the CR', async () => {
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    const victim = await core.createNamespacedServiceAccount({
      namespace: env.namespace,
      body: { metadata: { name: 'l4-victim' } },
    });
    await createCr('apps', 'App', 'l4', {});
    await readyCondition('apps', 'l4', 'ReconcileSucceeded');
    // A status writer (patch on apps/status, often granted more widely than create) adds a ref to
    // an object of a kind no informer watches.
    const inventory = ((await getCr('apps', 'l4'))?.status?.['inventory'] ?? []) as Record<string, unknown>[];
    expect(inventory.map((record) => record['name'])).toEqual(['l4-config']);
    const forged = { ...inventory[0], apiVersion: 'v1', kind: 'ServiceAccount', name: 'l4-victim' };
    // The operator rewrites the inventory on its next reconcile, so the forgery is made while it
    // is stopped: the status writer patches, the CR is deleted (its finalizer holds it), and a new
    // operator process meets the forged ref on its first look at the CR, in the deletion path.
    await operator?.shutdown('L4 replay');
    operator = undefined;
    await custom().patchNamespacedCustomObjectStatus(
      {
        group,
        version: 'v1',
        namespace: env.namespace,
        plural: 'apps',
        name: 'l4',
        body: { status: { inventory: [...inventory, forged] } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await custom().deleteNamespacedCustomObject({
      group,
      version: 'v1',
      namespace: env.namespace,
      plural: 'apps',
      name: 'l4',
    });
    const held = await getCr('apps', 'l4');
    expect(
      ((held?.status?.['inventory'] ?? []) as { name: string }[]).map((record) => record.name),
      'the forged ref is not in status.inventory: the replay would not test anything',
    ).toEqual(['l4-config', 'l4-victim']);
    operator = await startMainOperator();
    await waitFor('the App gone', async () => ((await getCr('apps', 'l4')) == null ? true : undefined));
    // Deletion ran (its own child is gone) and left the forged ref's object alone.
    await waitFor("the App's own child gone", async () =>
      (await core.listNamespacedConfigMap({ namespace: env.namespace })).items.some(
        (item) => item.metadata?.name === 'l4-config',
      )
        ? undefined
        : true,
    );
    const after = await core.readNamespacedServiceAccount({ name: 'l4-victim', namespace: env.namespace });
    expect(after.metadata?.uid).toBe(victim.metadata?.uid);
    expect(after.metadata?.deletionTimestamp).toBeUndefined();
  }, 120_000);

  it("L8 a CR-chosen file:// repository or local path (another tenant's checkout): GitFailed, never cloned", async () => {
    // A real repository holding another tenant's file, so a clone would be seen.
    const other = join(workDir, 'other-tenant');
    const git = (...args: string[]): void => {
      execFileSync('git', args, { cwd: other, stdio: 'ignore' });
    };
    mkdirSync(other);
    writeFileSync(join(other, 'tenant-secret.txt'), 'team-b\n');
    git('init', '-q', '-b', 'main');
    git('add', '.');
    git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'x');
    await createCr('sites', 'Site', 'local', { repo: `file://${other}` });
    await createCr('sites', 'Site', 'path', { repo: other });
    for (const name of ['local', 'path']) {
      const ready = await readyCondition('sites', name, 'GitFailed');
      expect(ready.status).toBe('False');
      expect(ready.message).toMatch(/local|file/i);
    }
    const copies = filesUnder(workDir).filter(
      (path) => path.endsWith('tenant-secret.txt') && !path.startsWith('other-tenant'),
    );
    expect(copies).toEqual([]);
  }, 120_000);
});

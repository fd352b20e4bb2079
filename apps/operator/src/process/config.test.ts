import { describe, expect, it } from 'vitest';
import { parseRunConfig } from './config.js';
import type { ParseRunConfigResult, RunConfig } from './config.js';

function ok(result: ParseRunConfigResult): RunConfig {
  if (!result.ok) throw new Error(`expected a config, got errors: ${result.errors.join('; ')}`);
  return result.config;
}

function errors(result: ParseRunConfigResult): readonly string[] {
  if (result.ok) throw new Error('expected errors');
  return result.errors;
}

describe('parseRunConfig', () => {
  it('applies the defaults of docs/reference/runtime.md §22', () => {
    expect(ok(parseRunConfig([], { env: {} }))).toEqual({
      katalog: './katalog.yaml',
      namespace: 'orkestra-system',
      leaderElect: true,
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      sharding: false,
      metricsBindAddress: ':8080',
      healthProbeBindAddress: ':8081',
      logLevel: 'info',
      reconcileTimeoutMs: 300_000,
      shutdownTimeoutMs: 30_000,
      maxConcurrentWrites: 8,
      watchIdleTimeoutMs: 300_000,
      workDir: '/var/lib/orkestra',
      maxWorkDirBytes: 1024 ** 3,
      maxConcurrentBuilds: 1,
      resyncSkipRecent: true,
      ociBuilder: 'docker',
      installCrds: false,
      controlCenter: false,
      controlCenterAuth: 'local',
      controlCenterUpstreams: [],
      controlCenterHosts: [],
      allowPrivateAddresses: [],
      crossBindAddress: ':8082',
      webhookBindAddress: ':9443',
      webhookAsked: false,
      webhookService: 'orkestra-webhook',
      crossAuth: 'token',
      crossTokenFile: '/var/run/secrets/orkestra.io/cross/token',
    });
  });

  it('reads the Control Center flags and environment (docs/reference/runtime.md §23)', () => {
    const flags = ok(
      parseRunConfig(
        [
          '--control-center',
          '--control-center-auth',
          'token',
          '--control-center-upstreams',
          'http://a:8080, http://b:8080',
          '--metrics-bind-address',
          '127.0.0.1:8080',
        ],
        { env: {} },
      ),
    );
    expect([flags.controlCenter, flags.controlCenterAuth, flags.controlCenterUpstreams]).toEqual([
      true,
      'token',
      ['http://a:8080', 'http://b:8080'],
    ]);
    expect(ok(parseRunConfig([], { env: { ORKESTRA_CONTROL_CENTER: 'true' } })).controlCenter).toBe(true);
    expect(
      ok(parseRunConfig(['--control-center=false'], { env: { ORKESTRA_CONTROL_CENTER: 'true' } }))
        .controlCenter,
    ).toBe(false);
    const bad = parseRunConfig(['--control-center-auth', 'open', '--control-center-upstreams', 'ftp://x'], {
      env: {},
    });
    expect(bad.ok ? [] : bad.errors).toEqual([
      '--control-center-auth: "open" is not one of local, token',
      '--control-center-upstreams: "ftp://x" is not an http(s) URL',
    ]);
  });

  it('reads the environment', () => {
    const config = ok(
      parseRunConfig([], {
        env: {
          ORKESTRA_KATALOG: '/etc/orkestra/katalog.yaml',
          KUBECONFIG: '/home/me/.kube/dev',
          POD_NAMESPACE: 'ops',
          LOG_LEVEL: 'debug',
          OCI_BUILDER: 'buildah',
        },
      }),
    );
    expect(config).toMatchObject({
      katalog: '/etc/orkestra/katalog.yaml',
      kubeconfig: '/home/me/.kube/dev',
      namespace: 'ops',
      logLevel: 'debug',
      ociBuilder: 'buildah',
    });
  });

  it('lets flags win over the environment and parses every flag', () => {
    const config = ok(
      parseRunConfig(
        [
          '--katalog=k.yaml',
          '--kubeconfig',
          'kc',
          '--namespace',
          'team-a',
          '--leader-elect=false',
          '--lease-duration',
          '30s',
          '--renew-deadline',
          '20s',
          '--retry-period',
          '5s',
          '--metrics-bind-address',
          '127.0.0.1:9090',
          '--health-probe-bind-address',
          '0',
          '--log-level',
          'warn',
          '--reconcile-timeout',
          '1m30s',
          '--shutdown-timeout',
          '45s',
          '--max-concurrent-writes',
          '16',
          '--watch-idle-timeout',
          '2m',
          '--work-dir',
          '/tmp/ork',
          '--max-work-dir-bytes',
          '512Mi',
          '--max-concurrent-builds',
          '3',
          '--resync-skip-recent=false',
          '--install-crds',
        ],
        { env: { ORKESTRA_KATALOG: 'env.yaml', POD_NAMESPACE: 'env-ns', LOG_LEVEL: 'debug' } },
      ),
    );
    expect(config).toEqual({
      katalog: 'k.yaml',
      kubeconfig: 'kc',
      namespace: 'team-a',
      leaderElect: false,
      leaseDurationMs: 30_000,
      renewDeadlineMs: 20_000,
      retryPeriodMs: 5_000,
      sharding: false,
      metricsBindAddress: '127.0.0.1:9090',
      healthProbeBindAddress: '0',
      logLevel: 'warn',
      reconcileTimeoutMs: 90_000,
      shutdownTimeoutMs: 45_000,
      maxConcurrentWrites: 16,
      watchIdleTimeoutMs: 120_000,
      workDir: '/tmp/ork',
      maxWorkDirBytes: 512 * 1024 ** 2,
      maxConcurrentBuilds: 3,
      resyncSkipRecent: false,
      ociBuilder: 'docker',
      installCrds: true,
      controlCenter: false,
      controlCenterAuth: 'local',
      controlCenterUpstreams: [],
      controlCenterHosts: [],
      crossBindAddress: ':8082',
      webhookBindAddress: ':9443',
      webhookAsked: false,
      webhookService: 'orkestra-webhook',
      crossAuth: 'token',
      crossTokenFile: '/var/run/secrets/orkestra.io/cross/token',
      allowPrivateAddresses: [],
    });
  });

  it('accepts the Katalog as the first argument, and per-command defaults', () => {
    const config = ok(
      parseRunConfig(['shop.yaml'], { env: {}, defaults: { leaderElect: false, installCrds: true } }),
    );
    expect(config).toMatchObject({ katalog: 'shop.yaml', leaderElect: false, installCrds: true });
    expect(
      ok(
        parseRunConfig(['--leader-elect', '--no-install-crds'], {
          env: {},
          defaults: { leaderElect: false, installCrds: true },
        }),
      ),
    ).toMatchObject({ leaderElect: true, installCrds: false });
  });

  it('collects every error with the flag it concerns', () => {
    const list = errors(
      parseRunConfig(
        [
          '--lease-duration',
          'soon',
          '--shutdown-timeout',
          '0',
          '--max-concurrent-writes',
          '2.5',
          '--max-work-dir-bytes',
          '1GB',
          '--metrics-bind-address',
          'localhost',
          '--log-level',
          'loud',
          '--leader-elect=maybe',
          '--namespace',
          'Not_OK',
        ],
        { env: { OCI_BUILDER: 'kaniko' } },
      ),
    );
    expect(list).toEqual(
      expect.arrayContaining([
        '--leader-elect: expected true or false, got "maybe"',
        '--lease-duration: "soon" is not a duration (examples: 500ms, 15s, 5m, 1h30m)',
        '--shutdown-timeout: must be greater than 0, got "0"',
        '--max-concurrent-writes: expected a whole number of at least 1, got "2.5"',
        '--max-work-dir-bytes: expected a number of bytes with an optional Ki, Mi or Gi suffix, got "1GB"',
        expect.stringMatching(/^--metrics-bind-address: invalid bind address "localhost"/),
        expect.stringMatching(/^--log-level: "loud" is not one of trace, debug, info/),
        expect.stringMatching(/^--namespace: "Not_OK" is not a valid namespace name/),
        'OCI_BUILDER: "kaniko" is not one of docker, podman, buildah',
      ]),
    );
    expect(list).toHaveLength(9);
  });

  it('checks that the lease timings can work', () => {
    expect(
      errors(parseRunConfig(['--lease-duration', '10s', '--renew-deadline', '10s'], { env: {} })),
    ).toEqual(['--lease-duration must be greater than --renew-deadline']);
    expect(errors(parseRunConfig(['--renew-deadline', '2s'], { env: {} }))).toEqual([
      '--renew-deadline must be greater than 1.2 × --retry-period',
    ]);
    expect(parseRunConfig(['--renew-deadline', '2s', '--leader-elect=false'], { env: {} }).ok).toBe(true);
  });

  it('turns sharding on by flag or environment, and only with leader election', () => {
    expect(ok(parseRunConfig([], { env: {} })).sharding).toBe(false);
    expect(ok(parseRunConfig(['--sharding'], { env: {} })).sharding).toBe(true);
    expect(ok(parseRunConfig([], { env: { ORKESTRA_SHARDING: 'true' } })).sharding).toBe(true);
    expect(errors(parseRunConfig(['--sharding', '--leader-elect=false'], { env: {} }))).toEqual([
      '--sharding needs leader election: the sharder runs on the leader (drop --leader-elect=false)',
    ]);
  });

  it('reports unknown flags and conflicting Katalog paths', () => {
    expect(errors(parseRunConfig(['--katalgo', 'x'], { env: {} }))[0]).toMatch(/Unknown option '--katalgo'/);
    expect(errors(parseRunConfig(['--katalog', 'a.yaml', 'b.yaml'], { env: {} }))).toEqual([
      'the Katalog is given twice: --katalog a.yaml and b.yaml',
    ]);
  });

  it('serves cross reads without authentication only on a loopback address (docs/adr/0030)', () => {
    expect(errors(parseRunConfig(['--cross-auth', 'none'], { env: {} }))).toEqual([
      expect.stringMatching(
        /^--cross-auth=none serves cross reads without authentication, so --cross-bind-address must be a loopback address/,
      ),
    ]);
    expect(
      errors(parseRunConfig(['--cross-auth', 'none', '--cross-bind-address', '0.0.0.0:8082'], { env: {} })),
    ).toHaveLength(1);
    for (const address of ['127.0.0.1:8082', '[::1]:0', 'localhost:8082', '0']) {
      expect(
        ok(parseRunConfig(['--cross-auth', 'none', '--cross-bind-address', address], { env: {} })).crossAuth,
      ).toBe('none');
    }
    expect(errors(parseRunConfig(['--webhook-service', 'Not A Name'], { env: {} }))).toEqual([
      '--webhook-service: "Not A Name" is neither a Service name nor an https:// URL',
    ]);
    expect(
      ok(parseRunConfig(['--webhook-service', 'https://10.0.0.5:9443'], { env: {} })).webhookService,
    ).toBe('https://10.0.0.5:9443');
    expect(errors(parseRunConfig(['--cross-auth', 'open'], { env: {} }))).toEqual([
      '--cross-auth: "open" is not one of token, none',
    ]);
  });

  it('refuses token mode over plain HTTP on a non-loopback listener (docs/adr/0031)', () => {
    expect(
      errors(parseRunConfig(['--control-center', '--control-center-auth', 'token'], { env: {} })),
    ).toEqual([expect.stringMatching(/^--control-center-auth=token sends bearer tokens, so it needs TLS/)]);
    expect(
      ok(
        parseRunConfig(
          ['--control-center', '--control-center-auth', 'token', '--metrics-bind-address', '127.0.0.1:8080'],
          { env: {} },
        ),
      ).controlCenterAuth,
    ).toBe('token');
    const tls = ok(
      parseRunConfig(
        [
          '--control-center',
          '--control-center-auth=token',
          '--control-center-cert',
          'c.pem',
          '--control-center-key',
          'k.pem',
        ],
        { env: {} },
      ),
    );
    expect([tls.controlCenterCert, tls.controlCenterKey]).toEqual(['c.pem', 'k.pem']);
    expect(errors(parseRunConfig(['--control-center-cert', 'c.pem'], { env: {} }))).toEqual([
      '--control-center-cert and --control-center-key go together',
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import { runOrk } from '../../test/run-ork.js';

// Everything `ork run`, `ork dev` and `ork demo` reject before touching a cluster. Their running
// behaviour is covered by test/e2e (the real binary against the local control plane).

describe('ork run', () => {
  it('prints its flags on --help', async () => {
    const help = await runOrk(['run', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: ork run [<katalog>] [flags]');
    expect(help.stdout).toContain('--leader-elect[=true|false]');
  });

  it('reports every bad flag at once as a usage error', async () => {
    const run = await runOrk(['run', 'k.yaml', '--lease-duration', '5s', '--log-level', 'loud']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--lease-duration must be greater than --renew-deadline');
    expect(run.stderr).toContain('--log-level: "loud" is not one of');
    expect(run.stderr).toContain('Usage: ork run');
  });

  it('exits 1 with positioned errors for an invalid Katalog, before connecting', async () => {
    const run = await runOrk([
      'run',
      'apps/operator/test/fixtures/broken.yaml',
      '--kubeconfig',
      '/nonexistent',
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('apps/operator/test/fixtures/broken.yaml:14:15: ');
    expect(run.stderr).toContain('ork run: apps/operator/test/fixtures/broken.yaml: the Katalog is invalid');
  });

  it('exits 1 when there is no cluster to connect to', async () => {
    const run = await runOrk([
      'run',
      'examples/website/katalog.yaml',
      '--kubeconfig',
      'nonexistent.kubeconfig',
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('ork run: kubeconfig nonexistent.kubeconfig does not exist');
  });
});

describe('ork dev and ork demo', () => {
  it('reject a foreign cluster, a missing --kubeconfig-out value and stray arguments', async () => {
    const foreign = await runOrk(['dev', '--kubeconfig', 'x']);
    expect(foreign.code).toBe(2);
    expect(foreign.stderr).toContain('ork dev brings its own cluster');
    const noValue = await runOrk(['dev', '--kubeconfig-out']);
    expect(noValue.code).toBe(2);
    expect(noValue.stderr).toContain('--kubeconfig-out needs a file');
    const badReplicas = await runOrk(['dev', '--replicas', '0']);
    expect(badReplicas.code).toBe(2);
    expect(badReplicas.stderr).toContain('--replicas: expected a whole number from 1 to 16, got "0"');
    const stray = await runOrk(['demo', 'extra']);
    expect(stray.code).toBe(2);
    expect(stray.stderr).toContain('unexpected argument extra');
  });

  it('document their defaults in --help', async () => {
    const dev = await runOrk(['dev', '--help']);
    expect(dev.stdout).toContain('--kubeconfig-out <file>');
    expect(dev.stdout).toContain('--replicas <n>');
    expect(dev.stdout).toContain('run leader election (false in ork dev)');
    expect(dev.stdout).toContain("apply the Katalog's CRDs at start-up (true in ork dev)");
    const demo = await runOrk(['demo', '--help']);
    expect(demo.stdout).toContain('Usage: ork demo');
  });
});

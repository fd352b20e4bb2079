import { LOOPBACK_CIDRS } from '@orkestra/reconciler';
import { describe, expect, it } from 'vitest';
import { parseRunConfig } from './config.js';
import type { RunConfig } from './config.js';
import { replicaArgs } from './replica-processes.js';

/** How `ork dev` parses its run flags (its defaults for a sharded dev run). */
function devConfig(args: readonly string[]): RunConfig {
  const parsed = parseRunConfig(args, {
    env: {},
    defaults: {
      leaderElect: true,
      installCrds: true,
      allowPrivateAddresses: LOOPBACK_CIDRS,
      webhookBindAddress: '127.0.0.1:0',
      webhookService: 'loopback',
    },
  });
  if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
  return parsed.config;
}

/** How the replica process parses what it is given (`ork run`, no ork dev defaults). */
function replicaConfig(args: readonly string[]): RunConfig {
  const [command, ...rest] = args;
  expect(command).toBe('run');
  const parsed = parseRunConfig(rest, { env: {} });
  if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
  return parsed.config;
}

describe('replicaArgs', () => {
  it('keeps the user’s Katalog and timings and gives the replica its own cluster, ports and work directory', () => {
    const runArgs = [
      'shop.yaml',
      '--sharding',
      '--install-crds',
      '--leader-elect=true',
      '--metrics-bind-address',
      '0',
      '--lease-duration',
      '6s',
      '--renew-deadline',
      '4s',
      '--work-dir',
      '/tmp/dev-work',
    ];
    const dev = devConfig(runArgs);
    const replica = replicaConfig(replicaArgs(runArgs, dev, '/tmp/dev.kubeconfig', 2));
    expect(replica.katalog).toBe('shop.yaml');
    expect(replica.leaseDurationMs).toBe(6000);
    expect(replica.kubeconfig).toBe('/tmp/dev.kubeconfig');
    expect(replica.namespace).toBe(dev.namespace);
    expect(replica.sharding).toBe(true);
    expect(replica.leaderElect).toBe(true);
    // The first replica installed the CRDs; the others only reconcile.
    expect(replica.installCrds).toBe(false);
    expect(replica.metricsBindAddress).toBe('127.0.0.1:0');
    expect(replica.healthProbeBindAddress).toBe('127.0.0.1:0');
    expect(replica.crossBindAddress).toBe('0');
    expect(replica.webhookBindAddress).toBe('127.0.0.1:0');
    expect(replica.webhookService).toBe('loopback');
    expect(replica.allowPrivateAddresses).toEqual(LOOPBACK_CIDRS);
    expect(replica.workDir).toBe('/tmp/dev-work/replica-2');
  });

  it('passes on an address allowance the user narrowed, and no allowance when there is none', () => {
    const narrowed = devConfig(['--allow-private-addresses', '127.0.0.1/32']);
    expect(replicaConfig(replicaArgs([], narrowed, '/k', 3)).allowPrivateAddresses).toEqual(['127.0.0.1/32']);
    const none = { ...narrowed, allowPrivateAddresses: [] };
    expect(replicaArgs([], none, '/k', 3)).not.toContain('--allow-private-addresses');
  });

  it('leaves the webhook endpoint off when ork dev was told to', () => {
    const off = devConfig(['--webhook-bind-address', '0']);
    expect(replicaConfig(replicaArgs([], off, '/k', 2)).webhookBindAddress).toBe('0');
  });
});

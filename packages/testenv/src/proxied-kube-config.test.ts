import { KubeConfig } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { proxiedKubeConfig } from './proxied-kube-config.js';

function adminKubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'testenv', server: 'https://127.0.0.1:6443', caData: 'Q0E=' }],
    users: [{ name: 'admin', certData: 'Q0VSVA==', keyData: 'S0VZ' }],
    contexts: [{ name: 'testenv', cluster: 'testenv', user: 'admin' }],
    currentContext: 'testenv',
  });
  return kc;
}

describe('proxiedKubeConfig', () => {
  it('keeps the host, CA and user and replaces the port', () => {
    const kc = proxiedKubeConfig(adminKubeConfig(), 40123);
    expect(kc.getCurrentCluster()).toMatchObject({ server: 'https://127.0.0.1:40123', caData: 'Q0E=' });
    expect(kc.getCurrentUser()).toMatchObject({ name: 'admin', certData: 'Q0VSVA==', keyData: 'S0VZ' });
  });

  it('rejects a kubeconfig without a current context', () => {
    expect(() => proxiedKubeConfig(new KubeConfig(), 40123)).toThrow(/no current cluster or user/);
  });
});

import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KubeConfigError, loadKubeConfig } from './kube-config.js';

function kubeconfigText(server: string): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    `clusters: [{name: c, cluster: {server: "${server}"}}]`,
    'users: [{name: u, user: {token: t}}]',
    'contexts: [{name: x, context: {cluster: c, user: u}}]',
    'current-context: x',
  ].join('\n');
}

describe('loadKubeConfig', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ork-kubeconfig-'));
  writeFileSync(join(dir, 'given.yaml'), kubeconfigText('https://given:6443'));
  const home = join(dir, 'home');
  mkdirSync(join(home, '.kube'), { recursive: true });
  writeFileSync(join(home, '.kube', 'config'), kubeconfigText('https://home:6443'));

  it('uses the given file first, relative to cwd, even inside a cluster', () => {
    const loaded = loadKubeConfig({
      kubeconfig: 'given.yaml',
      cwd: dir,
      home,
      env: { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' },
    });
    expect(loaded.source).toBe('file');
    expect(loaded.kubeConfig.getCurrentCluster()?.server).toBe('https://given:6443');
  });

  it('uses the in-cluster ServiceAccount when KUBERNETES_SERVICE_HOST is set, else ~/.kube/config', () => {
    const inCluster = loadKubeConfig({
      cwd: dir,
      home,
      env: { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' },
    });
    expect(inCluster.source).toBe('in-cluster');
    expect(inCluster.kubeConfig.getCurrentCluster()?.name).toBe('inCluster');
    const fromHome = loadKubeConfig({ cwd: dir, home, env: {} });
    expect(fromHome.source).toBe('home');
    expect(fromHome.kubeConfig.getCurrentCluster()?.server).toBe('https://home:6443');
  });

  it('fails with a KubeConfigError naming the choices when nothing applies', () => {
    expect(() => loadKubeConfig({ cwd: dir, home: join(dir, 'nobody'), env: {} })).toThrow(KubeConfigError);
    expect(() => loadKubeConfig({ kubeconfig: 'missing.yaml', cwd: dir, home, env: {} })).toThrow(
      'kubeconfig missing.yaml does not exist',
    );
  });
});

import { KubeConfig } from '@kubernetes/client-node';
import { TestenvError, TestenvErrorCode } from './testenv-error.js';

/**
 * proxiedKubeConfig copies `kubeConfig` (its current cluster and user) with the server port
 * replaced by `port` on the same host, so requests go through a local proxy while TLS still
 * verifies the API server's own certificate (the host, and so the certificate's name, is kept).
 *
 * @example
 * const proxy = await startFreezableProxy({ host: '127.0.0.1', port: 6443 });
 * const kc = proxiedKubeConfig(env.kubeConfig, proxy.port);
 */
export function proxiedKubeConfig(kubeConfig: KubeConfig, port: number): KubeConfig {
  const cluster = kubeConfig.getCurrentCluster();
  const user = kubeConfig.getCurrentUser();
  if (cluster == null || user == null) {
    throw new TestenvError('the kubeconfig has no current cluster or user', {
      code: TestenvErrorCode.InvalidArgument,
    });
  }
  const target = new URL(cluster.server);
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ ...cluster, name: 'proxied', server: `${target.protocol}//${target.hostname}:${port}` }],
    users: [user],
    contexts: [{ name: 'proxied', cluster: 'proxied', user: user.name }],
    currentContext: 'proxied',
  });
  return kc;
}

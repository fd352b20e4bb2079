import { KubeConfig } from '@kubernetes/client-node';

/**
 * proxiedKubeConfig copies `kubeConfig` (its current cluster and user) with the server port
 * replaced by `port` on the same host, so requests go through a local proxy while TLS still
 * verifies the API server's own certificate.
 *
 * @example
 * const proxy = await startFreezableProxy({ host: '127.0.0.1', port: 6443 });
 * const kc = proxiedKubeConfig(env.kubeConfig, proxy.port);
 */
export function proxiedKubeConfig(kubeConfig: KubeConfig, port: number): KubeConfig {
  const cluster = kubeConfig.getCurrentCluster();
  const user = kubeConfig.getCurrentUser();
  if (cluster == null || user == null) throw new Error('the kubeconfig has no current cluster or user');
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

import { KubeConfig } from '@kubernetes/client-node';
import { issueCertificate } from './certificates.js';
import { httpRequest } from './http-request.js';
import { TestenvError, TestenvErrorCode } from './testenv-error.js';

/**
 * ControlPlaneConnection is everything needed to reach a running control plane, as plain data:
 * the globalSetup passes it to test files with vitest's `provide`/`inject`.
 */
export interface ControlPlaneConnection {
  /** API server URL, `https://127.0.0.1:<port>`. */
  readonly server: string;
  /** PEM of the cluster CA (serving and client certificates). */
  readonly caPem: string;
  /** Path of the CA certificate; with `caKeyPath`, signs client certificates for any user. */
  readonly caCertPath: string;
  /** Path of the CA private key. */
  readonly caKeyPath: string;
  /** PEM client certificate of the admin (`CN=admin, O=system:masters`). */
  readonly adminCertPem: string;
  /** PEM private key of the admin. */
  readonly adminKeyPem: string;
  /** Path of an admin kubeconfig file (for kubectl and for code that reads files). */
  readonly kubeconfigPath: string;
  /** Whether kube-controller-manager (garbage collector, namespace controller) runs. */
  readonly controllerManager: boolean;
}

/** ControlPlaneClient gives authenticated access to a running control plane. */
export interface ControlPlaneClient {
  /** The plain connection data this client was made from. */
  readonly connection: ControlPlaneConnection;
  /** API server URL. */
  readonly server: string;
  /** Path of the admin kubeconfig file. */
  readonly kubeconfigPath: string;
  /** A KubeConfig for the admin (`system:masters`). */
  readonly kubeConfig: KubeConfig;
  /**
   * userKubeConfig returns a KubeConfig for a non-admin user authenticated by a client
   * certificate the cluster CA signs on demand: any name works, `groups` become its groups. The
   * user has only what RBAC grants it (plus `system:authenticated`).
   */
  userKubeConfig(name: string, groups?: readonly string[]): KubeConfig;
  /** metrics returns kube-apiserver's `/metrics` text, read as admin; see `sumMetric`. */
  metrics(): Promise<string>;
}

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

/** ClientIdentity is a user name with a PEM client certificate and key. */
interface ClientIdentity {
  readonly name: string;
  readonly certPem: string;
  readonly keyPem: string;
}

/** kubeConfigFor builds a @kubernetes/client-node KubeConfig for one certificate user. */
function kubeConfigFor(connection: ControlPlaneConnection, user: ClientIdentity): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'testenv', server: connection.server, caData: b64(connection.caPem) }],
    users: [{ name: user.name, certData: b64(user.certPem), keyData: b64(user.keyPem) }],
    contexts: [{ name: 'testenv', cluster: 'testenv', user: user.name }],
    currentContext: 'testenv',
  });
  return kc;
}

/**
 * kubeconfigYaml renders an admin kubeconfig file with embedded certificates, for
 * kube-controller-manager and for humans with kubectl.
 */
export function kubeconfigYaml(server: string, caPem: string, certPem: string, keyPem: string): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: testenv',
    '  cluster:',
    `    server: ${server}`,
    `    certificate-authority-data: ${b64(caPem)}`,
    'users:',
    '- name: admin',
    '  user:',
    `    client-certificate-data: ${b64(certPem)}`,
    `    client-key-data: ${b64(keyPem)}`,
    'contexts:',
    '- name: testenv',
    '  context:',
    '    cluster: testenv',
    '    user: admin',
    'current-context: testenv',
    '',
  ].join('\n');
}

/**
 * connectControlPlane turns {@link ControlPlaneConnection} data into a {@link ControlPlaneClient}.
 * Test files call it with what the globalSetup provided; it starts nothing.
 */
export function connectControlPlane(connection: ControlPlaneConnection): ControlPlaneClient {
  const kubeConfig = kubeConfigFor(connection, {
    name: 'admin',
    certPem: connection.adminCertPem,
    keyPem: connection.adminKeyPem,
  });
  const users = new Map<string, KubeConfig>();
  const ca = { certPath: connection.caCertPath, keyPath: connection.caKeyPath };
  return {
    connection,
    server: connection.server,
    kubeconfigPath: connection.kubeconfigPath,
    kubeConfig,
    userKubeConfig(name, groups = []) {
      const key = JSON.stringify([name, groups]);
      let kc = users.get(key);
      if (kc == null) {
        const pair = issueCertificate(ca, { commonName: name, organizations: groups });
        kc = kubeConfigFor(connection, { name, ...pair });
        users.set(key, kc);
      }
      return kc;
    },
    async metrics() {
      const res = await httpRequest(`${connection.server}/metrics`, {
        ca: connection.caPem,
        cert: connection.adminCertPem,
        key: connection.adminKeyPem,
        timeoutMs: 15_000,
      });
      if (res.status !== 200) {
        throw new TestenvError(`GET /metrics returned ${res.status}: ${res.body.slice(0, 200)}`, {
          code: TestenvErrorCode.RequestFailed,
        });
      }
      return res.body;
    },
  };
}

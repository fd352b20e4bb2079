import { randomBytes } from 'node:crypto';
import { basename } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import type { KubeConfig } from '@kubernetes/client-node';
import { inject } from 'vitest';
import { startControlPlane } from './control-plane.js';
import { connectControlPlane } from './control-plane-client.js';
import type { ControlPlaneClient, ControlPlaneConnection } from './control-plane-client.js';
import type { ProvidedControlPlane } from './provided-control-plane.js';
import { useServer } from './use-server.js';

/** UseControlPlaneOptions configures {@link useControlPlane}. */
export interface UseControlPlaneOptions {
  /** Namespace name prefix. Default: the test file's name (DNS-label safe). */
  readonly namespacePrefix?: string;
  /**
   * Give this file its own control plane with workloads (kube-scheduler, kwok, workload
   * controllers; see `ControlPlaneOptions.workloads`) instead of the shared one. Default false.
   */
  readonly workloads?: boolean;
}

/** ControlPlaneFixture is a test file's view of the control plane: admin access and its own namespace. */
export interface ControlPlaneFixture {
  /** A fresh namespace for this test file, created in beforeAll and deleted in afterAll. */
  readonly namespace: string;
  /** Admin KubeConfig. */
  readonly kubeConfig: KubeConfig;
  /** Path of an admin kubeconfig file. */
  readonly kubeconfigPath: string;
  /** API server URL. */
  readonly server: string;
  /** Whether kube-controller-manager runs (garbage collection, namespace deletion). */
  readonly controllerManager: boolean;
  /** The whole client, for anything else. */
  readonly client: ControlPlaneClient;
  /** A KubeConfig for a non-admin user with the given groups; see `ControlPlaneClient.userKubeConfig`. */
  userKubeConfig(name: string, groups?: readonly string[]): KubeConfig;
  /** kube-apiserver's `/metrics` text; count requests with `sumMetric`. */
  metrics(): Promise<string>;
}

/** namespaceFor turns a test file path into a unique DNS-label namespace name. */
function namespaceFor(prefix: string): string {
  const label = prefix
    .toLowerCase()
    .replace(/\.(integration\.)?test\.[cm]?[jt]s$/, '')
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return `${label === '' ? 'test' : label}-${randomBytes(3).toString('hex')}`;
}

/**
 * useControlPlane gives a test file the run's shared control plane (from the globalSetup) and a
 * fresh namespace of its own. Call it at the top of a test file or `describe`; read the fixture
 * inside tests and hooks. Without the globalSetup it starts a control plane for the file. When
 * no binary can be found, the file's tests are skipped with a one-line reason, or fail under
 * `CI=true`.
 *
 * @example
 * const env = useControlPlane();
 * it('creates a ConfigMap', async () => {
 *   const core = env.kubeConfig.makeApiClient(CoreV1Api);
 *   await core.createNamespacedConfigMap({ namespace: env.namespace, body: { metadata: { name: 'a' } } });
 * });
 */
export function useControlPlane(options: UseControlPlaneOptions = {}): ControlPlaneFixture {
  const get = useServer('the control plane', async (fileName) => {
    // Undefined when no globalSetup provided it (the file runs outside the integration projects).
    const provided: ProvidedControlPlane | undefined = inject('orkestraTestenv');
    let connection: ControlPlaneConnection;
    let stopOwn: (() => Promise<void>) | undefined;
    if (options.workloads === true && provided?.available === false) {
      return { skip: provided.reason };
    } else if (provided == null || options.workloads === true) {
      const own = await startControlPlane({ workloads: options.workloads === true });
      connection = own.connection;
      stopOwn = own.stop;
    } else if (provided.available) {
      connection = provided.connection;
    } else {
      return { skip: provided.reason };
    }
    const client = connectControlPlane(connection);
    const namespace = namespaceFor(options.namespacePrefix ?? basename(fileName));
    const core = client.kubeConfig.makeApiClient(CoreV1Api);
    try {
      await core.createNamespace({
        body: { metadata: { name: namespace, labels: { 'orkestra.konductor.io/testenv': 'true' } } },
      });
    } catch (error) {
      await stopOwn?.();
      throw error;
    }
    return {
      value: { client, namespace },
      release: async () => {
        try {
          await core.deleteNamespace({ name: namespace });
        } finally {
          await stopOwn?.();
        }
      },
    };
  });
  return {
    get namespace() {
      return get().namespace;
    },
    get kubeConfig() {
      return get().client.kubeConfig;
    },
    get kubeconfigPath() {
      return get().client.kubeconfigPath;
    },
    get server() {
      return get().client.server;
    },
    get controllerManager() {
      return get().client.connection.controllerManager;
    },
    get client() {
      return get().client;
    },
    userKubeConfig: (name, groups) => get().client.userKubeConfig(name, groups),
    metrics: async () => await get().client.metrics(),
  };
}

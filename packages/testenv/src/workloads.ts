/**
 * Workloads on the local control plane without a container runtime (docs/testenv.md): kube-scheduler
 * binds pods, kwok plays the kubelet of one fake node (pods become Running and Ready, Job pods
 * complete), and kube-controller-manager runs the workload controllers. Opt-in: it costs CPU.
 */
import { httpRequest } from './http-request.js';
import type { HttpRequestOptions } from './http-request.js';
import { startServer } from './server-process.js';
import type { ServerProcess } from './server-process.js';
import { TestenvError, TestenvErrorCode } from './testenv-error.js';

/** WORKLOAD_CONTROLLERS are the kube-controller-manager controllers added for `workloads: true`. */
export const WORKLOAD_CONTROLLERS: readonly string[] = Object.freeze([
  'deployment-controller',
  'replicaset-controller',
  'statefulset-controller',
  'daemonset-controller',
  'job-controller',
  'cronjob-controller',
  'ttl-after-finished-controller',
  'endpointslice-controller',
  'endpoints-controller',
  'disruption-controller',
  'pod-garbage-collector-controller',
]);

/** FAKE_NODE_NAME is the name of the one kwok node. */
const FAKE_NODE_NAME = 'kwok-node-0';

/** The annotation kwok selects its nodes by (`--manage-nodes-with-annotation-selector`). */
const KWOK_NODE_ANNOTATION = 'kwok.x-k8s.io/node';

/** StartWorkloadsOptions is what {@link startWorkloads} needs from the control plane. */
export interface StartWorkloadsOptions {
  readonly schedulerBin: string;
  readonly kwokBin: string;
  readonly kubeconfigPath: string;
  /** API server URL. */
  readonly server: string;
  /** Admin TLS material for the node request and readiness probes. */
  readonly adminTls: Pick<HttpRequestOptions, 'ca' | 'cert' | 'key' | 'timeoutMs'>;
  /** The environment's temporary directory (logs, working directory, guardian). */
  readonly dir: string;
  readonly timeoutMs: number;
}

/**
 * fakeNode is the manifest of a Node that kwok of a `workloads: true` control plane manages (it
 * selects nodes by annotation), with extra labels, e.g. `topology.kubernetes.io/region`. Create it
 * and then clear its taints (see below) for pods to be scheduled onto it.
 */
export function fakeNode(
  name = FAKE_NODE_NAME,
  labels: Readonly<Record<string, string>> = {},
): Record<string, unknown> {
  const resources = { cpu: '64', memory: '256Gi', pods: '500' };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      annotations: { [KWOK_NODE_ANNOTATION]: 'fake', 'node.alpha.kubernetes.io/ttl': '0' },
      labels: { ...labels, 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', type: 'kwok' },
    },
    spec: {},
    status: { allocatable: resources, capacity: resources },
  };
}

/**
 * startWorkloads starts kube-scheduler and kwok against a running API server, registers the fake
 * node and resolves once kwok reports it Ready. The returned processes are in start order (stop
 * them in reverse).
 */
export async function startWorkloads(options: StartWorkloadsOptions): Promise<ServerProcess[]> {
  const { server, adminTls, dir, timeoutMs } = options;
  const started: ServerProcess[] = [];
  try {
    started.push(
      await startServer({
        name: 'kube-scheduler',
        command: options.schedulerBin,
        args: [
          `--kubeconfig=${options.kubeconfigPath}`,
          '--leader-elect=false',
          // No HTTPS listener (the default :10259 would clash between parallel runs).
          '--secure-port=0',
        ],
        dir,
        guardDir: dir,
        timeoutMs,
        // Nothing to probe without a listener; the fake node becoming schedulable is checked below.
        isReady: () => Promise.resolve(true),
      }),
    );
    const node = await httpRequest(`${server}/api/v1/nodes`, {
      ...adminTls,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(fakeNode()),
    });
    if (node.status !== 201 && node.status !== 409) {
      throw new TestenvError(`creating the kwok node failed: ${node.status} ${node.body.slice(0, 300)}`, {
        code: TestenvErrorCode.StartFailed,
      });
    }
    started.push(
      await startServer({
        name: 'kwok',
        command: options.kwokBin,
        args: [
          `--kubeconfig=${options.kubeconfigPath}`,
          '--manage-all-nodes=false',
          `--manage-nodes-with-annotation-selector=${KWOK_NODE_ANNOTATION}=fake`,
          // Pod IPs from a range apart from the Service range (10.0.0.0/16).
          '--cidr=10.244.0.1/16',
          '--node-ip=127.0.0.1',
        ],
        dir,
        guardDir: dir,
        // kwok reads ~/.kwok/kwok.yaml when present; a private HOME keeps its built-in stages.
        env: { HOME: dir },
        timeoutMs,
        isReady: async () => {
          const res = await httpRequest(`${server}/api/v1/nodes/${FAKE_NODE_NAME}`, adminTls);
          if (res.status !== 200) return false;
          const conditions = (
            JSON.parse(res.body) as { status?: { conditions?: { type: string; status: string }[] } }
          ).status?.conditions;
          return conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
        },
      }),
    );
    // The NodeRestriction/TaintNodesByCondition admission adds `node.kubernetes.io/not-ready:NoSchedule`
    // on create, and only node-lifecycle-controller (not run: it would evict on missed heartbeats)
    // removes it; without this the scheduler never binds a pod.
    const untaint = await httpRequest(`${server}/api/v1/nodes/${FAKE_NODE_NAME}`, {
      ...adminTls,
      method: 'PATCH',
      headers: { 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify({ spec: { taints: null } }),
    });
    if (untaint.status !== 200) {
      throw new TestenvError(
        `untainting the kwok node failed: ${untaint.status} ${untaint.body.slice(0, 300)}`,
        {
          code: TestenvErrorCode.StartFailed,
        },
      );
    }
    return started;
  } catch (error) {
    for (const p of started.reverse()) await p.stop();
    throw error;
  }
}

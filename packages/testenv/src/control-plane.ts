import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTrackedDirectory } from './cleanup.js';
import { createCertificateAuthority, createServiceAccountKeys, issueCertificate } from './certificates.js';
import { connectControlPlane, kubeconfigYaml } from './control-plane-client.js';
import type { ControlPlaneClient, ControlPlaneConnection } from './control-plane-client.js';
import { findBinary, ServerBinary } from './find-binary.js';
import type { FindBinaryOptions } from './find-binary.js';
import { freePort } from './free-port.js';
import { httpRequest } from './http-request.js';
import { startServer } from './server-process.js';
import type { ServerProcess, StartServerOptions } from './server-process.js';
import { TestenvError, TestenvErrorCode } from './testenv-error.js';
import { startWorkloads, WORKLOAD_CONTROLLERS } from './workloads.js';

/** ControlPlaneOptions configures {@link startControlPlane}. */
export interface ControlPlaneOptions extends FindBinaryOptions {
  /**
   * Also run kube-controller-manager with the garbage-collector, namespace, serviceaccount and
   * clusterrole-aggregation controllers, so owner references cascade, namespaces finish
   * deleting, namespaces get a `default` ServiceAccount and the aggregated ClusterRoles
   * (`view`, `edit`, `admin`) get their rules. Default true.
   */
  readonly controllerManager?: boolean;
  /** Time each server may take to become ready. Default 120 000 ms (2 busy cores). */
  readonly startTimeoutMs?: number;
  /** Extra kube-apiserver flags, appended last (e.g. `--feature-gates=…`). */
  readonly apiserverArgs?: readonly string[];
  /**
   * Also run workloads (docs/testenv.md §5): kube-scheduler, kwok with one fake node, and the workload
   * controllers in kube-controller-manager (deployment, replicaset, statefulset, daemonset, job,
   * cronjob, endpoint slices, …), so pods are scheduled, become Running and Ready, and Job pods
   * complete. Implies `controllerManager`. Costs CPU; default false.
   */
  readonly workloads?: boolean;
}

/** ServerInfo describes one running server process. */
export interface ServerInfo {
  readonly name: string;
  readonly pid: number;
  /** Its combined stdout/stderr log, inside the environment's temporary directory. */
  readonly logPath: string;
}

/** ControlPlaneTimings records how long each start-up step took, in milliseconds. */
export interface ControlPlaneTimings {
  /** Certificates and keys (openssl). */
  readonly certificatesMs: number;
  /** etcd until `/health` is true. */
  readonly etcdMs: number;
  /** kube-apiserver until `/readyz` is ok. */
  readonly apiserverMs: number;
  /** kube-controller-manager until the `default` ServiceAccount exists (0 when not started). */
  readonly controllerManagerMs: number;
  /** kube-scheduler and kwok until the fake node is Ready (0 without `workloads`). */
  readonly workloadsMs: number;
}

/** ControlPlane is a running etcd + kube-apiserver (+ kube-controller-manager) on loopback. */
export interface ControlPlane extends ControlPlaneClient {
  /** Temporary directory with certificates, data and logs; removed by `stop`. */
  readonly dir: string;
  /** The running server processes (kube-apiserver's entry changes after `startApiServer`). */
  readonly processes: readonly ServerInfo[];
  /** Start-up durations. */
  readonly timings: ControlPlaneTimings;
  /**
   * stopApiServer terminates kube-apiserver only (SIGTERM, SIGKILL after 10 s) and resolves once
   * it has exited; etcd, the controller manager, the data and the port stay. For fault-injection
   * tests. Idempotent.
   */
  stopApiServer(): Promise<void>;
  /**
   * startApiServer starts kube-apiserver again with the same flags, on the same port and etcd
   * (same CA, certificates and data), and resolves once `/readyz` is ok. A no-op while it runs;
   * throws a `TestenvError` (`StartFailed`) after `stop`.
   */
  startApiServer(): Promise<void>;
  /** restartApiServer is `stopApiServer` then `startApiServer`. */
  restartApiServer(): Promise<void>;
  /** stop terminates every server (controller manager, API server, etcd) and removes `dir`. Idempotent. */
  stop(): Promise<void>;
}

/**
 * startControlPlane starts etcd, kube-apiserver and (unless `controllerManager: false`)
 * kube-controller-manager on random loopback ports, with a fresh CA, serving and admin client
 * certificates and a ServiceAccount signing key (so the TokenRequest API issues real tokens).
 * It resolves once `/readyz` is ok and the controller manager is working, and throws a
 * `TestenvError` (`BinaryNotFound` or `StartFailed`, with the failing server's last log lines).
 *
 * @example
 * const cp = await startControlPlane();
 * const core = cp.kubeConfig.makeApiClient(CoreV1Api);
 * await cp.stop();
 */
export async function startControlPlane(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const withWorkloads = options.workloads ?? false;
  const withKcm = withWorkloads || (options.controllerManager ?? true);
  const schedulerBin = withWorkloads ? findBinary(ServerBinary.KubeScheduler, options).path : undefined;
  const kwokBin = withWorkloads ? findBinary(ServerBinary.Kwok, options).path : undefined;
  const etcdBin = findBinary(ServerBinary.Etcd, options).path;
  const apiserverBin = findBinary(ServerBinary.KubeApiserver, options).path;
  const kcmBin = withKcm ? findBinary(ServerBinary.KubeControllerManager, options).path : undefined;
  const timeoutMs = options.startTimeoutMs ?? 120_000;

  const workDir = createTrackedDirectory('orkestra-testenv-');
  const dir = workDir.path;
  const started: ServerProcess[] = [];
  let stopped = false;
  const stopAll = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    for (const server of [...started].reverse()) await server.stop();
    workDir.remove();
  };

  try {
    let t = performance.now();
    const ca = createCertificateAuthority(dir);
    const serving = issueCertificate(ca, { commonName: 'localhost', usage: 'server' });
    writeFileSync(join(dir, 'apiserver.crt'), serving.certPem);
    writeFileSync(join(dir, 'apiserver.key'), serving.keyPem, { mode: 0o600 });
    const admin = issueCertificate(ca, { commonName: 'admin', organizations: ['system:masters'] });
    const sa = createServiceAccountKeys(dir);
    const caPem = readFileSync(ca.certPath, 'utf8');
    const certificatesMs = performance.now() - t;

    const [etcdPort, peerPort, apiPort] = [await freePort(), await freePort(), await freePort()];
    const server = `https://127.0.0.1:${apiPort}`;

    t = performance.now();
    const etcdHelp = execFileSync(etcdBin, ['--help'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const etcdUrl = `http://127.0.0.1:${etcdPort}`;
    const peerUrl = `http://127.0.0.1:${peerPort}`;
    started.push(
      await startServer({
        name: 'etcd',
        command: etcdBin,
        args: [
          '--name=testenv',
          `--data-dir=${join(dir, 'etcd')}`,
          `--listen-client-urls=${etcdUrl}`,
          `--advertise-client-urls=${etcdUrl}`,
          `--listen-peer-urls=${peerUrl}`,
          `--initial-advertise-peer-urls=${peerUrl}`,
          `--initial-cluster=testenv=${peerUrl}`,
          '--log-level=warn',
          // etcd 3.4 has no such flag; envtest adds it only when --help lists it.
          ...(etcdHelp.includes('unsafe-no-fsync') ? ['--unsafe-no-fsync=true'] : []),
        ],
        dir,
        guardDir: dir,
        timeoutMs,
        isReady: async () => {
          const res = await httpRequest(`${etcdUrl}/health`, { timeoutMs: 2000 });
          return res.status === 200 && res.body.includes('"true"');
        },
      }),
    );
    const etcdMs = performance.now() - t;

    t = performance.now();
    const adminTls = { ca: caPem, cert: admin.certPem, key: admin.keyPem, timeoutMs: 5000 };
    const apiserverSpec: StartServerOptions = {
      name: 'kube-apiserver',
      command: apiserverBin,
      args: [
        `--etcd-servers=${etcdUrl}`,
        `--cert-dir=${dir}`,
        `--tls-cert-file=${join(dir, 'apiserver.crt')}`,
        `--tls-private-key-file=${join(dir, 'apiserver.key')}`,
        `--client-ca-file=${ca.certPath}`,
        `--secure-port=${apiPort}`,
        '--bind-address=127.0.0.1',
        // Without it a loopback bind address is mapped to an interface from the default routes.
        '--advertise-address=127.0.0.1',
        // 65k Service IPs: one shared control plane serves every test file (a /24 ran out in the bench).
        '--service-cluster-ip-range=10.0.0.0/16',
        '--allow-privileged=true',
        `--service-account-issuer=${server}`,
        `--service-account-key-file=${sa.publicKeyPath}`,
        `--service-account-signing-key-file=${sa.keyPath}`,
        '--authorization-mode=RBAC',
        // Nothing runs pods here; without this admission plugin pods need no ServiceAccount.
        '--disable-admission-plugins=ServiceAccount',
        ...(options.apiserverArgs ?? []),
      ],
      dir,
      guardDir: dir,
      timeoutMs,
      isReady: async () => {
        const res = await httpRequest(`${server}/readyz`, adminTls);
        return res.status === 200 && res.body.trim() === 'ok';
      },
    };
    started.push(await startServer(apiserverSpec));
    const apiserverMs = performance.now() - t;

    const kubeconfigPath = join(dir, 'admin.kubeconfig');
    writeFileSync(kubeconfigPath, kubeconfigYaml(server, caPem, admin.certPem, admin.keyPem), {
      mode: 0o600,
    });

    let controllerManagerMs = 0;
    if (kcmBin != null) {
      t = performance.now();
      started.push(
        await startServer({
          name: 'kube-controller-manager',
          command: kcmBin,
          args: [
            `--kubeconfig=${kubeconfigPath}`,
            `--controllers=${[
              'garbage-collector-controller',
              'namespace-controller',
              'serviceaccount-controller',
              'clusterrole-aggregation-controller',
              ...(withWorkloads ? WORKLOAD_CONTROLLERS : []),
            ].join(',')}`,
            '--leader-elect=false',
            // No HTTPS listener (default 0.0.0.0:10257 would clash between parallel runs).
            '--secure-port=0',
            '--use-service-account-credentials=false',
          ],
          dir,
          guardDir: dir,
          timeoutMs,
          // The serviceaccount controller creating default/default shows the controllers run.
          isReady: async () => {
            const res = await httpRequest(
              `${server}/api/v1/namespaces/default/serviceaccounts/default`,
              adminTls,
            );
            return res.status === 200;
          },
        }),
      );
      controllerManagerMs = performance.now() - t;
    }

    let workloadsMs = 0;
    if (schedulerBin != null && kwokBin != null) {
      t = performance.now();
      started.push(
        ...(await startWorkloads({
          schedulerBin,
          kwokBin,
          kubeconfigPath,
          server,
          adminTls,
          dir,
          timeoutMs,
        })),
      );
      workloadsMs = performance.now() - t;
    }

    const connection: ControlPlaneConnection = {
      server,
      caPem,
      caCertPath: ca.certPath,
      caKeyPath: ca.keyPath,
      adminCertPem: admin.certPem,
      adminKeyPem: admin.keyPem,
      kubeconfigPath,
      controllerManager: kcmBin != null,
    };
    const round = (ms: number): number => Math.round(ms);
    const apiserverIndex = started.findIndex((p) => p.name === 'kube-apiserver');
    let apiserverRunning = true;
    const stopApiServer = async (): Promise<void> => {
      apiserverRunning = false;
      await started[apiserverIndex]?.stop();
    };
    const startApiServer = async (): Promise<void> => {
      if (stopped) {
        throw new TestenvError('startApiServer: the control plane was stopped', {
          code: TestenvErrorCode.StartFailed,
        });
      }
      if (apiserverRunning) return;
      started[apiserverIndex] = await startServer(apiserverSpec);
      apiserverRunning = true;
    };
    return {
      ...connectControlPlane(connection),
      dir,
      get processes() {
        return started.map((p) => ({ name: p.name, pid: p.pid, logPath: p.logPath }));
      },
      stopApiServer,
      startApiServer,
      restartApiServer: async () => {
        await stopApiServer();
        await startApiServer();
      },
      timings: {
        certificatesMs: round(certificatesMs),
        etcdMs: round(etcdMs),
        apiserverMs: round(apiserverMs),
        controllerManagerMs: round(controllerManagerMs),
        workloadsMs: round(workloadsMs),
      },
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

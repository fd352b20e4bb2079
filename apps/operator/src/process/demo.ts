import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CoreV1Api, KubernetesObjectApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { KubeConfig, KubernetesObject, V1Node } from '@kubernetes/client-node';
import { fakeNode } from '@orkestra/testenv';
import type { ControlPlane } from '@orkestra/testenv';
import type { DestinationStream } from 'pino';
import { parseAllDocuments } from 'yaml';
import type { CliOutput } from '../commands/command.js';
import { parseRunConfig } from './config.js';
import { startLocalControlPlane } from './local-control-plane.js';
import { startOperator } from './operator.js';
import { newLocalToken } from '../control-center/auth.js';
import type { Operator } from './operator.js';
import { isMap } from '../is-map.js';

/** DEMO_EXAMPLES are the example Katalogs `ork demo` runs, each with the CRs under its `crs/`. */
const DEMO_EXAMPLES = ['website', 'multi-region'] as const;

/** DemoError is a demo step that did not reach the state it waits for. */
export class DemoError extends Error {
  override readonly name = 'DemoError';
  readonly code = 'DemoFailed';
}

/** RunDemoOptions configures runDemo. */
export interface RunDemoOptions {
  /** Progress and results for the user. */
  readonly out: CliOutput;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The repository's `examples/` directory. Default: found from this module or `cwd`. */
  readonly examplesDir?: string;
  readonly cwd: string;
  /** Longest wait for one step (Ready, drift repair, cleanup). Default 90 000 ms. */
  readonly stepTimeoutMs?: number;
  /**
   * Serve the Control Center on loopback (docs/reference/runtime.md §23): each operator on its own port, the last one
   * aggregating the others; before the cleanup the demo waits until `waitUntilStopped()` resolves.
   */
  readonly controlCenter?: { waitUntilStopped(): Promise<void> };
}

type Json = Record<string, unknown>;
/** findExamplesDir locates the workspace's `examples/` (with `website/katalog.yaml`) above `from`, else under `cwd`. */
function findExamplesDir(
  cwd: string,
  from: string = dirname(fileURLToPath(import.meta.url)),
): string | undefined {
  for (const start of [from, cwd]) {
    let dir = start;
    for (;;) {
      const candidate = join(dir, 'examples');
      if (existsSync(join(candidate, 'website', 'katalog.yaml'))) return candidate;
      const parent = dirname(dir);
      if (parent === dir) break;
      dir = parent;
    }
  }
  return undefined;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function waitFor<T>(what: string, timeoutMs: number, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      throw new DemoError(
        `timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${what}${last == null ? '' : ` (${String(last)})`}`,
      );
    }
    await sleep(200);
  }
}

function statusCode(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : undefined;
}

function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? '').length))) ?? [];
  return rows
    .map(
      (row) =>
        `    ${row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  ')}`,
    )
    .join('\n');
}

/** A ring buffer of the operators' log lines, printed when a step fails. */
function logBuffer(limit = 200): DestinationStream & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    write(line: string) {
      lines.push(line.trimEnd());
      if (lines.length > limit) lines.shift();
    },
  };
}

interface ObjectRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string;
}

function refOf(object: Json): ObjectRef {
  const metadata = isMap(object['metadata']) ? object['metadata'] : {};
  const namespace = metadata['namespace'];
  return {
    apiVersion: String(object['apiVersion']),
    kind: String(object['kind']),
    name: String(metadata['name']),
    ...(typeof namespace === 'string' ? { namespace } : {}),
  };
}

function label(ref: ObjectRef): string {
  return `${ref.kind} ${ref.namespace == null ? '' : `${ref.namespace}/`}${ref.name}`;
}

/** One line describing a child's live state, for the table. */
function describeChild(object: Json): string {
  const kind = String(object['kind']);
  const spec = isMap(object['spec']) ? object['spec'] : {};
  const status = isMap(object['status']) ? object['status'] : {};
  const keys = (value: unknown): string => (isMap(value) ? Object.keys(value).sort().join(', ') : '');
  switch (kind) {
    case 'Deployment':
    case 'StatefulSet':
      // kwok runs the Pods (docs/testenv.md §5), so this reaches e.g. `2/2 ready`.
      return `${String(status['readyReplicas'] ?? 0)}/${String(spec['replicas'] ?? 1)} ready`;
    case 'Service':
      return `${String(spec['type'] ?? 'ClusterIP')} ${String(spec['clusterIP'] ?? '')}`.trim();
    case 'ConfigMap':
      return `data: ${keys(object['data'])}`;
    case 'Secret':
      return `${String(object['type'] ?? 'Opaque')}, keys: ${keys(object['data'])}`;
    case 'PodDisruptionBudget':
      return `minAvailable ${String(spec['minAvailable'] ?? '-')}`;
    default:
      return '';
  }
}

interface Cluster {
  readonly objects: KubernetesObjectApi;
  readonly core: CoreV1Api;
}

async function read(cluster: Cluster, ref: ObjectRef): Promise<Json | undefined> {
  try {
    return (await cluster.objects.read({
      apiVersion: ref.apiVersion,
      kind: ref.kind,
      metadata: { name: ref.name, ...(ref.namespace == null ? {} : { namespace: ref.namespace }) },
    })) as unknown as Json;
  } catch (error) {
    if (statusCode(error) === 404) return undefined;
    throw error;
  }
}

function readyCondition(cr: Json): Json | undefined {
  const status = isMap(cr['status']) ? cr['status'] : {};
  const conditions = Array.isArray(status['conditions']) ? status['conditions'] : [];
  return conditions.find((c): c is Json => isMap(c) && c['type'] === 'Ready');
}

function inventoryOf(cr: Json): ObjectRef[] {
  const status = isMap(cr['status']) ? cr['status'] : {};
  const inventory = Array.isArray(status['inventory']) ? status['inventory'] : [];
  return inventory.filter(isMap).map((item) => ({
    apiVersion: String(item['apiVersion']),
    kind: String(item['kind']),
    name: String(item['name']),
    ...(typeof item['namespace'] === 'string' ? { namespace: item['namespace'] } : {}),
  }));
}

function loadCrs(dir: string): Json[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((file) => /\.ya?ml$/.test(file))
    .sort()
    .flatMap((file) =>
      parseAllDocuments(readFileSync(join(dir, file), 'utf8'))
        .map((doc) => ('errors' in doc && doc.errors.length === 0 ? (doc.toJS() as unknown) : undefined))
        .filter(isMap),
    );
}

/**
 * runDemo is `ork demo`: it starts the local control plane, runs the website and
 * multi-region example Katalogs in-process, creates their sample CRs, waits for Ready,
 * prints each CR's children and status, edits a child and shows the operator restore it, deletes
 * a CR and shows its children cleaned up, then stops everything. Returns the exit code.
 *
 * @example
 * const code = await runDemo({ out: process.stdout, env: process.env, cwd: process.cwd() });
 */
export async function runDemo(options: RunDemoOptions): Promise<number> {
  const { out } = options;
  const timeoutMs = options.stepTimeoutMs ?? 90_000;
  const examplesDir = options.examplesDir ?? findExamplesDir(options.cwd);
  if (examplesDir == null) {
    throw new DemoError(
      'cannot find the examples/ directory of the Orkestra repository; run ork demo from the repository',
    );
  }
  const step = (text: string): void => {
    out.write(`\n==> ${text}\n`);
  };
  const started = Date.now();
  out.write(
    'Orkestra demo: a local Kubernetes control plane, two example operators, sample CRs, drift\n' +
      'repair and cleanup. It takes about a minute (the very first run also builds the test servers,\n' +
      'which takes several minutes).\n',
  );

  step('Local control plane');
  const cp: ControlPlane = await startLocalControlPlane({ progress: out, env: options.env, build: true });
  const logs = logBuffer();
  const operators: Operator[] = [];
  try {
    const kubeConfig: KubeConfig = cp.kubeConfig;
    const cluster: Cluster = {
      objects: KubernetesObjectApi.makeApiClient(kubeConfig),
      core: kubeConfig.makeApiClient(CoreV1Api),
    };

    step('Operators');
    const samples: { example: string; cr: Json }[] = [];
    const controlCenterUrls: string[] = [];
    const controlCenterToken = newLocalToken();
    for (const example of DEMO_EXAMPLES) {
      const file = join(examplesDir, example, 'katalog.yaml');
      const parsed = parseRunConfig(
        [
          '--katalog',
          file,
          '--leader-elect=false',
          '--install-crds',
          '--metrics-bind-address',
          options.controlCenter == null ? '0' : '127.0.0.1:0',
          '--health-probe-bind-address',
          '0',
          '--log-level',
          'warn',
          ...(options.controlCenter == null
            ? []
            : [
                '--control-center',
                ...(controlCenterUrls.length === 0
                  ? []
                  : ['--control-center-upstreams', controlCenterUrls.join(',')]),
              ]),
        ],
        { env: {} },
      );
      if (!parsed.ok) throw new DemoError(parsed.errors.join('; '));
      const operator = await startOperator({
        config: parsed.config,
        env: options.env,
        cwd: options.cwd,
        kubeConfig,
        logDestination: logs,
        handleSignals: false,
        watchKatalog: false,
        // One local token for every demo operator: the last one proxies the others with it.
        controlCenterToken,
      });
      operators.push(operator);
      await waitFor(`the ${example} operator to sync`, timeoutMs, async () =>
        operator.isReady() ? true : undefined,
      );
      const entries = Object.values(operator.katalog.spec.crds).map(
        (e) => `${e.apiTypes.kind} (${e.apiTypes.group})`,
      );
      out.write(
        `  ${relative(options.cwd, file) || file}: Katalog ${operator.katalog.metadata.name} running, CRDs installed: ${entries.join(', ')}\n`,
      );
      for (const cr of loadCrs(join(examplesDir, example, 'crs'))) samples.push({ example, cr });
      if (operator.metricsAddress != null)
        controlCenterUrls.push(`http://127.0.0.1:${operator.metricsAddress.port}`);
    }
    const lastUrl = controlCenterUrls.at(-1);
    const controlCenterUrl = lastUrl == null ? undefined : `${lastUrl}/ui/?token=${controlCenterToken}`;
    let shownControlCenter = false;
    if (options.controlCenter != null && controlCenterUrl != null)
      out.write(`  Control Center: ${controlCenterUrl} (all operators; loopback only)\n`);

    // The multi-region example pins each region's Deployment to that region's nodes: kwok gets one
    // fake node per region the sample CRs enable, so their pods are scheduled and become ready.
    for (const region of enabledRegions(samples.map((s) => s.cr))) {
      const name = `kwok-${region}`;
      await cluster.core
        .createNode({ body: fakeNode(name, { 'topology.kubernetes.io/region': region }) as V1Node })
        .catch((error: unknown) => {
          if (statusCode(error) !== 409) throw error;
        });
      // Admission taints a new node not-ready; nothing here would lift it (see @orkestra/testenv).
      await cluster.core.patchNode(
        { name, body: { spec: { taints: null } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
    }

    step('Sample CRs');
    for (const { example, cr } of samples) {
      const ref = refOf(cr);
      if (ref.namespace != null && ref.namespace !== 'default') {
        await cluster.core
          .createNamespace({ body: { metadata: { name: ref.namespace } } })
          .catch((error: unknown) => {
            if (statusCode(error) !== 409) throw error;
          });
      }
      await cluster.objects.patch(
        cr as KubernetesObject,
        undefined,
        undefined,
        'ork-demo',
        true,
        PatchStrategy.ServerSideApply,
      );
      out.write(`  created ${label(ref)} from examples/${example}/crs\n`);
    }

    for (const { cr } of samples) {
      const ref = refOf(cr);
      step(`${label(ref)}: waiting for Ready`);
      const readyAt = Date.now();
      const live = await waitFor(`${label(ref)} to be Ready`, timeoutMs, async () => {
        const current = await read(cluster, ref);
        const ready = current == null ? undefined : readyCondition(current);
        const metadata = isMap(current?.['metadata']) ? current['metadata'] : {};
        return ready?.['status'] === 'True' && ready['observedGeneration'] === metadata['generation']
          ? current
          : undefined;
      });
      const ready = readyCondition(live) ?? {};
      out.write(
        `  Ready=True (${String(ready['reason'])}) after ${((Date.now() - readyAt) / 1000).toFixed(1)} s\n\n  Children:\n`,
      );
      const rows: string[][] = [['KIND', 'NAME', 'STATE']];
      for (const child of inventoryOf(live)) {
        const object = await read(cluster, child);
        rows.push([child.kind, child.name, object == null ? 'missing' : describeChild(object)]);
      }
      out.write(`${table(rows)}\n\n  Status:\n`);
      const status = isMap(live['status']) ? live['status'] : {};
      const statusRows: string[][] = [['FIELD', 'VALUE']];
      for (const [key, value] of Object.entries(status)) {
        if (key === 'conditions' || key === 'inventory') continue;
        statusRows.push([key, typeof value === 'string' ? value : JSON.stringify(value)]);
      }
      for (const condition of (Array.isArray(status['conditions']) ? status['conditions'] : []).filter(
        isMap,
      )) {
        statusRows.push([
          `condition ${String(condition['type'])}`,
          `${String(condition['status'])} ${String(condition['reason'] ?? '')}`.trim(),
        ]);
      }
      out.write(`${table(statusRows)}\n`);
      out.write(
        '  (Ready means Synced and every child ready: kwok plays the kubelet of a fake node, so the\n' +
          '   workloads run and the status fields that follow them are filled in.)\n',
      );
    }

    const website = samples.find((s) => s.example === 'website');
    if (website != null) {
      const crRef = refOf(website.cr);
      const liveCr = await read(cluster, crRef);
      const configMap = inventoryOf(liveCr ?? {}).find((c) => c.kind === 'ConfigMap');
      if (configMap != null) {
        step(`Drift: editing ${label(configMap)} behind the operator's back`);
        const before = await read(cluster, configMap);
        const data = isMap(before?.['data']) ? before['data'] : {};
        const key = Object.keys(data).sort().at(-1) ?? 'TIER';
        const original = String(data[key] ?? '');
        await cluster.core.patchNamespacedConfigMap(
          {
            name: configMap.name,
            namespace: configMap.namespace ?? 'default',
            body: { data: { [key]: 'edited-by-hand' } },
          },
          setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
        );
        const editedAt = Date.now();
        out.write(`  set data.${key} = "edited-by-hand" (was "${original}")\n`);
        await waitFor(`${label(configMap)} to be restored`, timeoutMs, async () => {
          const current = await read(cluster, configMap);
          const now = isMap(current?.['data']) ? current['data'][key] : undefined;
          return now === original ? true : undefined;
        });
        out.write(
          `  restored by the operator: data.${key} = "${original}" again after ${((Date.now() - editedAt) / 1000).toFixed(1)} s\n`,
        );
      }

      // docs/reference/runtime.md §23: with --control-center, look at the CRs and their children before the cleanup.
      if (options.controlCenter != null && controlCenterUrl != null && !shownControlCenter) {
        shownControlCenter = true;
        step('Control Center');
        out.write(`  ${controlCenterUrl} shows every CR now; press Ctrl-C to stop\n`);
        await options.controlCenter.waitUntilStopped();
        // Ctrl-C also stops the control plane's processes (@orkestra/testenv): no cleanup then.
        out.write('  stopping without the cleanup (the control plane goes with it)\n');
        for (const operator of operators.splice(0)) await operator.shutdown('demo stopped');
        return 0;
      }

      step(`Cleanup: deleting ${label(crRef)}`);
      const children = inventoryOf(liveCr ?? {});
      await cluster.objects.delete({
        apiVersion: crRef.apiVersion,
        kind: crRef.kind,
        metadata: { name: crRef.name, ...(crRef.namespace == null ? {} : { namespace: crRef.namespace }) },
      });
      const deletedAt = Date.now();
      await waitFor(`${label(crRef)} to be gone`, timeoutMs, async () =>
        (await read(cluster, crRef)) == null ? true : undefined,
      );
      out.write(
        `  ${label(crRef)} is gone (finalizer released) after ${((Date.now() - deletedAt) / 1000).toFixed(1)} s\n`,
      );
      out.write(
        "  waiting for its children to be garbage-collected through their owner references (the local\n  control plane's garbage collector can take up to a minute to notice a new custom resource kind)…\n",
      );
      for (const child of children) {
        await waitFor(`${label(child)} to be deleted`, timeoutMs, async () =>
          (await read(cluster, child)) == null ? true : undefined,
        );
        out.write(`  deleted ${label(child)}\n`);
      }
    }

    step('Stopping');
    for (const operator of operators.splice(0)) await operator.shutdown('demo finished');
    out.write(`  operators stopped\n`);
  } catch (error) {
    if (logs.lines.length > 0) {
      out.write('\nLast operator log lines:\n');
      for (const line of logs.lines.slice(-30)) out.write(`  ${line}\n`);
    }
    throw error;
  } finally {
    for (const operator of operators) await operator.shutdown('demo failed');
    await cp.stop();
  }
  out.write(`  control plane stopped\n\nDemo complete in ${((Date.now() - started) / 1000).toFixed(0)} s.\n`);
  return 0;
}

/** enabledRegions returns the names of the regions sample CRs enable (`spec.regions[].enabled` not false). */
function enabledRegions(crs: readonly Json[]): string[] {
  const names = new Set<string>();
  for (const cr of crs) {
    const regions = isMap(cr['spec']) ? (cr['spec'] as Json)['regions'] : undefined;
    if (!Array.isArray(regions)) continue;
    for (const region of regions) {
      if (isMap(region) && typeof region['name'] === 'string' && region['enabled'] !== false)
        names.add(region['name']);
    }
  }
  return [...names];
}

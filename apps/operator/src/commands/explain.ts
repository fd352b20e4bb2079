import * as http from 'node:http';
import * as https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { formatExplain } from '../offline/explain-tree.js';
import type { ExplainedCr } from '../offline/explain-tree.js';
import { loadKubeConfig } from '../process/kube-config.js';
import type { CliIo, Command } from './command.js';
import { ExitCode, UsageError, parseCommandArgs } from './command.js';

const usage = `Usage: ork explain <kind>/<name> [-n <namespace>] [--kubeconfig <file>]

Explain why a custom resource is (not) ready, from the live cluster: its Ready and Synced
conditions, then every child with its step, readiness state (Current, InProgress, Failed,
NotFound, Terminating, Waiting), since when, and why (e.g. "1/2 replicas available").

<kind> is the kind, its plural or its singular, case-insensitive (website, websites, Website);
the API group is found by discovery. Add .<group> to pick one when several groups have the kind.

Options:
  -n, --namespace <ns>   Namespace of the resource. Default: default.
  --kubeconfig <file>    Cluster to read. Default: KUBECONFIG, in-cluster, then ~/.kube/config.
  -h, --help             Show this help.`;

interface ApiResource {
  readonly name: string;
  readonly singularName?: string;
  readonly kind: string;
  readonly namespaced: boolean;
}

/** getJson sends one authenticated GET to the API server (10 s timeout) and parses the JSON body. */
async function getJson(kubeConfig: KubeConfig, path: string): Promise<unknown> {
  const cluster = kubeConfig.getCurrentCluster();
  if (cluster == null) throw new Error('the kubeconfig has no current cluster');
  const url = new URL(`${cluster.server.replace(/\/+$/, '')}${path}`);
  const options: https.RequestOptions = {
    method: 'GET',
    protocol: url.protocol,
    hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port,
    path: url.pathname,
    headers: { Accept: 'application/json' },
    signal: AbortSignal.timeout(10_000),
  };
  await kubeConfig.applyToHTTPSOptions(options);
  const send = url.protocol === 'http:' ? (http.request as unknown as typeof https.request) : https.request;
  return new Promise<unknown>((resolve, reject) => {
    const req = send(options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        if (status < 200 || status >= 300) reject(new Error(`GET ${path}: HTTP ${status}`));
        else resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** findKind resolves `kind[.group]` by discovery to `apiVersion` and kind. */
async function findKind(
  kubeConfig: KubeConfig,
  wanted: string,
): Promise<{ apiVersion: string; kind: string; namespaced: boolean }> {
  const dot = wanted.indexOf('.');
  const name = (dot < 0 ? wanted : wanted.slice(0, dot)).toLowerCase();
  const group = dot < 0 ? undefined : wanted.slice(dot + 1);
  const groups = (await getJson(kubeConfig, '/apis')) as {
    groups: { name: string; preferredVersion: { groupVersion: string } }[];
  };
  const matches: { apiVersion: string; kind: string; namespaced: boolean }[] = [];
  for (const g of groups.groups) {
    if (group != null && g.name !== group) continue;
    const gv = g.preferredVersion.groupVersion;
    const list = (await getJson(kubeConfig, `/apis/${gv}`)) as { resources: ApiResource[] };
    for (const r of list.resources) {
      if (r.name.includes('/')) continue;
      if ([r.name, r.singularName ?? '', r.kind.toLowerCase()].includes(name))
        matches.push({ apiVersion: gv, kind: r.kind, namespaced: r.namespaced });
    }
  }
  const first = matches[0];
  if (first == null) throw new Error(`no API resource named ${wanted}`);
  if (matches.length > 1)
    throw new Error(
      `${wanted} is ambiguous: ${matches.map((m) => `${m.kind}.${m.apiVersion.split('/')[0] ?? ''}`).join(', ')}; add .<group>`,
    );
  return first;
}

/** explainCommand is `ork explain <kind>/<name>`: the readiness tree of a live CR. */
export const explainCommand: Command = {
  name: 'explain',
  summary: 'Explain why a custom resource is (not) ready, child by child, from the live cluster',
  usage,
  async run(args: readonly string[], io: CliIo): Promise<number> {
    const parsed = parseCommandArgs(args, {
      namespace: { type: 'string', short: 'n' },
      kubeconfig: { type: 'string' },
    });
    if (parsed.help) {
      io.stdout.write(`${usage}\n`);
      return ExitCode.Ok;
    }
    const [target, ...extra] = parsed.positionals;
    if (target == null) throw new UsageError('missing <kind>/<name>');
    if (extra.length > 0) throw new UsageError(`unexpected argument ${extra[0] ?? ''}`);
    const slash = target.indexOf('/');
    if (slash <= 0 || slash === target.length - 1)
      throw new UsageError(`expected <kind>/<name>, got ${target}`);
    const kubeconfig = parsed.values.kubeconfig ?? io.env['KUBECONFIG'];
    try {
      const { kubeConfig } = loadKubeConfig({
        ...(kubeconfig == null || kubeconfig === '' ? {} : { kubeconfig }),
        env: io.env,
        cwd: io.cwd,
      });
      const kind = await findKind(kubeConfig, target.slice(0, slash));
      const namespace = parsed.values.namespace ?? 'default';
      // Loaded on use: client-node's generated API classes stay out of the operator process.
      const { KubernetesObjectApi } = await import('@kubernetes/client-node');
      const cr = (await KubernetesObjectApi.makeApiClient(kubeConfig).read({
        apiVersion: kind.apiVersion,
        kind: kind.kind,
        metadata: { name: target.slice(slash + 1), ...(kind.namespaced ? { namespace } : {}) },
      })) as unknown as ExplainedCr;
      io.stdout.write(`${formatExplain(cr, new Date()).join('\n')}\n`);
      return ExitCode.Ok;
    } catch (error) {
      io.stderr.write(`ork explain: ${error instanceof Error ? error.message : String(error)}\n`);
      return ExitCode.Failed;
    }
  },
};

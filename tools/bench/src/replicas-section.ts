/**
 * The "Sharded" section of docs/performance.md, from the results files of `pnpm bench --replicas`
 * runs (docs/reference/runtime.md §25): per run its command, when and how busy the machine was,
 * and per size the replica table (replicas-summary.ts) with the speed-up over one replica and what
 * bounds it on this machine (the API server's CPU over the convergence, as a share of the cores).
 */
import { formatReplicaTable } from './replicas-summary.js';
import type { ReplicaSummary } from './replicas-summary.js';

/** ReplicasDocument is a results file of `pnpm bench --replicas` (main.ts `runReplicas`). */
export interface ReplicasDocument {
  readonly settings: { readonly command?: string; readonly replicas: readonly number[] };
  readonly environment: {
    readonly date?: string;
    readonly durationS?: number;
    /** The commit measured (`+changes` when the work tree differed); absent in older results. */
    readonly commit?: string;
    readonly cpus?: number;
    readonly loadAverage1m?: { readonly start?: number; readonly end?: number };
    readonly cpuShare?: { readonly busy: number; readonly niced: number; readonly idle: number } | null;
  };
  readonly sizes: readonly { readonly size: number; readonly summaries: readonly ReplicaSummary[] }[];
}

/** isReplicasDocument tells a `--replicas` results file from a size document. */
export function isReplicasDocument(value: unknown): value is ReplicasDocument {
  const v = value as { settings?: { replicas?: unknown }; sizes?: unknown };
  return Array.isArray(v.settings?.replicas) && Array.isArray(v.sizes);
}

const pct = (n: number): string => `${Math.round(n * 100)} %`;

/**
 * boundText gives, per replica count, the speed-up over one replica and the CPU the API server and
 * the operators used over the convergence as shares of the machine's cores: figures, no verdict.
 */
function boundText(size: number, summaries: readonly ReplicaSummary[], cpus: number): string {
  const one = summaries.find((s) => s.replicas === 1)?.convergenceMs.median;
  const share = (ms: number | null, conv: number | null): string =>
    ms != null && conv != null && conv > 0 ? pct(ms / conv / cpus) : 'n/a';
  const parts = summaries.map((s) => {
    const conv = s.convergenceMs.median;
    const speedUp = one != null && conv != null && conv > 0 ? `${(one / conv).toFixed(2)}×` : 'n/a';
    return (
      `${s.replicas} replica${s.replicas === 1 ? '' : 's'}: speed-up ${speedUp}, ` +
      `API server ${share(s.apiServerCpuMs.median, conv)} and operators ${share(s.operatorCpuMs.median, conv)} of the ${cpus} cores`
    );
  });
  return (
    `At ${size} CRs (medians; shares are CPU time over the convergence time): ${parts.join('; ')}. ` +
    `The replicas, the API server and etcd share these ${cpus} cores.`
  );
}

/** replicasSection renders the section; empty when there are no `--replicas` runs. */
export function replicasSection(documents: readonly ReplicasDocument[]): string {
  if (documents.length === 0) return '';
  const runs = documents.map((d) => {
    const env = d.environment;
    const share =
      env.cpuShare == null
        ? ''
        : ` CPU time over the run: ${pct(env.cpuShare.busy)} at ordinary priority, ${pct(env.cpuShare.niced)} to work reniced out of its way, ${pct(env.cpuShare.idle)} idle.`;
    const head =
      `\`${d.settings.command ?? 'pnpm bench --replicas'}\`: started ${env.date ?? '?'}` +
      `${env.commit == null ? '' : ` at commit ${env.commit}`}, ${String(env.durationS ?? '?')} s; ` +
      `1-minute load average ${String(env.loadAverage1m?.start ?? '?')} at the start and ${String(env.loadAverage1m?.end ?? '?')} at the end.${share}`;
    const tables = d.sizes.map(
      (s) => `${formatReplicaTable(s.size, s.summaries)}\n\n${boundText(s.size, s.summaries, env.cpus ?? 2)}`,
    );
    return [head, ...tables].join('\n\n');
  });
  return [
    '## Sharded (`--replicas`)',
    '',
    'Orkestra alone, sharded over N runtime processes (docs/reference/runtime.md §25), each count on its own fresh control plane in every round. "double reconciles" counts child objects written by two shards\' identities, from the audit log; it must be 0.',
    '',
    runs.join('\n\n'),
  ].join('\n');
}

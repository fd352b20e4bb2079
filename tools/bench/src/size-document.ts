/**
 * The results document of one size: the headline figures as medians over the rounds at the top
 * (the keys `latest.json` has always had, plus `fullFloorRatio`), the spread of every system's
 * figures, and every round's own document under `rounds`; and the table printed for it.
 */
import type { BenchResults, NotRun } from './bench-report.js';
import { summarizeRounds } from './round-summary.js';
import type { FloorSpread, RoundsSummary, SystemSpread } from './round-summary.js';
import { round } from './stats.js';
import type { Spread } from './stats.js';

/** SizeDocument is the JSON written for one size. */
export interface SizeDocument {
  readonly size: number;
  /** Median over rounds of Orkestra ÷ the children-only floor. */
  readonly convergenceRatio: number | null;
  /** Median over rounds of Orkestra ÷ the full floor. */
  readonly fullFloorRatio: number | null;
  readonly idleRequestsPerCrHour: number | null;
  readonly noopResyncWrites: number | null;
  readonly oneFieldChangeWrites: number | null;
  readonly latencyP50Ms: number | null;
  readonly latencyP99Ms: number | null;
  readonly rssMbPer1kCrs: number | null;
  /** kro at a 30 s resync (the same as Orkestra). */
  readonly peer: string | null;
  readonly peerRatio: number | null;
  /** kro at its default resync period. */
  readonly peerDefault: string | null;
  readonly peerDefaultRatio: number | null;
  /** Every measurement that did not run in some round, with the round and why. */
  readonly notRun: readonly (NotRun & { readonly round: number })[];
  readonly settings: Readonly<Record<string, unknown>>;
  readonly environment: Readonly<Record<string, unknown>>;
  readonly floor: FloorSpread;
  readonly fullFloor: FloorSpread;
  readonly orkestra: SystemSpread | null;
  readonly peerResult: SystemSpread | null;
  readonly peerDefaultResult: SystemSpread | null;
  readonly summary: Pick<RoundsSummary, 'spreads' | 'fasterThanPeer' | 'fasterThanPeerDefault'>;
  /** One document per round, with the same keys as a one-round run. */
  readonly rounds: readonly BenchResults[];
}

/** SizeDocumentInput is one size's rounds and the run's settings and machine. */
export interface SizeDocumentInput {
  readonly size: number;
  readonly rounds: readonly BenchResults[];
  readonly settings: Readonly<Record<string, unknown>>;
  readonly environment: Readonly<Record<string, unknown>>;
}

/** sizeDocument summarizes the rounds of one size. */
export function sizeDocument(input: SizeDocumentInput): SizeDocument {
  const summary = summarizeRounds(input.rounds);
  const m = (key: keyof RoundsSummary['spreads'], digits: number): number | null =>
    round(summary.spreads[key].median, digits);
  const firstName = (pick: (r: BenchResults) => string | null | undefined): string | null =>
    input.rounds.map(pick).find((n) => n != null) ?? null;
  return {
    size: input.size,
    convergenceRatio: m('convergenceRatio', 3),
    fullFloorRatio: m('fullFloorRatio', 3),
    idleRequestsPerCrHour: m('idleRequestsPerCrHour', 2),
    noopResyncWrites: m('noopResyncWrites', 3),
    oneFieldChangeWrites: m('oneFieldChangeWrites', 2),
    latencyP50Ms: m('latencyP50Ms', 1),
    latencyP99Ms: m('latencyP99Ms', 1),
    rssMbPer1kCrs: m('rssMbPer1kCrs', 1),
    peer: firstName((r) => r.peer),
    peerRatio: m('peerRatio', 3),
    peerDefault: firstName((r) =>
      r.peerDefaultResult != null && 'name' in r.peerDefaultResult ? r.peerDefaultResult.name : null,
    ),
    peerDefaultRatio: m('peerDefaultRatio', 3),
    notRun: input.rounds.flatMap((r, i) => r.notRun.map((n) => ({ ...n, round: i }))),
    settings: input.settings,
    environment: input.environment,
    floor: summary.floor,
    fullFloor: summary.fullFloor,
    orkestra: summary.orkestra,
    peerResult: summary.peer,
    peerDefaultResult: summary.peerDefault,
    summary: {
      spreads: summary.spreads,
      fasterThanPeer: summary.fasterThanPeer,
      fasterThanPeerDefault: summary.fasterThanPeerDefault,
    },
    rounds: input.rounds,
  };
}

/**
 * formatSpread prints a median with its range, `1.23 [1.10–1.40]`, or `n/a`; a figure with one
 * round prints its value alone and says so.
 */
export function formatSpread(s: Spread | null | undefined, digits = 1): string {
  if (s == null || s.median == null || s.min == null || s.max == null) return 'n/a';
  const f = (v: number): string => v.toFixed(digits);
  if (s.n === 1) return `${f(s.median)} (1 round)`;
  return `${f(s.median)} [${f(s.min)}–${f(s.max)}]`;
}

/** TableRow is one measurement: its label, its goal and one cell per system column. */
export type TableRow = readonly [label: string, goal: string, ...cells: string[]];

/** sizeTableRows are the rows of the table for one size (Orkestra, kro ×2, full floor, floor). */
export function sizeTableRows(doc: SizeDocument): TableRow[] {
  const systems = [doc.orkestra, doc.peerResult, doc.peerDefaultResult];
  const cells = (pick: (s: SystemSpread) => Spread, digits = 1): string[] =>
    systems.map((s) => (s == null ? 'n/a' : formatSpread(pick(s), digits)));
  const sp = doc.summary.spreads;
  return [
    [
      'measurement',
      'goal',
      'orkestra',
      doc.peer ?? 'kro (30 s resync)',
      doc.peerDefault ?? 'kro (default resync)',
      'full floor',
      'floor',
    ],
    [
      `convergence, ${doc.size} CRs (ms)`,
      '',
      ...cells((s) => s.convergenceMs, 0),
      formatSpread(doc.fullFloor.convergenceMs, 0),
      formatSpread(doc.floor.convergenceMs, 0),
    ],
    ['  orkestra ÷ full floor', '≤ 1.15', formatSpread(sp.fullFloorRatio, 2), '', '', '', ''],
    ['  orkestra ÷ children-only floor', '', formatSpread(sp.convergenceRatio, 2), '', '', '', ''],
    [
      '  orkestra ÷ kro',
      '< 1 every round',
      '',
      `${formatSpread(sp.peerRatio, 2)} (faster in ${doc.summary.fasterThanPeer.rounds}/${doc.summary.fasterThanPeer.of})`,
      `${formatSpread(sp.peerDefaultRatio, 2)} (faster in ${doc.summary.fasterThanPeerDefault.rounds}/${doc.summary.fasterThanPeerDefault.of})`,
      '',
      '',
    ],
    ['idle requests / CR / hour', '0', ...cells((s) => s.idleRequestsPerCrHour, 2), '', ''],
    ['  Lease requests / hour (leader election)', '', ...cells((s) => s.idleLeaseRequestsPerHour, 0), '', ''],
    ['writes per no-op resync', '0', ...cells((s) => s.noopResyncWrites, 3), '', ''],
    ['writes per one-field change', '1 + ≤ 1', ...cells((s) => s.oneFieldChangeWrites, 2), '', ''],
    ['edit → child p50 (ms)', '50', ...cells((s) => s.latencyP50Ms), '', ''],
    ['edit → child p99 (ms)', '< 100', ...cells((s) => s.latencyP99Ms), '', ''],
    [`RSS MiB with ${doc.size} CRs`, '', ...cells((s) => s.rssFullMb), '', ''],
    // (full − empty) ÷ N: at 100 CRs the growth is within the process's own RSS noise (±20 MiB
    // between readings of an idle Node process), so it can come out negative there.
    ['RSS MiB per 1k CRs', '< 100', ...cells((s) => s.rssMbPer1kCrs), '', ''],
    ['  heap MiB per 1k CRs', '', ...cells((s) => s.heapMbPer1kCrs), '', ''],
    ['CPU ms per reconcile', '', ...cells((s) => s.cpuMsPerReconcile, 2), '', ''],
    ['  reconciles per new CR', '', ...cells((s) => s.reconcilesPerCr, 2), '', ''],
    ['  resyncs queued per new CR', '', ...cells((s) => s.resyncsPerCr, 2), '', ''],
    [
      'writes per new CR (its create excluded)',
      'full floor 5 + 1 other',
      ...cells((s) => s.writesPerNewCr, 2),
      '',
      '',
    ],
    ['  to the CR object (finalizer)', '', ...cells((s) => s.crWritesPerNewCr, 2), '', ''],
    ['  Events', '', ...cells((s) => s.eventsPerNewCr, 2), '', ''],
  ];
}

/** formatSizeTable renders the rows as aligned text, then what did not run. */
export function formatSizeTable(doc: SizeDocument): string {
  const rows = sizeTableRows(doc);
  const header = rows[0] as TableRow;
  const widths = header.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length)));
  const line = (r: TableRow): string =>
    r
      .map((cell, c) => cell.padEnd(widths[c] ?? 0))
      .join('  ')
      .trimEnd();
  const out = [
    `${doc.size} CRs, ${doc.rounds.length} rounds: median [min–max] over rounds`,
    line(header),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...rows.slice(1).map(line),
  ];
  for (const n of doc.notRun) out.push(`not run (round ${n.round + 1}): ${n.measurement}: ${n.reason}`);
  return out.join('\n');
}

/** Settings that name a run, not its method: two runs that differ only here can share a section. */
const RUN_ONLY_SETTINGS = new Set(['command', 'rounds']);

function methodKey(doc: SizeDocument): string {
  const entries = Object.entries(doc.settings).filter(([key]) => !RUN_ONLY_SETTINGS.has(key));
  return `${doc.size} ${JSON.stringify(entries.sort(([a], [b]) => a.localeCompare(b)))}`;
}

/**
 * mergeSameMethod joins the documents of one size measured with the same method (the same settings
 * but the command and round count: runs of `--rounds 1` interleaved with other runs) into one
 * document whose rounds are theirs, in order. The merged document names every command, starts at
 * the first run's date, spans their summed duration, and its load runs from the first's start to
 * the last's end; its CPU shares are the duration-weighted mean. Documents with other settings stay
 * apart.
 */
export function mergeSameMethod(documents: readonly SizeDocument[]): SizeDocument[] {
  const groups = new Map<string, SizeDocument[]>();
  for (const doc of documents) {
    const key = methodKey(doc);
    groups.set(key, [...(groups.get(key) ?? []), doc]);
  }
  return [...groups.values()].map((group) => {
    const [first] = group;
    if (first == null || group.length === 1) return first as SizeDocument;
    const last = group[group.length - 1] ?? first;
    type Env = {
      date?: string;
      durationS?: number;
      loadAverage1m?: { start?: number; end?: number };
      cpuShare?: { busy: number; niced: number; idle: number } | null;
      commit?: string;
    };
    const envs = group.map((d) => d.environment as Env);
    const durations = envs.map((e) => e.durationS ?? 0);
    const total = durations.reduce((a, b) => a + b, 0);
    const shares = envs.map((e) => e.cpuShare);
    const cpuShare = shares.every((s) => s != null)
      ? (['busy', 'niced', 'idle'] as const).reduce(
          (out, key) => ({
            ...out,
            [key]: round(
              shares.reduce((sum, s, i) => sum + (s?.[key] ?? 0) * (durations[i] ?? 0), 0) / (total || 1),
              3,
            ),
          }),
          { busy: 0, niced: 0, idle: 0 },
        )
      : null;
    const commits = [...new Set(envs.map((e) => e.commit).filter((c) => c != null))];
    const commands = group.map((d) => String(d.settings['command'] ?? 'pnpm bench'));
    const rounds = group.flatMap((d) => d.rounds);
    return sizeDocument({
      size: first.size,
      rounds,
      settings: {
        ...first.settings,
        rounds: rounds.length,
        command: `${commands.map((c) => `\`${c}\``).join(', then ')} (${group.length} runs, one section)`,
      },
      environment: {
        ...first.environment,
        durationS: total,
        loadAverage1m: {
          start: envs[0]?.loadAverage1m?.start,
          end: (last.environment as Env).loadAverage1m?.end,
        },
        cpuShare,
        ...(commits.length === 0 ? {} : { commit: commits.join(', ') }),
      },
    });
  });
}

/**
 * The figures of `pnpm --filter @orkestra/bench admission` (admission.ts): per round the client
 * latencies of its phases, over the rounds their medians and ranges, and the "Admission and
 * conversion" section of docs/performance.md rendered from a results file.
 */
import { markdownTable } from './markdown-table.js';
import { median, percentile, round, spread } from './stats.js';
import type { Spread } from './stats.js';

/** Latency is a sample set's nearest-rank p50 and p99 (ms) and its size. */
export interface Latency {
  readonly p50: number | null;
  readonly p99: number | null;
  readonly n: number;
}

/** latencyOf summarizes one phase's samples. */
export function latencyOf(samples: readonly number[]): Latency {
  return {
    p50: round(percentile(samples, 50) ?? null, 2),
    p99: round(percentile(samples, 99) ?? null, 2),
    n: samples.length,
  };
}

/** Load is the 1-minute load average before and after a phase. */
export interface Load {
  readonly before: number;
  readonly after: number;
}

/** AdmissionRound is one round's measurements (absent phases were not reached). */
export interface AdmissionRound {
  readonly round: number;
  readonly admission?: {
    /** The order the three kinds were created in, repeated for every CR index. */
    readonly order: readonly string[];
    readonly noRuleMs: Latency;
    readonly policyMs: Latency;
    readonly webhookMs: Latency;
    readonly loadAvg1m: Load;
  };
  readonly conversion?: {
    readonly storageVersion: string;
    readonly convertedVersion: string;
    readonly storageVersionMs: Latency;
    readonly convertedMs: Latency;
    /** LIST of every converting CR, at each version in turn (ms per LIST). */
    readonly listStorageMs: readonly number[];
    readonly listConvertedMs: readonly number[];
    readonly loadAvg1m: Load;
  };
  readonly migration?: {
    readonly from: string;
    readonly to: string;
    readonly objects: number;
    readonly operatorStartMs: number;
    readonly wallMs: number;
    readonly objectsPerSecond: number | null;
    readonly rewriteObjectsPerSecond: number | null;
    readonly loadAvg1m: Load;
  };
}

/** AdmissionSummary is each figure's median and range over the rounds. */
export interface AdmissionSummary {
  readonly admission: {
    readonly noRuleP50Ms: Spread;
    readonly noRuleP99Ms: Spread;
    readonly policyAddedP50Ms: Spread;
    readonly policyAddedP99Ms: Spread;
    readonly webhookAddedP50Ms: Spread;
    readonly webhookAddedP99Ms: Spread;
  };
  readonly conversion: {
    readonly storageGetP50Ms: Spread;
    readonly getAddedP50Ms: Spread;
    readonly getAddedP99Ms: Spread;
    readonly listPerObjectMs: Spread;
  };
  readonly migration: {
    readonly objectsPerSecond: Spread;
    /** Objects over the wall time less the operator's start (the rewriting alone). */
    readonly rewriteObjectsPerSecond: Spread;
    readonly wallMs: Spread;
  };
}

/** AdmissionDocument is the results file (`--out`), rewritten after every phase. */
export interface AdmissionDocument {
  readonly benchmark: 'admission';
  /** False while the run is under way or when it stopped early. */
  readonly complete: boolean;
  readonly settings: {
    readonly command: string;
    readonly crs: number;
    readonly rounds: number;
    readonly workers: number;
    /** LISTs of every converting CR at each version, in turn, per round. */
    readonly listPairs: number;
    /** The storage migration's pause after each write, ms (results measured before ADR 0113). */
    readonly migrationPauseMs?: number;
    /** The storage migration's pacing: writes started per second, writes in flight (ADR 0113). */
    readonly migrationPacing?: { readonly ratePerSecond: number; readonly concurrency: number };
  };
  readonly environment: {
    readonly date: string;
    readonly durationS: number;
    readonly commit: string;
    readonly node: string;
    readonly cpus: number;
    readonly cpuModel: string;
    readonly kubernetes?: string;
    readonly loadAverage1m: { readonly start: number; readonly end: number };
    readonly cpuShare: { readonly busy: number; readonly niced: number; readonly idle: number } | null;
    readonly logs: string;
  };
  readonly rounds: readonly AdmissionRound[];
  readonly summary: AdmissionSummary;
  readonly error?: string;
}

const minus = (a: number | null | undefined, b: number | null | undefined): number | null =>
  a == null || b == null ? null : round(a - b, 2);

/**
 * summarizeRounds gives each figure's median and range over the rounds: the latency a rule adds
 * is taken per round (rule p50 − no-rule p50 of the same round, likewise p99) before the median.
 */
export function summarizeRounds(rounds: readonly AdmissionRound[], crs: number): AdmissionSummary {
  const over = (f: (r: AdmissionRound) => number | null | undefined, digits = 2): Spread => {
    const s = spread(rounds.map(f));
    return { median: round(s.median, digits), min: round(s.min, digits), max: round(s.max, digits), n: s.n };
  };
  return {
    admission: {
      noRuleP50Ms: over((r) => r.admission?.noRuleMs.p50),
      noRuleP99Ms: over((r) => r.admission?.noRuleMs.p99),
      policyAddedP50Ms: over((r) => minus(r.admission?.policyMs.p50, r.admission?.noRuleMs.p50)),
      policyAddedP99Ms: over((r) => minus(r.admission?.policyMs.p99, r.admission?.noRuleMs.p99)),
      webhookAddedP50Ms: over((r) => minus(r.admission?.webhookMs.p50, r.admission?.noRuleMs.p50)),
      webhookAddedP99Ms: over((r) => minus(r.admission?.webhookMs.p99, r.admission?.noRuleMs.p99)),
    },
    conversion: {
      storageGetP50Ms: over((r) => r.conversion?.storageVersionMs.p50),
      getAddedP50Ms: over((r) => minus(r.conversion?.convertedMs.p50, r.conversion?.storageVersionMs.p50)),
      getAddedP99Ms: over((r) => minus(r.conversion?.convertedMs.p99, r.conversion?.storageVersionMs.p99)),
      listPerObjectMs: over((r) => {
        if (r.conversion == null) return null;
        const added = minus(median(r.conversion.listConvertedMs), median(r.conversion.listStorageMs));
        return added == null ? null : added / crs;
      }, 4),
    },
    migration: {
      objectsPerSecond: over((r) => r.migration?.objectsPerSecond, 1),
      rewriteObjectsPerSecond: over((r) => r.migration?.rewriteObjectsPerSecond, 1),
      wallMs: over((r) => r.migration?.wallMs, 0),
    },
  };
}

const cell = (s: Spread, digits = 2): string =>
  s.median == null
    ? 'not measured'
    : `${s.median.toFixed(digits)} [${(s.min ?? 0).toFixed(digits)} – ${(s.max ?? 0).toFixed(digits)}]`;

const p = (l: Latency | undefined): string =>
  l?.p50 == null || l.p99 == null ? 'n/a' : `${l.p50.toFixed(1)} / ${l.p99.toFixed(1)}`;

const loadText = (l: Load | undefined): string => (l == null ? '?' : `${l.before} → ${l.after}`);

/** admissionRunText renders one results file: its command, machine, figures and every round. */
/** pacingText says how the measured operator paced its storage migration (ADR 0113; before it, a pause after each write). */
function pacingText(settings: AdmissionDocument['settings']): string {
  const p = settings.migrationPacing;
  return p == null
    ? `one write at a time, ${settings.migrationPauseMs ?? 20} ms apart`
    : `${p.concurrency} writes in flight, at most ${p.ratePerSecond} started per second`;
}

function admissionRunText(doc: AdmissionDocument): string {
  const env = doc.environment;
  const s = doc.summary;
  const pct = (n: number): string => `${Math.round(n * 100)} %`;
  const share =
    env.cpuShare == null
      ? ''
      : ` CPU time over the run (/proc/stat): ${pct(env.cpuShare.busy)} at ordinary priority, ${pct(env.cpuShare.niced)} to work reniced out of its way, ${pct(env.cpuShare.idle)} idle.`;
  const head =
    `### ${doc.settings.crs} CRs\n\n` +
    `\`${doc.settings.command}\`: ${doc.rounds.length} of ${doc.settings.rounds} rounds${doc.complete ? '' : ' (**the run stopped early**' + (doc.error == null ? ')' : `: ${doc.error})`)}, ` +
    `started ${env.date} at commit ${env.commit}, ${env.durationS} s; ${env.cpus} vCPUs (${env.cpuModel}, shared), Node ${env.node}` +
    `${env.kubernetes == null ? '' : `, Kubernetes ${env.kubernetes}`}; ` +
    `1-minute load average ${env.loadAverage1m.start} at the start and ${env.loadAverage1m.end} at the end.${share} ` +
    `Storage migration ${pacingText(doc.settings)}. ` +
    'Each cell is the median over the rounds with the range [lowest – highest round]; an added latency is taken within a round (with the rule − without) before the median.';
  const figures = markdownTable([
    ['figure', 'median [range] over the rounds'],
    ['CREATE, no rule: p50 ms', cell(s.admission.noRuleP50Ms)],
    ['CREATE, no rule: p99 ms', cell(s.admission.noRuleP99Ms)],
    ['added by a CEL rule (ValidatingAdmissionPolicy): p50 ms', cell(s.admission.policyAddedP50Ms)],
    ['added by a CEL rule (ValidatingAdmissionPolicy): p99 ms', cell(s.admission.policyAddedP99Ms)],
    ['added by a webhook rule (operator admission webhook): p50 ms', cell(s.admission.webhookAddedP50Ms)],
    ['added by a webhook rule (operator admission webhook): p99 ms', cell(s.admission.webhookAddedP99Ms)],
    ['GET at the storage version: p50 ms', cell(s.conversion.storageGetP50Ms)],
    ['added by conversion to a GET: p50 ms', cell(s.conversion.getAddedP50Ms)],
    ['added by conversion to a GET: p99 ms', cell(s.conversion.getAddedP99Ms)],
    [
      `conversion cost per object in a LIST of ${doc.settings.crs}: ms`,
      cell(s.conversion.listPerObjectMs, 4),
    ],
    [`storage migration of ${doc.settings.crs} CRs: objects/s`, cell(s.migration.objectsPerSecond, 1)],
    [
      `storage migration of ${doc.settings.crs} CRs, the operator's start left out: objects/s`,
      cell(s.migration.rewriteObjectsPerSecond, 1),
    ],
    [`storage migration of ${doc.settings.crs} CRs: wall ms`, cell(s.migration.wallMs, 0)],
  ]);
  const rounds = markdownTable([
    [
      'round',
      'create order',
      'load (admission)',
      'CREATE p50/p99 ms: no rule',
      'CEL rule',
      'webhook rule',
      'GET stored → converted',
      'GET p50/p99 ms: stored',
      'converted',
      'LIST ms (median): stored',
      'converted',
      'load (conversion)',
      'migration',
      'objects/s',
      'load (migration)',
    ],
    ...doc.rounds.map((r) => [
      String(r.round),
      r.admission?.order.join(' → ') ?? 'n/a',
      loadText(r.admission?.loadAvg1m),
      p(r.admission?.noRuleMs),
      p(r.admission?.policyMs),
      p(r.admission?.webhookMs),
      r.conversion == null ? 'n/a' : `${r.conversion.storageVersion} → ${r.conversion.convertedVersion}`,
      p(r.conversion?.storageVersionMs),
      p(r.conversion?.convertedMs),
      r.conversion == null ? 'n/a' : (median(r.conversion.listStorageMs)?.toFixed(0) ?? 'n/a'),
      r.conversion == null ? 'n/a' : (median(r.conversion.listConvertedMs)?.toFixed(0) ?? 'n/a'),
      loadText(r.conversion?.loadAvg1m),
      r.migration == null ? 'n/a' : `${r.migration.from} → ${r.migration.to}, ${r.migration.wallMs} ms`,
      r.migration?.objectsPerSecond == null ? 'n/a' : r.migration.objectsPerSecond.toFixed(1),
      loadText(r.migration?.loadAvg1m),
    ]),
  ]);
  return [head, '', figures, '', '**Every round:**', '', rounds].join('\n');
}

/** ADMISSION_MARKER names the generated region of docs/performance.md. */
export const ADMISSION_MARKER = 'admission-results';

/** admissionSection renders "Admission and conversion" from results files (smallest size first). */
export function admissionSection(documents: readonly AdmissionDocument[]): string {
  const sorted = [...documents].sort((a, b) => a.settings.crs - b.settings.crs);
  return [
    `<!-- ${ADMISSION_MARKER}:begin (generated by \`pnpm --filter @orkestra/bench admission-doc\` from docs/performance/admission-*.json; do not edit) -->`,
    '',
    '## Admission and conversion',
    '',
    "What the admission rules, the conversion webhook and storage migration cost a client, measured by `tools/bench/src/admission.ts` on one local control plane (no controller manager) with the operator as `ork dev` runs it (`--install-crds`, its HTTPS endpoint on loopback, 4 workers). In each round a fresh operator watches a namespace of its own, and the benchmark creates N CRs of each of three kinds, one of each in turn (the order rotates by one place each round): a kind with no rule, a kind whose `deny` rule is a ValidatingAdmissionPolicy (CEL, no server), and a kind whose `deny` rule has a templated message, which CEL cannot express, judged by the operator's admission webhook (docs/adr/0089-admission-webhook-for-rules-cel-cannot-express.md); every CR passes its rule. Then it GETs each of N CRs of a two-version kind at the storage version and at the other one (the API server calls the operator's conversion webhook), interleaved, and LISTs them all at each version in turn, ten times (the added time of the median converted LIST over the median stored one, divided by N, is the conversion cost per object). Then the operator restarts with the other version as storage (watching the namespace of those N CRs, so it also reconciles them after its start, as an operator that owns them does), and the wall time runs from its start until the CRD's `status.storedVersions` names that version alone (every object rewritten, at the pacing each run names). The next round starts from that storage version. Latencies are client round trips over one keep-alive connection, nearest-rank percentiles.",
    '',
    sorted.map(admissionRunText).join('\n\n'),
    '',
    `<!-- ${ADMISSION_MARKER}:end -->`,
  ].join('\n');
}

/**
 * replaceAdmissionSection puts `section` in place of the marked region of `page`, or before
 * "## Method" when the page has none yet.
 */
export function replaceAdmissionSection(page: string, section: string): string {
  const begin = page.indexOf(`<!-- ${ADMISSION_MARKER}:begin`);
  const endMarker = `<!-- ${ADMISSION_MARKER}:end -->`;
  const end = page.indexOf(endMarker);
  if (begin >= 0 && end > begin) return page.slice(0, begin) + section + page.slice(end + endMarker.length);
  const method = page.indexOf('\n## Method');
  if (method < 0) return `${page.trimEnd()}\n\n${section}\n`;
  return `${page.slice(0, method)}\n${section}\n${page.slice(method)}`;
}

/** isAdmissionDocument tells an admission results file from other results. */
export function isAdmissionDocument(value: unknown): value is AdmissionDocument {
  const v = value as { benchmark?: unknown; rounds?: unknown };
  return v.benchmark === 'admission' && Array.isArray(v.rounds);
}

/** ADMISSION_RESULTS names the committed results files, beside the page's charts. */
export const ADMISSION_RESULTS = /^admission-\d+\.json$/;

/**
 * performanceDoc writes docs/performance.md from one benchmark run: the method (fixed text), then
 * for every size the medians and ranges over rounds, every round, the targets met or missed, and
 * the charts. Nothing in the page's figures is typed by hand: `pnpm bench --docs` regenerates it.
 */
import { admissionSection } from './admission-summary.js';
import { markdownTable } from './markdown-table.js';
import type { AdmissionDocument } from './admission-summary.js';
import { replicasSection } from './replicas-section.js';
import type { ReplicasDocument } from './replicas-section.js';
import type { BenchResults } from './bench-report.js';
import type { SystemResult } from './measure-system.js';
import { sizeTableRows } from './size-document.js';
import type { SizeDocument } from './size-document.js';
import type { Spread } from './stats.js';

/** PerformanceDocInput is the run the page is generated from. */
export interface PerformanceDocInput {
  readonly documents: readonly SizeDocument[];
  readonly durationS: number;
  /** Results of `pnpm bench --replicas` runs, rendered as the "Sharded" section. Default none. */
  readonly replicas?: readonly ReplicasDocument[];
  /**
   * Results of `admission` runs (docs/performance/admission-<N>.json), rendered as the "Admission
   * and conversion" section, which `admission-doc` also rewrites alone. Default none.
   */
  readonly admission?: readonly AdmissionDocument[];
}

const ms = (v: number | null | undefined): string => (v == null ? 'n/a' : v.toFixed(0));
const two = (v: number | null | undefined): string => (v == null ? 'n/a' : v.toFixed(2));
const convergence = (
  d: { readonly convergenceMs: number } | { readonly error: string } | null,
): number | null => (d != null && 'convergenceMs' in d ? d.convergenceMs : null);
const system = (d: SystemResult | { readonly error: string } | null): SystemResult | undefined =>
  d != null && 'convergenceMs' in d ? d : undefined;

function roundsTable(rounds: readonly BenchResults[]): string {
  const rows: string[][] = [
    [
      'round',
      'order',
      'load (1 min) start → end',
      'orkestra ms',
      'kro 30 s ms',
      'kro default ms',
      'full floor ms',
      'floor ms',
      '÷ full floor',
      '÷ kro 30 s',
      '÷ kro default',
      'p99 ms',
      'CPU ms / reconcile',
    ],
  ];
  rounds.forEach((r, i) => {
    const env = r.environment as { loadAverage1m?: { start?: number; end?: number } };
    const order = (r.settings as { order?: readonly string[] }).order ?? [];
    const ork = system(r.orkestra);
    rows.push([
      String(i + 1),
      order.join(' → '),
      `${env.loadAverage1m?.start ?? '?'} → ${env.loadAverage1m?.end ?? '?'}`,
      ms(convergence(r.orkestra)),
      ms(convergence(r.peerResult)),
      ms(convergence(r.peerDefaultResult)),
      ms(convergence(r.fullFloor)),
      ms(convergence(r.floor)),
      two(r.fullFloorRatio),
      two(r.peerRatio),
      two(r.peerDefaultRatio),
      ork?.edit.latencyMs.p99 == null ? 'n/a' : ork.edit.latencyMs.p99.toFixed(1),
      two(ork?.cpu?.msPerReconcile),
    ]);
  });
  return markdownTable(rows);
}

/** Target is one goal of docs/performance.md checked against a median. */
interface Target {
  readonly what: string;
  readonly goal: string;
  readonly value: string;
  readonly met: boolean | null;
}

function targets(doc: SizeDocument): Target[] {
  const s = doc.summary.spreads;
  const check = (
    v: Spread,
    ok: (x: number) => boolean,
    digits = 2,
  ): { value: string; met: boolean | null } =>
    v.median == null
      ? { value: 'not measured', met: null }
      : { value: v.median.toFixed(digits), met: ok(v.median) };
  const list: Target[] = [];
  if (doc.size >= 1000) {
    list.push({
      what: 'convergence ÷ full floor (median)',
      goal: '≤ 1.15',
      ...check(s.fullFloorRatio, (x) => x <= 1.15),
    });
  }
  const wins = doc.summary.fasterThanPeer;
  list.push({
    what: 'faster than kro (30 s resync) in every round',
    goal: 'every round',
    value: `${wins.rounds} of ${wins.of} rounds`,
    met: wins.of === 0 ? null : wins.rounds === wins.of,
  });
  const winsD = doc.summary.fasterThanPeerDefault;
  list.push({
    what: 'faster than kro (default resync) in every round',
    goal: 'every round',
    value: `${winsD.rounds} of ${winsD.of} rounds`,
    met: winsD.of === 0 ? null : winsD.rounds === winsD.of,
  });
  if (doc.size >= 5000) {
    list.push({
      what: 'RSS growth per 1 000 CRs (median)',
      goal: '< 100 MiB',
      ...check(s.rssMbPer1kCrs, (x) => x < 100, 1),
    });
    list.push({
      what: 'edit → child p99 (median)',
      goal: '< 100 ms',
      ...check(s.latencyP99Ms, (x) => x < 100, 1),
    });
  }
  return list;
}

/**
 * controlPlaneText says how the section's run used control planes: runs before the per-system
 * method (no `settings.controlPlane`) shared one control plane among a round's systems.
 */
function controlPlaneText(settings: Record<string, unknown>): string {
  if (settings['controlPlane'] === 'per-system') {
    return `every system on its own fresh control plane in every round, after an untimed warm-up of ${String(settings['warmupFloorCrs'] ?? '?')} CRs' floor writes.`;
  }
  return 'an earlier method: one control plane per round, shared by its systems in turn (see "Method" for its bias), after a warm-up of N CRs\' floor writes.';
}

/** commandText quotes a run's command; a merged section's text (mergeSameMethod) quotes its own. */
function commandText(command: string): string {
  return command.includes('`') ? command : `\`${command}\``;
}

function sizeSection(doc: SizeDocument): string {
  const env = doc.environment as Record<string, unknown> & {
    loadAverage1m?: { start?: number; end?: number };
    cpuShare?: { busy: number; niced: number; idle: number } | null;
  };
  const t = targets(doc);
  const pct = (n: number): string => `${Math.round(n * 100)} %`;
  const share =
    env.cpuShare == null
      ? ''
      : `CPU time over the run (/proc/stat): ${pct(env.cpuShare.busy)} at ordinary priority (the benchmark, ` +
        `its control planes and anything not reniced), ${pct(env.cpuShare.niced)} to work reniced out of its way, ` +
        `${pct(env.cpuShare.idle)} idle. `;
  const settings = doc.settings as Record<string, unknown>;
  const parts = [
    `### ${doc.size} CRs${
      Array.isArray(settings['operatorArgs']) && settings['operatorArgs'].length > 0
        ? ` with \`${(settings['operatorArgs'] as unknown[]).map(String).join(' ')}\``
        : ''
    }`,
    '',
    `${commandText(String(settings['command'] ?? 'pnpm bench'))}; ${controlPlaneText(settings)}`,
    '',
    `${doc.rounds.length} rounds, ${String(env['durationS'] ?? '?')} s, started ${String(env['date'] ?? '?')}` +
      `${env['commit'] == null ? '' : ` at commit ${String(env['commit'])}`}; ` +
      `1-minute load average ${env.loadAverage1m?.start ?? '?'} at the start and ${env.loadAverage1m?.end ?? '?'} at the end ` +
      `(2 cores shared with other work: times are noisy, which is why only medians and ranges are quoted). ` +
      share +
      `Each cell is the median over the rounds with the range [fastest–slowest round] beside it.`,
    '',
    markdownTable(sizeTableRows(doc)),
    '',
    '**Targets (docs/performance.md), on the medians:**',
    '',
    markdownTable([
      ['target', 'goal', 'measured', 'met'],
      ...t.map((x) => [x.what, x.goal, x.value, x.met == null ? 'not measured' : x.met ? 'yes' : '**no**']),
    ]),
    '',
    '**Every round:**',
    '',
    roundsTable(doc.rounds),
  ];
  if (doc.notRun.length > 0) {
    parts.push(
      '',
      '**Not run:**',
      '',
      ...doc.notRun.map((n) => `- round ${n.round + 1}: ${n.measurement}: ${n.reason}`),
    );
  }
  return parts.join('\n');
}

/** commandLine names the run's command, or says that each size's section names its own. */
function commandLine(documents: readonly SizeDocument[]): string {
  const commands = [
    ...new Set(
      documents.map((d) => String((d.settings as Record<string, unknown>)['command'] ?? 'pnpm bench')),
    ),
  ];
  if (commands.length === 1) return `\`${commands[0] ?? 'pnpm bench'}\``;
  return `${commands.length} runs, each size's section names its command`;
}

/** performanceDoc returns the whole page. */
/**
 * modulesText says where the runtime child loaded the operator from: runs that record
 * \`operatorModules: 'built'\` loaded the packages' JavaScript (as the image does); earlier runs loaded
 * TypeScript source through tsx, whose transpiler memory is in every reading.
 */
function modulesText(documents: readonly SizeDocument[]): string {
  const built = documents.every(
    (d) => (d.environment as { operatorModules?: string }).operatorModules === 'built',
  );
  return built
    ? "The child runs its own file through tsx; the operator's packages load from their built JavaScript (`dist/`), as in the image."
    : "The benchmark and the child run through tsx with the `@orkestra/source` condition: the operator is loaded from TypeScript source, not from the built JavaScript the image runs, and the transpiler's memory is in every reading (RSS figures are higher than the image's).";
}

export function performanceDoc(input: PerformanceDocInput): string {
  const first = input.documents[0];
  const env = (first?.environment ?? {}) as Record<string, unknown>;
  const settings = (first?.settings ?? {}) as Record<string, unknown>;
  return `<!-- Generated by \`pnpm bench --docs\` (tools/bench/src/performance-doc.ts) from one run. Do not edit by hand: rerun the benchmark. -->

# Performance

How fast and how frugal Orkestra is, measured by \`pnpm bench\` (\`tools/bench\`) against two floors
and against a peer, [kro](https://github.com/kubernetes-sigs/kro), on the same API server in the
same rounds. The properties behind the goals are runtime.md §20.

\`\`\`sh
pnpm bench                              # 100 CRs, 3 rounds, every system
pnpm bench --size 1000 --rounds 3       # 1 000 CRs
pnpm bench --size 100,1000,5000 --docs  # the sizes of this page; regenerates it and its charts
pnpm bench --size 10000                 # on request
pnpm bench --help                       # --systems, --no-peer, --idle-seconds, --edits, --cpu-prof, --out
\`\`\`

Each run writes \`bench/results/latest.json\` (git-ignored): its top-level keys (\`size\`,
\`convergenceRatio\`, \`fullFloorRatio\`, \`idleRequestsPerCrHour\`, \`noopResyncWrites\`,
\`oneFieldChangeWrites\`, \`latencyP50Ms\`, \`latencyP99Ms\`, \`rssMbPer1kCrs\`, \`peer\`, \`peerRatio\`,
\`peerDefaultRatio\`) are Orkestra's medians over the rounds; \`floor\`, \`fullFloor\`, \`orkestra\`,
\`peerResult\` and \`peerDefaultResult\` hold every system's median and range per figure; \`rounds\`
holds one document per round with the same keys; with several sizes, \`sizes\` holds each size's
document. The charts go beside it (\`convergence.svg\`, \`rss.svg\`). The runs this page reports
keep their results in \`docs/performance/\` (each section's command names its \`--out\`), so the
page is regenerated from them without a run: \`pnpm bench --docs-from <those files>\`.

## This run

${commandLine(input.documents)}: ${String(env['cpus'] ?? '?')} vCPUs (${String(env['cpuModel'] ?? '?')}, shared), ${String(env['memoryGb'] ?? '?')} GB,
Node ${String(env['node'] ?? '?')}, Kubernetes ${String(env['kubernetes'] ?? '?')}, etcd ${String(env['etcd'] ?? '?')}, kro ${String(env['kro'] ?? '?')};
${input.durationS} s in all; concurrency ${String(settings['concurrency'] ?? '?')}, idle window ${String(settings['idleSeconds'] ?? '?')} s,
${String(settings['edits'] ?? '?')} edits, ${String(settings['warmupCrs'] ?? '?')} warm-up CRs per operator.

![Convergence time against N](performance/convergence.svg)

![RSS against N](performance/rss.svg)

${input.documents.map(sizeSection).join('\n\n')}

${replicasSection(input.replicas ?? [])}

${input.admission == null || input.admission.length === 0 ? '' : admissionSection(input.admission)}

## Method

**Rounds.** Every figure is measured in \`--rounds\` rounds (3 by default) and reported as the median
with the range over the rounds; no single round is quoted alone. In each round every system runs
once on a control plane of its own: a fresh etcd and kube-apiserver from \`@orkestra/testenv\` (no
controller manager, so nothing else writes; the service IP range widened to a /16), an untimed
warm-up of children-only floor writes for min(N, 200) CRs (the API server's first writes of a kind
are slower), then the system alone, in its own namespace; the control plane stops before the next
system's starts. The order of the systems rotates by one place each round (round 1: floor, full
floor, Orkestra, kro 30 s, kro default; round 2: full floor, Orkestra, kro 30 s, kro default,
floor; …), so machine load that drifts over a round does not always fall on the same system.

**Workload.** N CRs, each producing a Deployment (one nginx container, 1 replica, a container
port), a Service (port 80 → 8080), a ConfigMap (\`message\` from \`spec.message\`) and a Secret (one
key), with the same names in every system (\`tools/bench/src/workload.ts\`). For Orkestra it is a
Katalog with one CRD entry, the four children in \`onReconcile\`, \`workers: 8\` and \`resync: 30s\`
(its CRD has the status subresource). Orkestra runs as the Helm chart installs it: the operator
(\`startOperator\`, what \`ork run\` runs) with the operator namespace present (Katalog revisions on),
leader election on, the Control Center on and \`/metrics\` scraped every 15 s; it watches only its
round's namespace. For
kro a ResourceGraphDefinition with the same four templates (the Secret through \`stringData\`,
which the API server stores as the same \`data\`).

**Two floors.** The *children-only floor* server-side-applies the four objects per CR, 8 CRs at a
time (the four of one CR in parallel), with no CR, labels, owner references or status: the API
server's cost for the objects alone. The *full floor* makes exactly the writes an operator must
make (\`tools/bench/src/full-floor.ts\`): the benchmark creates the N CRs 8 at a time, as it does
for the operators, and as each create answers one of 8 writer lanes applies the CR's four children
with Orkestra's five labels, its applied-hash annotation and a controller ownerReference (in
parallel), then one status patch; its time runs from the first create to the last status answer,
after an untimed pass of 10 CRs made the same way (as the operators' warm-up).
\`fullFloorRatio\` = Orkestra ÷ full floor is the figure the targets use.

**The peer, twice.** kro is built from the Go module proxy by \`tools/bench/build-kro.sh\` into
\`~/.cache/orkestra/bench/kro-<version>/\` and runs with \`--leader-elect=false\`,
\`--client-qps=1000 --client-burst=2000\` (the defaults would measure a client-side rate limiter) and
\`--dynamic-controller-concurrent-reconciles=8\`; once with \`--dynamic-controller-default-resync-period=30\`
(the same resync as Orkestra) and once at its default resync period (10 h). The two runs use two
graphs with their own instance kinds, and each graph is deleted before its kro process stops, so
the second run never reconciles the first run's instances. Without Go, or when the build or start
fails, the peer is reported as not run with the reason.

**One control plane per system, and why.** Runs before 2026-12-02 14:00 UTC put every system of a
round on one control plane, in turn, and what a system created stayed: a system that ran later
worked against a larger etcd and API server cache. At 5 000 CRs (25 000 objects per system) the
system that ran first was faster in 3 of 3 rounds, which decided the ratio. A size section measured
that way says so in its first line. The API server's CPU time over each convergence
(\`process_cpu_seconds_total\`) is in the results file as \`apiServerCpuMs\`.

**Concurrency.** 8 everywhere: the benchmark creates 8 CRs at a time, Orkestra runs 8 workers,
kro 8 instance reconciles, and both floors write for 8 CRs at a time.

**Phases, per operator.** Started and synced with no CRs, then:

1. _Warm-up_: 10 CRs converge, untimed (JIT compilation, connections). They stay and count as CRs
   in the idle figures.
2. _Empty reading_: idle for the idle window, then memory is read until two readings 2 s apart
   differ by less than 1 MiB.
3. _Convergence_: the benchmark creates the N CRs and the clock runs from the first create until a
   watch on the namespace has seen all 4N children. The benchmark's creates are inside this time,
   as they are in the full floor's.
4. _Settle_: until no write for 3 s (at most 30 s). The operator's CPU time (Node's
   \`process.cpuUsage()\` in the runtime child; kro's \`process_cpu_seconds_total\`) and its finished
   reconciles from the first create to here give _CPU ms per reconcile_ and _reconciles per new
   CR_; the writes over the same span, the benchmark's CR creates left out, give _writes per new
   CR_ (children, status, the CR object, Events, other). The full floor makes 4 child writes and
   1 status write per CR by construction. The log lists the writes by resource: "other" is the API
   server's own write per Service (\`POST networking.k8s.io/ipaddresses\`, the ClusterIP's
   \`IPAddress\` object), which the full floor's Services cause too.
5. _Idle window_ (\`--idle-seconds\`): nothing touches the cluster. \`idleRequestsPerCrHour\` = requests
   in the window ÷ (N + 10) CRs, scaled to an hour; for Orkestra counted from the API server's audit
   log by its User-Agent (\`orkestra-operator\`), watches and its Lease requests left out — the Lease
   requests of leader election are reported on their own line, per hour (a renewal every 2 s); \`noopResyncWrites\` = writes ÷ the resyncs due in
   the window (none are due at kro's default resync, so it is n/a there).
6. _Full reading_ of memory, as in 2. \`rssMbPer1kCrs\` = (full − empty) RSS ÷ N × 1 000, in MiB. At 100 CRs the growth is smaller than an idle Node process's own RSS variation between two readings (about ±20 MiB), so that size's per-1k figure can be negative and means nothing; the row above it gives the RSS itself.
7. _Edits_ (\`--edits\`): one CR at a time, \`spec.message\` is changed with a merge patch; the time
   until the watch sees the ConfigMap carry the new value is one latency sample (next edit 250 ms
   later). p50 and p99 are nearest-rank percentiles. Writes in the phase are sorted into child,
   status, CR, event and other writes, net of the idle window's write rate; when resyncs account
   for more than half of them the figure is reported as not measurable.

**Counting requests.** \`apiserver_request_total\` deltas from the API server's \`/metrics\`, summed
over response codes; \`WATCH\` and the API server's own upkeep (its Lease, the \`kubernetes\` Service
endpoints) are left out. Orkestra's idle requests come from the audit log instead (every control
plane writes one, every request at Metadata level), attributed by User-Agent.

**Memory.** Orkestra runs in a child Node process (\`tools/bench/src/runtime-child.ts\`) so its memory
is its own; each reading is \`process.memoryUsage()\` after two \`global.gc()\`. kro's is \`VmRSS\` from
\`/proc\` plus \`go_memstats_heap_alloc_bytes\`. ${modulesText(input.documents)}

**Limits.** The machine is shared; every round records the 1-minute load average. There is no
kubelet and no workload controller, so Deployments never become available; neither system's figures
depend on that.
`;
}

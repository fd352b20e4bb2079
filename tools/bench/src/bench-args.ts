/**
 * parseBenchArgs reads the command line of `pnpm bench`.
 */

/** SystemId names one system the benchmark can run. */
export const SystemId = {
  Floor: 'floor',
  FullFloor: 'full-floor',
  Orkestra: 'orkestra',
  Kro: 'kro',
  KroDefault: 'kro-default',
} as const;
export type SystemId = (typeof SystemId)[keyof typeof SystemId];

/** ALL_SYSTEMS is every system in the order of round 0 (later rounds rotate it). */
export const ALL_SYSTEMS: readonly SystemId[] = [
  SystemId.Floor,
  SystemId.FullFloor,
  SystemId.Orkestra,
  SystemId.Kro,
  SystemId.KroDefault,
];

/** BenchArgs are the benchmark's settings. */
export interface BenchArgs {
  /** CR counts, each run as its own set of rounds (`--size 100,1000`). Default [100]. */
  readonly sizes: readonly number[];
  /** Rounds per size (`--rounds`), each on a fresh control plane with the order rotated. Default 3. */
  readonly rounds: number;
  /** CRs reconciled (and created) at the same time (`--concurrency`). Default 8. */
  readonly concurrency: number;
  /** Idle window in seconds (`--idle-seconds`), a multiple of the 30 s resync period. Default 60. */
  readonly idleSeconds: number;
  /** One-field edits for writes and latency (`--edits`). Default 100. */
  readonly edits: number;
  /** Systems to run (`--systems`, comma-separated; `--no-peer` drops both kro runs). */
  readonly systems: readonly SystemId[];
  /** Where to write the JSON (`--out`); default `<repo>/bench/results/latest.json`. */
  readonly out: string | undefined;
  /** Regenerate docs/performance.md and its charts from this run (`--docs`). */
  readonly docs: boolean;
  /**
   * Regenerate docs/performance.md and the charts from these results files of earlier runs
   * (`--docs-from a.json,b.json`; each a `latest.json` of one size) without measuring anything.
   */
  readonly docsFrom: readonly string[];
  /**
   * Orkestra replica counts (`--replicas 1,2,4`): more than `[1]` runs Orkestra only, once per count
   * in every round (order rotated), sharded across that many processes (docs/reference/runtime.md §25).
   * Default [1].
   */
  readonly replicas: readonly number[];
  /** Write a V8 CPU profile of the Orkestra runtime child into this directory (`--cpu-prof`). */
  readonly cpuProfileDir: string | undefined;
  /**
   * Extra `ork run` flags for the Orkestra runtime (`--operator-arg --resync-skip-recent=false`,
   * repeatable), e.g. to measure a knob's effect; recorded in the results. Default none.
   */
  readonly operatorArgs: readonly string[];
  readonly help: boolean;
}

/** BENCH_USAGE is the `--help` text. */
export const BENCH_USAGE = `Usage: pnpm bench [-- options]
  --size N[,N…]      CRs per system: 100 (default), 1000, 5000, 10000; several sizes run one after the other
  --rounds N         rounds per size, each system on a fresh control plane, order rotated (default 3)
  --concurrency N    CRs created and reconciled at the same time (default 8)
  --idle-seconds N   idle window for idle requests and no-op resyncs, a multiple of 30 (default 60)
  --edits N          one-field edits for writes per change and latency (default 100)
  --systems LIST     comma-separated subset of ${ALL_SYSTEMS.join(',')} (default: all)
  --no-peer          do not build or run kro (both resync settings)
  --docs             regenerate docs/performance.md and docs/performance/*.svg from this run
  --docs-from F,…    regenerate docs/performance.md and its charts from earlier results files, no run
  --replicas N[,N…]  Orkestra sharded over N processes, each count once per round (Orkestra only; default 1)
  --cpu-prof DIR     write a CPU profile of the Orkestra runtime child (node --cpu-prof) into DIR
  --operator-arg F   pass the ork run flag F to the Orkestra runtime (repeatable), e.g. --resync-skip-recent=false
  --out FILE         JSON output (default bench/results/latest.json at the repository root); relative paths
                     (here and in --docs-from, --cpu-prof) are from the directory pnpm was run in`;

/** parseBenchArgs parses `argv` (without node and script); throws on unknown or bad options. */
export function parseBenchArgs(argv: readonly string[]): BenchArgs {
  const values: { rounds: number; concurrency: number; idleSeconds: number; edits: number } = {
    rounds: 3,
    concurrency: 8,
    idleSeconds: 60,
    edits: 100,
  };
  let sizes: number[] = [100];
  let replicas: number[] = [1];
  let systems: SystemId[] = [...ALL_SYSTEMS];
  let peer = true;
  let out: string | undefined;
  let docs = false;
  let cpuProfileDir: string | undefined;
  const operatorArgs: string[] = [];
  let docsFrom: string[] = [];
  let help = false;
  const numeric: Record<string, keyof typeof values> = {
    '--rounds': 'rounds',
    '--concurrency': 'concurrency',
    '--idle-seconds': 'idleSeconds',
    '--edits': 'edits',
  };
  const positive = (flag: string, text: string): number => {
    const n = Number(text);
    if (!Number.isInteger(n) || n < 1) throw new Error(`${flag} must be a positive integer`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const raw = argv[i] as string;
    if (raw === '--') continue;
    const eq = raw.indexOf('=');
    const flag = eq > 0 ? raw.slice(0, eq) : raw;
    const inline = eq > 0 ? raw.slice(eq + 1) : undefined;
    const value = (): string => {
      const v = inline ?? argv[++i];
      if (v == null) throw new Error(`${flag} needs a value`);
      return v;
    };
    const key = numeric[flag];
    if (key != null) {
      const n = positive(flag, value());
      if (key === 'idleSeconds' && n % 30 !== 0) {
        throw new Error('--idle-seconds must be a multiple of 30 (the resync period)');
      }
      values[key] = n;
    } else if (flag === '--size')
      sizes = value()
        .split(',')
        .map((s) => positive(flag, s.trim()));
    else if (flag === '--replicas')
      replicas = value()
        .split(',')
        .map((s) => positive(flag, s.trim()));
    else if (flag === '--systems') {
      const list = value()
        .split(',')
        .map((s) => s.trim());
      const unknown = list.filter((s) => !(ALL_SYSTEMS as readonly string[]).includes(s));
      if (unknown.length > 0)
        throw new Error(`--systems: unknown ${unknown.join(', ')} (known: ${ALL_SYSTEMS.join(', ')})`);
      systems = ALL_SYSTEMS.filter((s) => list.includes(s));
    } else if (flag === '--no-peer') peer = false;
    else if (flag === '--docs') docs = true;
    else if (flag === '--cpu-prof') cpuProfileDir = value();
    else if (flag === '--operator-arg') {
      // The value is itself a flag, so only the next argument form is read (`--operator-arg=--x` too).
      const v = inline ?? argv[++i];
      if (v == null || !v.startsWith('--'))
        throw new Error('--operator-arg needs an ork run flag, e.g. --resync-skip-recent=false');
      operatorArgs.push(v);
    } else if (flag === '--docs-from')
      docsFrom = value()
        .split(',')
        .map((s) => s.trim());
    else if (flag === '--out') out = value();
    else if (flag === '--help' || flag === '-h') help = true;
    else throw new Error(`unknown option ${raw}\n${BENCH_USAGE}`);
  }
  if (!peer) systems = systems.filter((s) => s !== SystemId.Kro && s !== SystemId.KroDefault);
  return { ...values, sizes, replicas, systems, out, docs, docsFrom, cpuProfileDir, operatorArgs, help };
}

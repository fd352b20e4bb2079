/**
 * parseBenchArgs reads the command line of `pnpm bench`.
 */

/** BenchArgs are the benchmark's settings. */
export interface BenchArgs {
  /** CRs per system (`--size`, 100 or 1000; other positive numbers work for development). */
  readonly size: number;
  /** CRs reconciled (and created) at the same time (`--concurrency`). Default 8. */
  readonly concurrency: number;
  /** Idle window in seconds (`--idle-seconds`), a multiple of the 30 s resync period. Default 60. */
  readonly idleSeconds: number;
  /** One-field edits for writes and latency (`--edits`). Default 100. */
  readonly edits: number;
  /** Skip building and running kro (`--no-peer`). */
  readonly peer: boolean;
  /** Where to write the JSON (`--out`); default `<repo>/bench/results/latest.json`. */
  readonly out: string | undefined;
  readonly help: boolean;
}

/** BENCH_USAGE is the `--help` text. */
export const BENCH_USAGE = `Usage: pnpm bench [-- options]
  --size N           CRs per system: 100 (default) or 1000
  --concurrency N    CRs created and reconciled at the same time (default 8)
  --idle-seconds N   idle window for idle requests and no-op resyncs, a multiple of 30 (default 60)
  --edits N          one-field edits for writes per change and latency (default 100)
  --no-peer          do not build or run kro
  --out FILE         JSON output (default bench/results/latest.json at the repository root)`;

/** parseBenchArgs parses `argv` (without node and script); throws on unknown or bad options. */
export function parseBenchArgs(argv: readonly string[]): BenchArgs {
  const values: { size: number; concurrency: number; idleSeconds: number; edits: number } = {
    size: 100,
    concurrency: 8,
    idleSeconds: 60,
    edits: 100,
  };
  let peer = true;
  let out: string | undefined;
  let help = false;
  const numeric: Record<string, keyof typeof values> = {
    '--size': 'size',
    '--concurrency': 'concurrency',
    '--idle-seconds': 'idleSeconds',
    '--edits': 'edits',
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
      const n = Number(value());
      if (!Number.isInteger(n) || n < 1) throw new Error(`${flag} must be a positive integer`);
      if (key === 'idleSeconds' && n % 30 !== 0) {
        throw new Error('--idle-seconds must be a multiple of 30 (the resync period)');
      }
      values[key] = n;
    } else if (flag === '--no-peer') peer = false;
    else if (flag === '--out') out = value();
    else if (flag === '--help' || flag === '-h') help = true;
    else throw new Error(`unknown option ${raw}\n${BENCH_USAGE}`);
  }
  return { ...values, peer, out, help };
}

/**
 * The chaos results file (`docs/chaos-results.json`): what the last run of each scenario file
 * reported — every test with its outcome, every `[chaos]` figure line — written by
 * {@link ChaosResultsReporter} and rendered into docs/chaos.md by `chaos-report`.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { UserConsoleLog } from 'vitest';
import type { Reporter, TestModule } from 'vitest/node';

/** FigureLine is one parsed `[chaos] <scenario>: <name> = <value> [<unit>] [(asserted)]` line. */
export interface FigureLine {
  readonly scenario: string;
  readonly name: string;
  readonly value: number;
  readonly unit: string;
  /** The test asserts this exact value (a claim the docs make), not only reports it. */
  readonly asserted: boolean;
}

/** TestOutcome is one test of a scenario file. */
export interface TestOutcome {
  readonly name: string;
  readonly state: 'passed' | 'failed' | 'skipped' | 'pending';
  readonly durationMs: number;
}

/** FileResults is the last run of one scenario file. */
export interface FileResults {
  readonly file: string;
  readonly ranAt: string;
  readonly tests: readonly TestOutcome[];
  readonly figures: readonly FigureLine[];
  /** Other `[chaos]` lines (verdicts), in order. */
  readonly notes: readonly string[];
}

/** ChaosResults is the whole results file, one entry per scenario file. */
export interface ChaosResults {
  readonly version: 1;
  readonly files: Readonly<Record<string, FileResults>>;
}

const FIGURE = /^\[chaos\] ([^:]+): (.+) = (-?[\d.]+(?:e[+-]?\d+)?)(?: ([^(]\S*))?( \(asserted\))?$/;

/** parseFigureLine parses one figure line, or returns undefined for any other text. */
function parseFigureLine(line: string): FigureLine | undefined {
  const match = FIGURE.exec(line.trim());
  if (match == null) return undefined;
  const [, scenario = '', name = '', value = '', unit = '', asserted] = match;
  return { scenario, name, value: Number(value), unit, asserted: asserted != null };
}

/** readResults reads a results file; a missing file is an empty one. */
export function readResults(path: string): ChaosResults {
  if (!existsSync(path)) return { version: 1, files: {} };
  return JSON.parse(readFileSync(path, 'utf8')) as ChaosResults;
}

/** mergeResults replaces the entries of the files that ran and keeps the others. */
export function mergeResults(previous: ChaosResults, ran: readonly FileResults[]): ChaosResults {
  const files: Record<string, FileResults> = { ...previous.files };
  for (const file of ran) files[file.file] = file;
  const sorted = Object.fromEntries(Object.entries(files).sort(([a], [b]) => a.localeCompare(b)));
  return { version: 1, files: sorted };
}

/** ChaosResultsReporterOptions configures the reporter. */
export interface ChaosResultsReporterOptions {
  /** The results file. */
  readonly path: string;
  /** Source of the run time. Default `() => new Date()`. */
  readonly now?: () => Date;
}

/**
 * ChaosResultsReporter collects the `[chaos]` lines every test prints and the outcome of every
 * test, and at the end of the run merges them into the results file (per scenario file).
 */
export class ChaosResultsReporter implements Reporter {
  readonly #path: string;
  readonly #now: () => Date;
  readonly #logs: UserConsoleLog[] = [];

  constructor(options: ChaosResultsReporterOptions) {
    this.#path = options.path;
    this.#now = options.now ?? (() => new Date());
  }

  onUserConsoleLog(log: UserConsoleLog): void {
    if (log.content.includes('[chaos]')) this.#logs.push(log);
  }

  onTestRunEnd(testModules: readonly TestModule[]): void {
    const ran = testModules.map((module) => this.#fileResults(module));
    if (ran.length === 0) return;
    const merged = mergeResults(readResults(this.#path), ran);
    writeFileSync(this.#path, `${JSON.stringify(merged, null, 2)}\n`);
  }

  #fileResults(module: TestModule): FileResults {
    const ids = new Set<string>([module.id]);
    for (const suite of module.children.allSuites()) ids.add(suite.id);
    const tests: TestOutcome[] = [];
    for (const test of module.children.allTests()) {
      ids.add(test.id);
      tests.push({
        name: test.fullName,
        state: test.result().state,
        durationMs: Math.round(test.diagnostic()?.duration ?? 0),
      });
    }
    const figures: FigureLine[] = [];
    const notes: string[] = [];
    for (const log of this.#logs) {
      if (log.taskId == null || !ids.has(log.taskId)) continue;
      for (const line of log.content.split('\n')) {
        if (!line.startsWith('[chaos]')) continue;
        const figure = parseFigureLine(line);
        if (figure == null) notes.push(line.trim());
        else figures.push(figure);
      }
    }
    return {
      file: `test/${basename(module.moduleId)}`,
      ranAt: this.#now().toISOString(),
      tests,
      figures,
      notes,
    };
  }
}

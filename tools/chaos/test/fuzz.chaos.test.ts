/**
 * 10,000 fuzzed Katalogs and CRs through `ork validate --strict` and `ork render`, in-process
 * (`main(argv, io)` of @orkestra/operator): every input must give a result or a clear error — no
 * exception out of `main`, no other exit code, no silent failure, no `InternalError`, no JavaScript
 * runtime error text (crashes), and no value printed as `[object Object]` (unclear errors). The inputs come from a fixed fast-check seed, so a failure names the index
 * that reproduces it (`fc.sample(fuzzInputArb(examples), { seed, numRuns })[index]`).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { CAUGHT_ERROR_CHANNEL, main } from '@orkestra/operator';
import type { CaughtError } from '@orkestra/operator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportClaim, reportFigure } from '../src/figures.js';
import { fuzzInputArb, readExamples } from '../src/fuzz-inputs.js';
import { verdictOf } from '../src/fuzz-verdict.js';
import type { OrkOutcome } from '../src/fuzz-verdict.js';

const SCENARIO = 'fuzz';
const SEED = Number(process.env['ORKESTRA_CHAOS_FUZZ_SEED'] ?? 20_251_130);
const RUNS = Number(process.env['ORKESTRA_CHAOS_FUZZ_RUNS'] ?? 10_000);
const NOW = '2025-01-01T00:00:00Z';

const dir = mkdtempSync(join(tmpdir(), 'orkestra-chaos-fuzz-'));
/** Errors `ork` caught during the current run (class and stack, not just the printed message). */
let caught: CaughtError[] = [];
const onCaught = (message: unknown): void => {
  caught.push(message as CaughtError);
};
beforeAll(() => subscribe(CAUGHT_ERROR_CHANNEL, onCaught));
afterAll(() => {
  unsubscribe(CAUGHT_ERROR_CHANNEL, onCaught);
  rmSync(dir, { recursive: true, force: true });
});

/** A scenario for `ork simulate`: create the fuzzed CR, then delete it (runtime.md §10.2). */
const SCENARIO_TEXT = `steps:
  - name: create
    apply: {cr: cr.yaml}
  - name: delete
    delete: true
`;

/** signatureOf groups failures: the message without file names, quoted text and numbers. */
function signatureOf(command: string, why: string): string {
  const text = why
    .replace(/^(runtime error: )?(error: )?(cr|katalog)\.yaml(:\d+:\d+)?: /, '$1')
    .replace(/serves .*$/, 'serves …')
    .replace(/^\S+: unknown key/, 'unknown key')
    .replace(/[\d]+/g, 'N')
    .slice(0, 90);
  return `${command}: ${text}`;
}

/** Failure is one failing input kept for the report. */
interface Failure {
  readonly index: number;
  readonly kind: 'crash' | 'unclear';
  readonly signature: string;
  readonly line: string;
}

async function ork(argv: readonly string[]): Promise<OrkOutcome> {
  let stdout = '';
  let stderr = '';
  caught = [];
  try {
    const code = await main(argv, {
      stdout: { write: (chunk: string) => (stdout += chunk) },
      stderr: { write: (chunk: string) => (stderr += chunk) },
      env: {},
      cwd: dir,
    });
    return { code, stdout, stderr, caught };
  } catch (error) {
    return { code: -1, stdout, stderr, thrown: error, caught };
  }
}

describe('fuzzed Katalogs and CR specs through validate and render', () => {
  it(`gives a result or a clear error for each of ${RUNS} inputs (seed ${SEED})`, async () => {
    const failuresDir = join(tmpdir(), `orkestra-chaos-fuzz-failures-${SEED}`);
    rmSync(failuresDir, { recursive: true, force: true });
    const examples = readExamples(join(import.meta.dirname, '../../../examples'));
    const inputs = fc.sample(fuzzInputArb(examples), { seed: SEED, numRuns: RUNS });
    const failures: Failure[] = [];
    const counts = {
      validateOk: 0,
      validateError: 0,
      renderOk: 0,
      renderError: 0,
      simulateOk: 0,
      simulateError: 0,
    };
    writeFileSync(join(dir, 'scenario.yaml'), SCENARIO_TEXT);
    let slowestMs = 0;
    const started = performance.now();
    for (const [index, input] of inputs.entries()) {
      writeFileSync(join(dir, 'katalog.yaml'), input.katalogText);
      writeFileSync(join(dir, 'cr.yaml'), input.crText);
      const t = performance.now();
      const validated = await ork(['validate', 'katalog.yaml', '--strict']);
      const rendered = await ork(['render', 'katalog.yaml', '--cr', 'cr.yaml', '--now', NOW]);
      const simulated = await ork(['simulate', 'katalog.yaml', '--scenario', 'scenario.yaml', '--now', NOW]);
      slowestMs = Math.max(slowestMs, performance.now() - t);
      counts[validated.code === 0 ? 'validateOk' : 'validateError']++;
      counts[rendered.code === 0 ? 'renderOk' : 'renderError']++;
      counts[simulated.code === 0 ? 'simulateOk' : 'simulateError']++;
      for (const [command, outcome] of [
        ['validate', validated],
        ['render', rendered],
        ['simulate', simulated],
      ] as const) {
        // A scenario error (exit 2) is about the scenario file, which is fixed here: not a crash.
        if (command === 'simulate' && outcome.code === 2 && outcome.caught?.length === 0) continue;
        const verdict = verdictOf(outcome);
        if (verdict == null) continue;
        const signature = signatureOf(command, verdict.why);
        if (!failures.some((f) => f.signature === signature)) {
          // Keep the first input of each kind of failure, to reproduce it by hand.
          const keep = join(failuresDir, String(index));
          mkdirSync(keep, { recursive: true });
          writeFileSync(join(keep, 'katalog.yaml'), input.katalogText);
          writeFileSync(join(keep, 'cr.yaml'), input.crText);
        }
        failures.push({
          index,
          kind: verdict.kind,
          signature,
          line: `#${index} (${input.origin}) ${command}: ${verdict.why}`,
        });
      }
    }
    const totalMs = performance.now() - started;

    reportFigure(SCENARIO, 'inputs', inputs.length);
    reportFigure(SCENARIO, 'seed', SEED);
    reportFigure(SCENARIO, 'validate: valid', counts.validateOk);
    reportFigure(SCENARIO, 'validate: clear error', counts.validateError);
    reportFigure(SCENARIO, 'render: result', counts.renderOk);
    reportFigure(SCENARIO, 'render: clear error', counts.renderError);
    reportFigure(SCENARIO, 'simulate: ran', counts.simulateOk);
    reportFigure(SCENARIO, 'simulate: clear error', counts.simulateError);
    const crashes = failures.filter((f) => f.kind === 'crash');
    const unclear = failures.filter((f) => f.kind === 'unclear');
    reportClaim(SCENARIO, 'crashes', crashes.length);
    reportClaim(SCENARIO, 'unclear errors', unclear.length);
    reportFigure(SCENARIO, 'total time', Math.round(totalMs), 'ms');
    reportFigure(SCENARIO, 'mean per input (validate + render + simulate)', totalMs / inputs.length, 'ms');
    reportFigure(SCENARIO, 'slowest input', Math.round(slowestMs), 'ms');
    // One line per kind of failure: count, kind, first input (kept under failuresDir/<index>/).
    const kinds = new Map<string, Failure[]>();
    for (const f of failures) kinds.set(f.signature, [...(kinds.get(f.signature) ?? []), f]);
    const summary = [...kinds.entries()].map(
      ([signature, list]) =>
        `${list.length}× ${list[0]?.kind ?? ''} ${signature} (first: #${list[0]?.index ?? 0})`,
    );
    if (summary.length > 0) {
      console.log(`failures by kind (first inputs kept in ${failuresDir}):\n${summary.join('\n')}`);
      console.log(`examples:\n${[...kinds.values()].map((list) => list[0]?.line ?? '').join('\n')}`);
    }
    expect(inputs).toHaveLength(RUNS);
    expect(summary).toEqual([]);
  });
});

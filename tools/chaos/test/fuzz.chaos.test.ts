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
import { parse as parseYaml } from 'yaml';
import { createKatalogRuntime } from '@orkestra/reconciler';
import { loadKatalog } from '@orkestra/types';
import type { Katalog } from '@orkestra/types';
import { useControlPlane } from '@orkestra/testenv/vitest';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { CAUGHT_ERROR_CHANNEL, main } from '@orkestra/operator';
import type { CaughtError } from '@orkestra/operator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureLogger } from '../src/capture-logger.js';
import { crClient, installCrd, readyOf, uniqueSuffix } from '../src/custom-resources.js';
import { reportClaim, reportFigure } from '../src/figures.js';
import { waitFor } from '../src/wait-for.js';
import { fuzzInputArb, readExamples } from '../src/fuzz-inputs.js';
import { ENGINE_ERRORS, verdictOf } from '../src/fuzz-verdict.js';
import type { OrkOutcome } from '../src/fuzz-verdict.js';

const SCENARIO = 'fuzz';
const SEED = Number(process.env['ORKESTRA_CHAOS_FUZZ_SEED'] ?? 20_251_130);
const RUNS = Number(process.env['ORKESTRA_CHAOS_FUZZ_RUNS'] ?? 10_000);
const NOW = '2025-01-01T00:00:00Z';
/** Fuzzed inputs also run through the real runtime's CR path (a reconcile against the control plane). */
const RUNTIME_RUNS = Number(process.env['ORKESTRA_CHAOS_FUZZ_RUNTIME_RUNS'] ?? 40);
const env = useControlPlane();

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
  it('gives a result or a clear error for every input (ORKESTRA_CHAOS_FUZZ_RUNS, default 10,000)', async () => {
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

/** regrouped returns a copy of a Katalog whose CRD entries serve a group no other input uses. */
function regrouped(katalog: Katalog, group: string): Katalog {
  const copy = structuredClone(katalog) as {
    spec: { crds: Record<string, { apiTypes: { group: string } }> };
  };
  for (const entry of Object.values(copy.spec.crds)) entry.apiTypes.group = group;
  return copy as unknown as Katalog;
}

const ENGINE_NAMES: ReadonlySet<string> = new Set(ENGINE_ERRORS.map((cls) => cls.name));

describe('fuzzed Katalogs and CRs through the runtime', () => {
  it('reconciles fuzzed inputs without an uncaught engine error or InternalError (ORKESTRA_CHAOS_FUZZ_RUNTIME_RUNS, default 40)', async () => {
    const examples = readExamples(join(import.meta.dirname, '../../../examples'));
    const inputs = fc.sample(fuzzInputArb(examples), { seed: SEED + 1, numRuns: RUNTIME_RUNS * 20 });
    const crashes: string[] = [];
    const outcomes = { ready: 0, notReady: 0, noCondition: 0, rejected: 0, skipped: 0 };
    let ran = 0;
    const started = performance.now();
    for (const [index, input] of inputs.entries()) {
      if (ran >= RUNTIME_RUNS) break;
      const loaded = loadKatalog({ text: input.katalogText });
      let cr: { kind?: unknown; metadata?: { name?: unknown }; spec?: unknown } | undefined;
      try {
        cr = parseYaml(input.crText) as typeof cr;
      } catch {
        cr = undefined;
      }
      const entry = loaded.ok
        ? Object.values(loaded.katalog.spec.crds).find((e) => e.enabled && e.apiTypes.kind === cr?.kind)
        : undefined;
      const spec = cr?.spec;
      if (!loaded.ok || entry == null || spec == null || typeof spec !== 'object' || Array.isArray(spec)) {
        outcomes.skipped++;
        continue;
      }
      ran++;
      const group = `fz${index}x${uniqueSuffix()}.example.com`;
      const katalog = regrouped(loaded.katalog, group);
      const api = { ...entry.apiTypes, group };
      const removeCrd = await installCrd(env.kubeConfig, { ...api, namespaced: entry.namespaced });
      const log = captureLogger({ katalogName: `fuzz-${index}` });
      const where = `#${index} (${input.origin})`;
      let runtime: ReturnType<typeof createKatalogRuntime> | undefined;
      try {
        runtime = createKatalogRuntime({
          katalog,
          kubeConfig: env.kubeConfig,
          logger: log.logger,
          options: { namespace: env.namespace, reconcileTimeoutMs: 10_000 },
        });
        await runtime.start();
        const crs = crClient(env.kubeConfig, api);
        const name = `fuzz-${index}`;
        try {
          await crs.create(entry.namespaced ? env.namespace : '', name, spec as Record<string, unknown>);
        } catch {
          outcomes.rejected++; // the API server refused the object: nothing to reconcile
          continue;
        }
        try {
          await waitFor(
            'a Ready condition',
            async () => readyOf(await crs.get(entry.namespaced ? env.namespace : '', name)) != null,
            {
              timeoutMs: 15_000,
              intervalMs: 100,
            },
          );
          const ready = readyOf(await crs.get(entry.namespaced ? env.namespace : '', name));
          if (ready?.reason === 'InternalError')
            crashes.push(`${where}: Ready=False InternalError: ${ready.message ?? ''}`);
          outcomes[ready?.status === 'True' ? 'ready' : 'notReady']++;
        } catch {
          outcomes.noCondition++;
        }
      } catch (error) {
        if (error instanceof Error && ENGINE_ERRORS.some((cls) => error instanceof cls))
          crashes.push(`${where}: ${error.name} from the runtime: ${error.message}`);
      } finally {
        await runtime?.stop({ timeoutMs: 5000 });
        await removeCrd();
      }
      // By class: any logged error of an engine class is a crash.
      for (const line of log.lines) {
        const parsed = JSON.parse(line) as { err?: { type?: string; message?: string }; msg?: string };
        if (parsed.err?.type != null && ENGINE_NAMES.has(parsed.err.type))
          crashes.push(
            `${where}: logged ${parsed.err.type}: ${parsed.err.message ?? ''} (${parsed.msg ?? ''})`,
          );
      }
    }
    reportFigure(SCENARIO, 'runtime: inputs reconciled', ran);
    reportFigure(SCENARIO, 'runtime: Ready=True', outcomes.ready);
    reportFigure(SCENARIO, 'runtime: Ready=False (a clear reason)', outcomes.notReady);
    reportFigure(SCENARIO, 'runtime: no Ready condition within 15 s', outcomes.noCondition);
    reportFigure(SCENARIO, 'runtime: CR refused by the API server', outcomes.rejected);
    reportFigure(SCENARIO, 'runtime: total time', Math.round(performance.now() - started), 'ms');
    reportClaim(SCENARIO, 'runtime: crashes (engine errors, InternalError)', crashes.length);
    expect(ran).toBe(RUNTIME_RUNS);
    expect(crashes).toEqual([]);
  });
});

/**
 * The simulator tests' driver: a scenario's text parsed and each of its steps run by one
 * Simulator over the Katalog, at a fixed clock.
 */
import type { Katalog } from '@orkestra/types';
import { expect } from 'vitest';
import { checkExpectations } from '../src/offline/simulate/expectations.js';
import { parseScenario } from '../src/offline/simulate/scenario.js';
import { Simulator } from '../src/offline/simulate/simulator.js';
import type { StepReport } from '../src/offline/simulate/simulator.js';

/** SIMULATED_NOW is the simulator's clock in these tests. */
export const SIMULATED_NOW = new Date('2026-01-01T00:00:00Z');

/** simulate runs every step of `scenario` (YAML text) against `katalog` and returns their reports. */
export async function simulate(katalog: Katalog, scenario: string): Promise<StepReport[]> {
  const parsed = parseScenario(scenario, { file: 'scenario.yaml', baseDir: '/nonexistent', katalog });
  const simulator = new Simulator({ katalog, now: SIMULATED_NOW });
  const reports: StepReport[] = [];
  for (const step of parsed.steps) reports.push(await simulator.run(step));
  return reports;
}

/** SimulateRolloutOptions: the Katalog the scenario starts from and how its `katalog:` steps load theirs. */
export interface SimulateRolloutOptions {
  /** The first Katalog, loaded as `v1.yaml`. */
  readonly from: Katalog;
  /** The Katalog a `katalog: <source>` step names. */
  readonly load: (source: string) => Katalog;
  readonly scenario: string;
}

/**
 * simulateRollout runs `scenario` with revisions (`ork simulate --revisions`, docs/reference/runtime.md
 * §24) and asserts that every step's expectations hold; returns the steps' reports.
 */
export async function simulateRollout(o: SimulateRolloutOptions): Promise<StepReport[]> {
  const parsed = parseScenario(o.scenario, {
    file: 'scenario.yaml',
    baseDir: '/nonexistent',
    loadKatalog: (source) => o.load(source),
    katalog: o.from,
  });
  const simulator = new Simulator({
    katalog: o.from,
    now: SIMULATED_NOW,
    katalogSource: 'v1.yaml',
    revisions: true,
  });
  const reports: StepReport[] = [];
  for (const step of parsed.steps) {
    const report = await simulator.run(step);
    expect(checkExpectations(report)).toEqual([]);
    reports.push(report);
  }
  return reports;
}

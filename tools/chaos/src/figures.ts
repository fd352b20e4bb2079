/**
 * Figures measured by the chaos scenarios. Each figure is printed as one
 * `[chaos] <scenario>: <name> = <value> <unit>` line (` (asserted)` appended for claims); the
 * results reporter collects them into docs/chaos-results.json, from which docs/chaos.md is generated.
 */

/** Figure is one measured value of a scenario. */
export interface Figure {
  readonly scenario: string;
  readonly name: string;
  readonly value: number;
  readonly unit: string;
  /** The test asserts this exact value: a claim docs/chaos.md makes and CI checks. */
  readonly asserted?: boolean;
}

/** formatFigure renders a figure as the line {@link reportFigure} prints. */
function formatFigure(figure: Figure): string {
  const value = Number.isInteger(figure.value) ? String(figure.value) : figure.value.toFixed(2);
  const unit = figure.unit === '' ? '' : ` ${figure.unit}`;
  return `[chaos] ${figure.scenario}: ${figure.name} = ${value}${unit}${figure.asserted === true ? ' (asserted)' : ''}`;
}

/** reportFigure prints a figure on stdout and records it. */
export function reportFigure(scenario: string, name: string, value: number, unit = ''): Figure {
  const figure = { scenario, name, value, unit };
  console.log(formatFigure(figure));
  return figure;
}

/**
 * reportClaim prints a figure the test asserts exactly (0 crashes, 0 regenerated Secrets, every
 * verb proven), marked ` (asserted)`: CI fails when a run's claims differ from docs/chaos.md.
 */
export function reportClaim(scenario: string, name: string, value: number, unit = ''): Figure {
  const figure = { scenario, name, value, unit, asserted: true };
  console.log(formatFigure(figure));
  return figure;
}

/** Quantiles summarizes samples: the median, the 99th percentile and the range. */
export interface Quantiles {
  readonly n: number;
  readonly min: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

/**
 * quantilesOf returns the nearest-rank p50 and p99 and the range of `samples` (at least one).
 *
 * @example
 * quantilesOf([3, 1, 2]); // { n: 3, min: 1, p50: 2, p99: 3, max: 3 }
 */
export function quantilesOf(samples: readonly number[]): Quantiles {
  if (samples.length === 0) throw new RangeError('quantilesOf: no samples');
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = (q: number): number => sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
  return {
    n: sorted.length,
    min: sorted[0] ?? Number.NaN,
    p50: rank(0.5),
    p99: rank(0.99),
    max: sorted[sorted.length - 1] ?? Number.NaN,
  };
}

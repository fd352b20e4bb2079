/**
 * Figures measured by the chaos scenarios. Tests assert correctness only; each figure is printed
 * as one `[chaos] <scenario>: <name> = <value> <unit>` line so a run's log is
 * the report that docs/chaos.md quotes.
 */

/** Figure is one measured value of a scenario. */
export interface Figure {
  readonly scenario: string;
  readonly name: string;
  readonly value: number;
  readonly unit: string;
}

/** formatFigure renders a figure as the line {@link reportFigure} prints. */
function formatFigure(figure: Figure): string {
  const value = Number.isInteger(figure.value) ? String(figure.value) : figure.value.toFixed(2);
  return `[chaos] ${figure.scenario}: ${figure.name} = ${value}${figure.unit === '' ? '' : ` ${figure.unit}`}`;
}

/** reportFigure prints a figure on stdout and returns it. */
export function reportFigure(scenario: string, name: string, value: number, unit = ''): Figure {
  const figure = { scenario, name, value, unit };
  console.log(formatFigure(figure));
  return figure;
}

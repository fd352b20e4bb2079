import { readFileSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { formatIssue, loadKatalogFile } from '../katalog-file.js';
import { checkExpectations } from '../offline/simulate/expectations.js';
import { formatStepReport } from '../offline/simulate/format-report.js';
import { ScenarioError, formatPosition, parseScenario } from '../offline/simulate/scenario.js';
import type { Scenario } from '../offline/simulate/scenario.js';
import { Simulator } from '../offline/simulate/simulator.js';
import { hookRoots } from '@orkestra/reconciler/offline';
import type { CliIo, Command } from './command.js';
import { ExitCode, UsageError, parseCommandArgs } from './command.js';

/** How a scripted deletion-step failure is named, per hook with a deletion step (the hook table's, ADR 0116). */
const DELETION_FAILURE_FORMS = hookRoots
  .filter((root) => root.deletionStep != null)
  .map((root) =>
    root.results === 'one'
      ? root.key
      : root.results === 'by-provider'
        ? `${root.key}.<provider>.<declaration>`
        : `${root.key}.<name>`,
  )
  .join(', ');

const usage = `Usage: ork simulate <katalog> --scenario <file> [--now <time>]

Run a scenario offline against an in-memory cluster seen by one operator, and print per step the
creates, applies and prunes, the Ready condition, the status changes and, for a delete, the
deletion order. Nothing is sent to a cluster; hook and provider results come from the scenario.

A scenario is YAML: \`steps:\` (required) and \`now:\` (optional start time). Each step has a
\`name\` and at most one of
  apply: {cr: <file> | {<inline CR>}}   create the CR, or replace its spec (file paths are
                                        relative to the scenario file)
  update: {spec: {…}}                   JSON merge patch of the CR (a spec change bumps generation)
  observe: {Kind/name: {status: {…}}}   merge into a child's state; null = the child was deleted
  delete: true                          run the deletion path (docs/reference/runtime.md §10.2)
  katalog: <file>                       a new Katalog revision: a rollout per its spec.rollout
  rollout: pause|resume|undo            as ork rollout (docs/reference/runtime.md §24.4)
plus optional \`cr: <name>\` (the CR of update, delete and the CR expectations; default the last
applied), \`context:\` (new cross, git, external, docker, providers results; they stay until
changed, null removes one), \`deletionFailures:\` (deletion steps that fail from then on,
each with its message:
  ${DELETION_FAILURE_FORMS};
null clears one; the CR then stays with its finalizer and a later step retries its deletion
path), \`advance: <duration>\` (move the clock first) and \`expect:\` (applies, creates,
prunes, children, status, ready, reason, deletionOrder, notifications; rollout, revisions,
crs.<name> for rollouts). External calls of every protocol are answered from
\`context.external\`, each answer checked against its call's protocol result shape (a mismatch
is a scenario error at its line and column); the team notifications a step would send are
printed (nothing is sent).

Options:
  --scenario <file>  The scenario file.
  --now <time>       RFC 3339 start time (default: the scenario's now, else the current time).
  -h, --help         Show this help.

Exit codes: 0 every expectation held, 1 an expectation failed (details on stderr) or the Katalog
is invalid, 2 usage or scenario errors (file:line:col on stderr).`;

/** simulateCommand is `ork simulate`: run a scenario of events against an in-memory cluster and check its expectations. */
export const simulateCommand: Command = {
  name: 'simulate',
  summary: 'Run a scenario offline and print applies, prunes, status and deletion order',
  usage,
  async run(args: readonly string[], io: CliIo): Promise<number> {
    const parsed = parseCommandArgs(args, { scenario: { type: 'string' }, now: { type: 'string' } });
    if (parsed.help) {
      io.stdout.write(`${usage}\n`);
      return ExitCode.Ok;
    }
    const [file, ...extra] = parsed.positionals;
    if (file == null) throw new UsageError('missing <katalog>');
    if (extra.length > 0) throw new UsageError(`unexpected argument ${extra[0] ?? ''}`);
    const scenarioFile = parsed.values.scenario;
    if (scenarioFile == null) throw new UsageError('missing --scenario <file>');
    const cliNow = parsed.values.now == null ? undefined : new Date(parsed.values.now);
    if (cliNow != null && Number.isNaN(cliNow.getTime()))
      throw new UsageError(`--now ${parsed.values.now ?? ''} is not a valid time`);

    const loaded = loadKatalogFile(file, { cwd: io.cwd });
    if (!loaded.ok) {
      for (const error of loaded.errors) io.stderr.write(`${formatIssue(error)}\n`);
      return ExitCode.Failed;
    }
    const scenarioPath = resolve(io.cwd, scenarioFile);
    let scenario: Scenario;
    try {
      const text = readFileSync(scenarioPath, 'utf8');
      scenario = parseScenario(text, {
        file: scenarioFile,
        baseDir: dirname(scenarioPath),
        katalog: loaded.katalog,
      });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      io.stderr.write(
        `ork simulate: ${error instanceof ScenarioError ? message : `${scenarioFile}: ${message}`}\n`,
      );
      return ExitCode.Usage;
    }

    const simulator = new Simulator({
      katalog: loaded.katalog,
      now: cliNow ?? scenario.now ?? new Date(),
      katalogSource: basename(file),
      revisions: scenario.steps.some((step) => step.katalog != null),
    });
    let checked = 0;
    let failed = 0;
    for (const step of scenario.steps) {
      let report;
      try {
        report = await simulator.run(step);
      } catch (error) {
        if (!(error instanceof ScenarioError)) throw error;
        io.stderr.write(`ork simulate: ${error.message}\n`);
        return ExitCode.Usage;
      }
      const failures = checkExpectations(report);
      const failedHere = new Set(failures.map((f) => f.expectation)).size;
      checked += step.expect.length;
      failed += failedHere;
      let text = formatStepReport(report);
      if (step.expect.length > 0) {
        text +=
          failures.length === 0
            ? `  expect: ${step.expect.length} passed\n`
            : `  expect: FAILED ${failedHere} of ${step.expect.length}\n`;
      }
      io.stdout.write(`${text}\n`);
      for (const f of failures) {
        io.stderr.write(
          `${formatPosition(f.expectation.position)}: step ${step.number} (${step.name}): expect.${f.key}: expected ${JSON.stringify(f.expected)}, got ${JSON.stringify(f.actual)}\n`,
        );
      }
    }
    io.stdout.write(
      `${scenario.steps.length} steps, ${checked} expectations, ${failed === 0 ? 'all passed' : `${failed} failed`}\n`,
    );
    return failed === 0 ? ExitCode.Ok : ExitCode.Failed;
  },
};

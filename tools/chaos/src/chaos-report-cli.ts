/**
 * `pnpm chaos:report [write|check|compare <fresh.json> [soak]]`, for docs/chaos.md (from
 * docs/chaos-results.json) and docs/soak.md (from docs/soak-results.json):
 * - `write` regenerates the results section of both documents;
 * - `check` fails when either is not what `write` would produce (run by `pnpm lint`);
 * - `compare <fresh.json>... [soak]` fails when a fresh run (CI; several files are merged) disagrees with the documented
 *   results (chaos, or soak) on test outcomes or asserted figures.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { claimDifferences, renderResults, replaceSection } from './chaos-report.js';
import { mergeResults, readResults } from './chaos-results.js';
import type { ChaosResults } from './chaos-results.js';

const repoRoot = join(import.meta.dirname, '../../..');
/**
 * Each generated section: `optin` holds the opt-in runs CI does not make (a full-size shard-kill
 * run), so `compare` never expects them; `write` and `check` cover all three.
 */
const TARGETS = {
  chaos: { doc: 'docs/chaos.md', results: 'docs/chaos-results.json', marker: 'chaos-results' },
  soak: { doc: 'docs/soak.md', results: 'docs/soak-results.json', marker: 'chaos-results' },
  optin: { doc: 'docs/chaos.md', results: 'docs/chaos-optin-results.json', marker: 'chaos-optin-results' },
} as const;

/** generate returns a document as it is and as `write` would make it. */
function generate(target: { doc: string; results: string; marker: string }): {
  doc: string;
  generated: string;
} {
  const doc = readFileSync(join(repoRoot, target.doc), 'utf8');
  const results = readResults(join(repoRoot, target.results));
  return { doc, generated: replaceSection(doc, renderResults(results, target.results), target.marker) };
}

const [mode = 'write', ...rest] = process.argv.slice(2);
// `compare` takes one or more fresh files (CI runs the idle-bound file beside the others, each
// writing its own), then optionally `chaos` or `soak`.
const last = rest.at(-1);
const which = last === 'soak' || last === 'chaos' ? last : 'chaos';
const freshFiles = last === 'soak' || last === 'chaos' ? rest.slice(0, -1) : rest;
if (mode === 'write') {
  for (const target of Object.values(TARGETS)) {
    writeFileSync(join(repoRoot, target.doc), generate(target).generated);
    console.log(`chaos-report: wrote ${target.doc} from ${target.results}`);
  }
} else if (mode === 'check') {
  for (const target of Object.values(TARGETS)) {
    const { doc, generated } = generate(target);
    if (generated !== doc) {
      console.error(`chaos-report: ${target.doc} differs from ${target.results}; run \`pnpm chaos:report\``);
      process.exit(1);
    }
  }
} else if (mode === 'compare' && freshFiles.length > 0) {
  const documented = readResults(join(repoRoot, TARGETS[which].results));
  const fresh = freshFiles.reduce(
    (merged, file) => mergeResults(merged, Object.values(readResults(file).files)),
    { version: 1, files: {} } as ChaosResults,
  );
  const differences = claimDifferences(documented, fresh);
  if (differences.length > 0) {
    console.error(
      `chaos-report: the run disagrees with ${TARGETS[which].results}:\n${differences.join('\n')}`,
    );
    process.exit(1);
  }
  console.log(`chaos-report: the run agrees with the documented outcomes and asserted figures of ${which}`);
} else {
  console.error('usage: chaos-report [write|check|compare <fresh.json>... [chaos|soak]]');
  process.exit(2);
}

/**
 * `pnpm chaos:report [write|check|compare <fresh.json> [soak]]`, for docs/chaos.md (from
 * docs/chaos-results.json) and docs/soak.md (from docs/soak-results.json):
 * - `write` regenerates the results section of both documents;
 * - `check` fails when either is not what `write` would produce (run by `pnpm lint`);
 * - `compare <fresh.json> [soak]` fails when a fresh run (CI) disagrees with the documented
 *   results (chaos, or soak) on test outcomes or asserted figures.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { claimDifferences, renderResults, replaceSection } from './chaos-report.js';
import { readResults } from './chaos-results.js';

const repoRoot = join(import.meta.dirname, '../../..');
const docPath = join(repoRoot, 'docs/chaos.md');
const resultsPath = join(repoRoot, 'docs/chaos-results.json');

const [mode = 'write', fresh] = process.argv.slice(2);
const doc = readFileSync(docPath, 'utf8');
const documented = readResults(resultsPath);
const generated = replaceSection(doc, renderResults(documented));
if (mode === 'write') {
  writeFileSync(docPath, generated);
  console.log(`chaos-report: wrote docs/chaos.md from docs/chaos-results.json`);
} else if (mode === 'check') {
  if (generated !== doc) {
    console.error(
      'chaos-report: docs/chaos.md differs from docs/chaos-results.json; run `pnpm chaos:report`',
    );
    process.exit(1);
  }
} else if (mode === 'compare' && fresh != null) {
  const differences = claimDifferences(documented, readResults(fresh));
  if (differences.length > 0) {
    console.error(
      `chaos-report: the run disagrees with ${TARGETS[which].results}:\n${differences.join('\n')}`,
    );
    process.exit(1);
  }
  console.log('chaos-report: the run agrees with the documented outcomes and asserted figures');
} else {
  console.error('usage: chaos-report [write|check|compare <fresh.json> [chaos|soak]]');
  process.exit(2);
}

/**
 * `pnpm --filter @orkestra/bench admission-doc [write|check]`: the "Admission and conversion"
 * section of docs/performance.md, from the results files docs/performance/admission-<N>.json that
 * `admission --out` wrote (admission.ts). `write` puts the section in place (formatted as lint
 * checks it); `check` fails when the page's section is not what `write` would produce (run by
 * `pnpm lint`), so the figures on the page are those of the committed results.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  ADMISSION_RESULTS,
  admissionSection,
  isAdmissionDocument,
  replaceAdmissionSection,
} from './admission-summary.js';
import type { AdmissionDocument } from './admission-summary.js';

const repoRoot = resolve(fileURLToPath(new URL('../../../', import.meta.url)));
const page = join(repoRoot, 'docs', 'performance.md');
const resultsDir = join(repoRoot, 'docs', 'performance');

const documents: AdmissionDocument[] = readdirSync(resultsDir)
  .filter((name) => ADMISSION_RESULTS.test(name))
  .map((name) => {
    const value = JSON.parse(readFileSync(join(resultsDir, name), 'utf8')) as unknown;
    if (!isAdmissionDocument(value))
      throw new Error(`docs/performance/${name}: not an admission results file`);
    return value;
  });

/** formatted is the page as prettier writes it (argv, no shell). */
const formatted = (text: string): string =>
  execFileSync('pnpm', ['exec', 'prettier', '--stdin-filepath', page], {
    cwd: repoRoot,
    input: text,
    encoding: 'utf8',
  });

const [mode = 'write'] = process.argv.slice(2).filter((a) => a !== '--');
const current = readFileSync(page, 'utf8');
const generated = formatted(replaceAdmissionSection(current, admissionSection(documents)));
if (mode === 'write') {
  writeFileSync(page, generated);
  process.stdout.write(`admission-doc: wrote docs/performance.md from ${documents.length} results file(s)\n`);
} else if (mode === 'check') {
  if (generated !== current) {
    process.stderr.write(
      'admission-doc: the "Admission and conversion" section of docs/performance.md differs from docs/performance/admission-*.json; run `pnpm --filter @orkestra/bench admission-doc`\n',
    );
    process.exit(1);
  }
} else {
  process.stderr.write('usage: admission-doc [write|check]\n');
  process.exit(2);
}

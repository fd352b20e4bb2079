// Prints the slowest test files of a vitest JSON report (tools/test.sh writes one), so a slow CI
// phase names its files in the log. Usage: node tools/slowest-files.mjs <report.json> [count]
import { existsSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';

const [file, countText = '20'] = process.argv.slice(2);
if (file == null || !existsSync(file)) {
  console.error(`slowest-files: no report at ${file ?? '(none given)'}`);
  process.exit(0);
}
const report = JSON.parse(readFileSync(file, 'utf8'));
const files = (report.testResults ?? [])
  .map((r) => ({
    name: relative(process.cwd(), r.name),
    ms: Math.max(0, (r.endTime ?? 0) - (r.startTime ?? 0)),
    status: r.status,
  }))
  .sort((a, b) => b.ms - a.ms);
const total = files.reduce((n, f) => n + f.ms, 0);
console.log(
  `test files: ${files.length}; summed file time ${Math.round(total / 1000)} s (files run 2 at a time)`,
);
console.log(`slowest ${Math.min(Number(countText), files.length)}:`);
for (const f of files.slice(0, Number(countText))) {
  console.log(
    `${String(Math.round(f.ms / 1000)).padStart(6)} s  ${f.status === 'passed' ? ' ' : '!'} ${f.name}`,
  );
}

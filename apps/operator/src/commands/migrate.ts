import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { migrateKatalog } from '@orkestra/types';
import { formatIssue, loadKatalogText } from '../katalog-file.js';
import type { CliIo, Command } from './command.js';
import { ExitCode, UsageError, parseCommandArgs } from './command.js';

const usage = `Usage: ork migrate <katalog> [--write]

Rewrite a Katalog written for upstream Orkestra (apiVersion orkestra.orkspace.io/v1,
orkestra.konductor.io/v1Alpha or controller.orkestra.io/v1; the G1 \`reconciler:\`, G2 and G3
\`reconcile/runtime/emit\` layouts), or a Catalog of Inrun, upstream's newest name (apiVersion
inrun.dev/v1, kind Catalog), into the canonical form. Comments and key order are kept. Prints the canonical Katalog on stdout
and one line per change on stderr (file:line:col: path: what changed). Exits 1 when a key cannot
be mapped, or when the canonical form does not pass \`ork validate\` (its errors are printed
against the migrated text; --write then leaves the file as it was).

Options:
  --write     Write the canonical form back to the file instead of printing it.
  -h, --help  Show this help.`;

/** migrateCommand is \`ork migrate\`: print or write the canonical form of an upstream Katalog. */
export const migrateCommand: Command = {
  name: 'migrate',
  summary: 'Rewrite an upstream Katalog into the canonical form',
  usage,
  async run(args: readonly string[], io: CliIo): Promise<number> {
    const parsed = parseCommandArgs(args, { write: { type: 'boolean' } });
    if (parsed.help) {
      io.stdout.write(`${usage}\n`);
      return ExitCode.Ok;
    }
    const [file, ...extra] = parsed.positionals;
    if (file == null) throw new UsageError('missing <katalog>');
    if (extra.length > 0) throw new UsageError(`unexpected argument ${extra[0] ?? ''}`);
    const full = resolve(io.cwd, file);
    let text: string;
    try {
      text = readFileSync(full, 'utf8');
    } catch (error) {
      io.stderr.write(
        `${file}:1:1: cannot read file: ${error instanceof Error ? error.message : String(error)}\n`,
      );
      return ExitCode.Failed;
    }
    const result = migrateKatalog(text, { baseDir: dirname(full) });
    for (const change of result.changes)
      io.stderr.write(`${file}:${change.line}:${change.column}: ${change.path}: ${change.message}\n`);
    for (const problem of result.problems)
      io.stderr.write(`${file}:${problem.line}:${problem.column}: ${problem.path}: ${problem.message}\n`);
    if (result.problems.length > 0) return ExitCode.Failed;
    const summary =
      result.changes.length === 0
        ? `${file}: already canonical, nothing to change\n`
        : `${file}: ${result.generation ?? 'G2'} layout, ${result.changes.length} ${result.changes.length === 1 ? 'change' : 'changes'}${parsed.values.write === true ? ', written' : ''}\n`;
    // The canonical form must itself validate; a key passed through unmapped would otherwise
    // leave a migrated file that `ork validate` refuses while migrate reported success.
    const check = loadKatalogText(file, result.text, { cwd: io.cwd });
    if (!check.ok) {
      if (parsed.values.write !== true) io.stdout.write(result.text);
      for (const issue of check.errors) io.stderr.write(`${formatIssue(issue, 'after migration: ')}\n`);
      io.stderr.write(
        `${file}: the migrated Katalog does not validate (${check.errors.length} ${check.errors.length === 1 ? 'error' : 'errors'}, line numbers are those of the migrated text)${parsed.values.write === true ? '; not written' : ''}\n`,
      );
      return ExitCode.Failed;
    }
    if (parsed.values.write === true) {
      if (result.changes.length > 0) writeFileSync(full, result.text);
    } else io.stdout.write(result.text);
    io.stderr.write(summary);
    return ExitCode.Ok;
  },
};

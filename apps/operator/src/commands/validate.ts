import { formatIssue, loadKatalogFile } from '../katalog-file.js';
import { roleWildcardIssues } from '../generate/role-wildcards.js';
import { strictCheck } from '../offline/strict-check.js';
import { katalogSourceOf } from '@orkestra/types';
import {
  mechanismText,
  planAdmission,
  scopedVersions,
  unmadeAdmissionCalls,
  versionsText,
} from '../generate/admission.js';
import type { CliIo, Command } from './command.js';
import { ExitCode, UsageError, parseCommandArgs } from './command.js';

const usage = `Usage: ork validate <katalog> [--strict] [--allow-rbac-wildcards]

Load, compile and statically check a Katalog. Prints a one-line summary and exits 0 when it is
valid; otherwise prints one line per error on stderr (file:line:col: path: message) and exits 1.
A valid Katalog's validation and mutation rules get one line each after the summary, naming how
the API server applies the rule at admission (a CRD rule, a ValidatingAdmissionPolicy with Deny
or Warn, a schema default, or the operator's admission webhook for a rule CEL cannot express, with
the reason) or why it is checked at reconcile time only (docs/reference/katalog.md §12), and
whether the reconcile skips it (an admission-only rule, fires.reconcile: false). A call marked
fires.reconcile: false that no admission path makes is a warning: it is never made.

Options:
  --strict    Also check every template path against the CRD schemas and declarations
              (docs/reference/katalog.md §17.5): unknown spec/status fields, cross, external, providers,
              children and forEach names, and keys used where they are not visible.
  --allow-rbac-wildcards
              Accept a "*" or an escalate, bind or impersonate verb in the rules of
              every role the Katalog declares (\`roles\`, \`custom\` Roles and
              ClusterRoles) as a warning instead of an error, as an entry's
              \`allowEscalation: true\` does for that entry. ork generate rbac copies
              those rules into the operator's own ClusterRole, so the operator is
              granted them too.
  -h, --help  Show this help.`;

/** validateCommand is `ork validate`: load and compile a Katalog, and with --strict check every template path. */
export const validateCommand: Command = {
  name: 'validate',
  summary: 'Load, compile and statically check a Katalog',
  usage,
  async run(args: readonly string[], io: CliIo): Promise<number> {
    const parsed = parseCommandArgs(args, {
      strict: { type: 'boolean' },
      'allow-rbac-wildcards': { type: 'boolean' },
    });
    if (parsed.help) {
      io.stdout.write(`${usage}\n`);
      return ExitCode.Ok;
    }
    const [file, ...extra] = parsed.positionals;
    if (file == null) throw new UsageError('missing <katalog>');
    if (extra.length > 0) throw new UsageError(`unexpected argument ${extra[0] ?? ''}`);
    const result = loadKatalogFile(file, { cwd: io.cwd });
    for (const warning of result.warnings) io.stderr.write(`${formatIssue(warning, 'warning: ')}\n`);
    if (!result.ok) {
      for (const error of result.errors) io.stderr.write(`${formatIssue(error)}\n`);
      return ExitCode.Failed;
    }
    // Wildcards and escalate/bind/impersonate in role rules would reach the operator's own
    // ClusterRole: an error unless the entry sets allowEscalation (or the flag is given), then a warning.
    const allowAll = parsed.values['allow-rbac-wildcards'] === true;
    const privileged = roleWildcardIssues(result.file, result.text, result.katalog);
    const refused = privileged.filter((issue) => !issue.allowed && !allowAll);
    for (const warning of privileged.filter((issue) => issue.allowed || allowAll))
      io.stderr.write(`${formatIssue(warning, 'warning: ')}\n`);
    if (refused.length > 0) {
      for (const error of refused) io.stderr.write(`${formatIssue(error)}\n`);
      return ExitCode.Failed;
    }
    if (parsed.values.strict === true) {
      const checked = strictCheck(result.file, result.text, result.katalog);
      for (const warning of checked.warnings) io.stderr.write(`${formatIssue(warning, 'warning: ')}\n`);
      if (checked.errors.length > 0) {
        for (const error of checked.errors) io.stderr.write(`${formatIssue(error)}\n`);
        return ExitCode.Failed;
      }
    }
    const { metadata, spec } = result.katalog;
    const entries = Object.keys(spec.crds);
    const version = metadata.version === '' ? 'no version' : `version ${metadata.version}`;
    io.stdout.write(
      `${result.file}: Katalog ${metadata.name} (${version}) is valid${parsed.values.strict === true ? ' (strict)' : ''}: ${entries.length} ${entries.length === 1 ? 'entry' : 'entries'} (${entries.join(', ')})\n`,
    );
    // How each rule is applied at admission (ADR 0049), per version it is scoped to (ADR 0069).
    let nowhere = 0;
    for (const [name, entry] of Object.entries(spec.crds)) {
      for (const version of [entry.apiTypes.version, ...scopedVersions(entry)])
        for (const rule of planAdmission(entry, version).rules) {
          const text = mechanismText(entry, rule, version);
          if (version === entry.apiTypes.version || rule.mechanism !== 'reconcile-only') {
            io.stdout.write(`  admission: spec.crds.${name}.${rule.rule}: ${text}\n`);
            // Where requests at the other served versions meet it (ADR 0102).
            for (const judge of rule.atVersions ?? [])
              io.stdout.write(`    at ${versionsText(entry, judge)}\n`);
            continue;
          }
          // A rule scoped to another version that admission cannot judge is judged nowhere.
          const index = Number(/\[(\d+)\]$/.exec(rule.rule)?.[1] ?? -1);
          const node = entry.validation?.rules[index];
          const source = node == null ? undefined : katalogSourceOf(node);
          nowhere++;
          io.stderr.write(
            `${formatIssue({
              file: source?.file ?? result.file,
              line: source?.line ?? 1,
              column: source?.column ?? 1,
              path: `spec.crds.${name}.${rule.rule}.version`,
              message: text,
            })}\n`,
          );
        }
    }
    // An admission-only call no admission path makes is never made (ADR 0112): a warning.
    for (const [name, entry] of Object.entries(spec.crds))
      for (const call of entry.enabled ? unmadeAdmissionCalls(entry) : []) {
        const source = katalogSourceOf(call.node);
        io.stderr.write(
          `${formatIssue(
            {
              file: source?.file ?? result.file,
              line: source?.line ?? 1,
              column: source?.column ?? 1,
              path: `spec.crds.${name}.${call.path}`,
              message: call.message,
            },
            'warning: ',
          )}\n`,
        );
      }
    if (nowhere > 0) return ExitCode.Failed;
    const protection = spec.deletionProtection;
    if (protection != null) {
      const what = [protection.crds ? 'its CRDs' : '', protection.children ? 'its children' : '']
        .filter((w) => w !== '')
        .join(' and ');
      io.stdout.write(
        `  admission: spec.deletionProtection: ValidatingAdmissionPolicy refuses deleting ${what === '' ? 'nothing' : what} unless annotated orkestra.konductor.io/allow-delete=true\n`,
      );
    }
    return ExitCode.Ok;
  },
};

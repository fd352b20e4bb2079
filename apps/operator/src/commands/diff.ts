import { createKubeClient } from '@orkestra/registry';
import { reportCaughtError } from '../caught-error.js';
import { formatIssue, loadKatalogFile } from '../katalog-file.js';
import { diffKatalog } from '../offline/diff/katalog-diff.js';
import { formatJson, formatText } from '../offline/diff/format-diff.js';
import { readCluster, readExportDir } from '../offline/diff/snapshot.js';
import type { Snapshot } from '../offline/diff/snapshot.js';
import { loadKubeConfig } from '../process/kube-config.js';
import type { CliIo, Command } from './command.js';
import { UsageError, parseCommandArgs } from './command.js';

const usage = `Usage: ork diff <katalog> [--kubeconfig <file>] [-n <namespace>] [--from-dir <dir>] [-o text|json]

Show what a new Katalog would change in the cluster, without changing anything: for every live CR
of the kinds the Katalog declares, run one reconcile with the operator's own pipeline (as
ork render does) against the cluster's current objects, and print the children it would add,
change (the fields one server-side apply would change, of those the operator sets) and prune,
and the status fields that would change; then each CRD's storage and served versions against the
live CRD (a change shown before → after) and a pending storage migration. Only list and get
requests are sent.

Options:
  --kubeconfig <file>    Cluster to read. Default: KUBECONFIG, in-cluster, then ~/.kube/config.
  -n, --namespace <ns>   Only CRs in this namespace. Default: all namespaces.
  --from-dir <dir>       Read the objects from exported YAML/JSON files (kubectl get -o yaml,
                         one or many documents per file, Lists expanded) instead of a cluster.
  -o, --output <format>  text (default) or json.
  --now <time>           RFC 3339 time of the run (time conditions, now). Default: now.
  -h, --help             Show this help.

Exit code: 0 nothing would change, 1 something would change, 2 error. Secret values are
never printed. Hook results the diff cannot compute (git, external calls, docker) are assumed
as ork render assumes them (a note says so); providers answer as the CR's status recorded them.`;

/** DiffExit is `ork diff`'s exit codes, like diff(1). */
const DiffExit = { NoChanges: 0, Changes: 1, Error: 2 } as const;

/** diffCommand is `ork diff`: what a new Katalog would change in a cluster or an export, read-only. */
export const diffCommand: Command = {
  name: 'diff',
  summary: 'Show what a new Katalog would change in a live cluster (read-only)',
  usage,
  async run(args: readonly string[], io: CliIo): Promise<number> {
    const parsed = parseCommandArgs(args, {
      kubeconfig: { type: 'string' },
      namespace: { type: 'string', short: 'n' },
      'from-dir': { type: 'string' },
      output: { type: 'string', short: 'o' },
      now: { type: 'string' },
    });
    if (parsed.help) {
      io.stdout.write(`${usage}\n`);
      return DiffExit.NoChanges;
    }
    const [file, ...extra] = parsed.positionals;
    if (file == null) throw new UsageError('missing <katalog>');
    if (extra.length > 0) throw new UsageError(`unexpected argument ${extra[0] ?? ''}`);
    const output = parsed.values.output ?? 'text';
    if (output !== 'text' && output !== 'json') throw new UsageError(`-o ${output}: expected text or json`);
    const fromDir = parsed.values['from-dir'];
    if (fromDir != null && parsed.values.kubeconfig != null)
      throw new UsageError('--from-dir and --kubeconfig exclude each other');
    const now = parsed.values.now == null ? new Date() : new Date(parsed.values.now);
    if (Number.isNaN(now.getTime()))
      throw new UsageError(`--now ${parsed.values.now ?? ''} is not a valid time`);
    const namespace = parsed.values.namespace;

    const loaded = loadKatalogFile(file, { cwd: io.cwd });
    if (!loaded.ok) {
      for (const error of loaded.errors) io.stderr.write(`${formatIssue(error)}\n`);
      return DiffExit.Error;
    }
    try {
      let snapshot: Snapshot;
      if (fromDir != null) {
        snapshot = readExportDir({ dir: fromDir, cwd: io.cwd, katalog: loaded.katalog, namespace });
      } else {
        const { kubeConfig } = loadKubeConfig({
          ...(parsed.values.kubeconfig == null ? {} : { kubeconfig: parsed.values.kubeconfig }),
          env: io.env,
          cwd: io.cwd,
        });
        const client = createKubeClient({ kubeConfig });
        snapshot = await readCluster({ client, katalog: loaded.katalog, namespace });
      }
      const diff = await diffKatalog(loaded.katalog, snapshot, { now });
      io.stdout.write(output === 'json' ? formatJson(diff) : formatText(diff));
      for (const note of diff.notes) io.stderr.write(`note: ${note}\n`);
      for (const cr of diff.crs) {
        const ref = `${cr.ref.kind} ${cr.ref.namespace == null ? '' : `${cr.ref.namespace}/`}${cr.ref.name}`;
        for (const note of cr.notes) io.stderr.write(`note: ${ref}: ${note}\n`);
        const changes = cr.children.length + cr.status.length + cr.cr.length;
        if (changes > 0 && cr.ready.status !== 'True' && cr.ready.message !== '')
          io.stderr.write(
            `${ref}: after the change Ready=${cr.ready.status} ${cr.ready.reason}: ${cr.ready.message}\n`,
          );
      }
      return diff.changed ? DiffExit.Changes : DiffExit.NoChanges;
    } catch (error) {
      reportCaughtError(error, 'diff');
      io.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
      return DiffExit.Error;
    }
  },
};

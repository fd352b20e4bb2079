import { RolloutStore, control, rolloutObjectName } from '@orkestra/reconciler/rollout';
import type { RolloutCommand, RolloutState } from '@orkestra/reconciler/rollout';
import { ConflictError, createKubeClient } from '@orkestra/registry';
import type { KubeClient } from '@orkestra/registry';
import type { Katalog } from '@orkestra/types';
import { formatVersionView, readCrds, versionViews } from '../conversion/version-view.js';
import { loadKubeConfig } from '../process/kube-config.js';
import type { CliIo, Command } from './command.js';
import { ExitCode, UsageError, parseCommandArgs } from './command.js';

const usage = `Usage: ork rollout <status|pause|resume|undo> <katalog> [-n <namespace>] [--kubeconfig <file>]

Show or steer the rollout of a changed Katalog to its live CRs (docs/reference/runtime.md §24).
<katalog> is the Katalog's metadata.name; the rollout state is the ConfigMap
orkestra-<katalog>-rollout in the operator's namespace.

  status   the revisions, phase, step and why, how many CRs run each revision, and each
           CRD's storage and served versions (a pending storage migration too)
  pause    hold the rollout where it is (CRs keep the revision they have)
  resume   lift a pause; retry a failed or undone rollout at its step
  undo     return every CR to the stable revision

Options:
  -n, --namespace <ns>   The operator's namespace. Default: POD_NAMESPACE, else orkestra-system.
  --kubeconfig <file>    Cluster to use. Default: KUBECONFIG, in-cluster, then ~/.kube/config.
  -h, --help             Show this help.`;

const ACTIONS = ['status', 'pause', 'resume', 'undo'] as const;

function formatState(state: RolloutState): string[] {
  const paused = state.paused ? ' (paused)' : '';
  return [
    `revision ${state.target}${state.target === state.stable ? '' : ` (from ${state.stable})`}`,
    `  phase: ${state.phase}${paused}`,
    ...(state.phase === 'Complete' ? [] : [`  step: ${state.step === 0 ? 'canary' : `wave ${state.step}`}`]),
    `  message: ${state.message}`,
    ...(state.rolledBack.length === 0 ? [] : [`  rolled back: ${state.rolledBack.length} CRs`]),
  ];
}

/** countRevisions counts the live CRs of the Katalog's entries by `status.katalogRevision`. */
async function countRevisions(client: KubeClient, katalog: Katalog): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const entry of Object.values(katalog.spec.crds)) {
    if (entry.enabled === false) continue;
    const { group, version, kind } = entry.apiTypes;
    const list = await client.list({ apiVersion: `${group}/${version}`, kind });
    for (const cr of list.items) {
      const revision =
        ((cr['status'] ?? {}) as { katalogRevision?: string }).katalogRevision ?? 'not recorded';
      counts.set(revision, (counts.get(revision) ?? 0) + 1);
    }
  }
  return counts;
}

/** rolloutCommand is `ork rollout`: status, pause, resume and undo of a Katalog rollout. */
export const rolloutCommand: Command = {
  name: 'rollout',
  summary: 'Show, pause, resume or undo the rollout of a changed Katalog (live cluster)',
  usage,
  async run(args: readonly string[], io: CliIo): Promise<number> {
    const parsed = parseCommandArgs(args, {
      namespace: { type: 'string', short: 'n' },
      kubeconfig: { type: 'string' },
    });
    if (parsed.help) {
      io.stdout.write(`${usage}\n`);
      return ExitCode.Ok;
    }
    const [action, katalogName, ...extra] = parsed.positionals;
    if (action == null || !(ACTIONS as readonly string[]).includes(action))
      throw new UsageError(`expected one of ${ACTIONS.join(', ')}${action == null ? '' : `, got ${action}`}`);
    if (katalogName == null) throw new UsageError('missing <katalog>');
    if (extra.length > 0) throw new UsageError(`unexpected argument ${extra[0] ?? ''}`);
    const namespace = parsed.values.namespace ?? io.env['POD_NAMESPACE'] ?? 'orkestra-system';
    const kubeconfig = parsed.values.kubeconfig ?? io.env['KUBECONFIG'];
    try {
      const { kubeConfig } = loadKubeConfig({
        ...(kubeconfig == null || kubeconfig === '' ? {} : { kubeconfig }),
        env: io.env,
        cwd: io.cwd,
      });
      const client = createKubeClient({ kubeConfig, fieldManager: 'ork-rollout' });
      const store = new RolloutStore({ client, namespace, katalogName });
      // A write races the operator's ticks: re-read and retry on a conflict.
      for (let attempt = 0; ; attempt++) {
        const stored = await store.read();
        if (stored == null) {
          io.stderr.write(
            `ork rollout: no rollout state ${namespace}/${rolloutObjectName(katalogName)}: is the operator running with revisions?\n`,
          );
          return ExitCode.Failed;
        }
        if (action === 'status') {
          const lines = formatState(stored.state);
          const katalog = await store.loadRevision(stored.state.target);
          if (katalog != null) {
            for (const [revision, count] of await countRevisions(client, katalog))
              lines.push(`  CRs on ${revision}: ${count}`);
            for (const view of versionViews(katalog, await readCrds(client, katalog)))
              lines.push(`  ${formatVersionView(view)}`);
          }
          io.stdout.write(`${lines.join('\n')}\n`);
          return ExitCode.Ok;
        }
        const next = control(stored.state, action as RolloutCommand, Date.now());
        try {
          await store.write(next, stored.resourceVersion);
        } catch (error) {
          if (error instanceof ConflictError && attempt < 5) continue;
          throw error;
        }
        io.stdout.write(`${formatState(next).join('\n')}\n`);
        return ExitCode.Ok;
      }
    } catch (error) {
      io.stderr.write(`ork rollout: ${error instanceof Error ? error.message : String(error)}\n`);
      return ExitCode.Failed;
    }
  },
};

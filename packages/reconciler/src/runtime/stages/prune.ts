/**
 * The prune stage (docs/reference/runtime.md §9.6): children of the previous inventory or the
 * cache that the desired set no longer holds are deleted, only when their owner-uid label names
 * this CR (never by name alone). Which children are candidates is the pure `pruneCandidates`
 * (inventory.ts); this stage confirms ownership and deletes.
 */
import { NotFoundError } from '@orkestra/registry';
import type { KubeObject } from '@orkestra/registry';
import { ConditionReason, OrkestraLabel } from '@orkestra/types';
import type { DesiredSet } from '../desired-set.js';
import { runLimited } from '../run-limited.js';
import type { InventoryRecord } from '../status-writer.js';
import { toWriteError } from '../write-error.js';
import { pruneCandidates } from './inventory.js';
import { childWritten, formatChild } from './run-state.js';
import type { RunState, StageServices } from './run-state.js';

/** prune deletes the children to prune and returns the ids that are gone (pruned now or already absent). */
export async function prune(
  services: StageServices,
  cr: KubeObject,
  desired: DesiredSet,
  previous: readonly InventoryRecord[],
  state: RunState,
): Promise<Set<string>> {
  const { children, client, crd } = services;
  const pruned = new Set<string>();
  const uid = cr.metadata.uid ?? '';
  const candidates = pruneCandidates({ children, ownerUid: uid, desired, previous });
  const tasks: (() => Promise<void>)[] = [];
  for (const [id, candidate] of candidates) {
    if (!candidate.apply || !candidate.prune || candidate.job) continue;
    const cached = children.get(candidate.ref);
    if (cached == null && children.watches(candidate.ref)) {
      pruned.add(id); // already gone
      continue;
    }
    if (cached == null) {
      // A kind no longer watched: confirm ownership with one GET before deleting.
      try {
        const live = await client.get(candidate.ref);
        if (live.metadata.labels?.[OrkestraLabel.OwnerUid] !== uid) {
          pruned.add(id);
          continue;
        }
        if (live.metadata.uid != null) Object.assign(candidate, { uid: live.metadata.uid });
      } catch (error) {
        if (error instanceof NotFoundError) {
          pruned.add(id);
          continue;
        }
        throw toWriteError(error, crd.katalogPath, candidate.ref, ConditionReason.PruneFailed);
      }
    } else if (cached.metadata.labels?.[OrkestraLabel.OwnerUid] !== uid) {
      continue; // never by name alone
    }
    tasks.push(async () => {
      try {
        await client.delete(candidate.ref, {
          propagationPolicy: 'Background',
          ...(candidate.uid == null ? {} : { uid: candidate.uid }),
        });
        childWritten(services, state, candidate.ref.kind, 'prune');
        services.events.normal(cr, 'Pruned', `${formatChild(candidate.ref)} was pruned`);
      } catch (error) {
        if (!(error instanceof NotFoundError))
          throw toWriteError(error, crd.katalogPath, candidate.ref, ConditionReason.PruneFailed);
      }
      pruned.add(id);
    });
  }
  const results = await runLimited(tasks, services.maxWrites);
  for (const id of pruned) services.drift.forget(uid, id);
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed != null) throw failed.reason;
  return pruned;
}

import type { Katalog } from '@orkestra/types';
import { completeAt, startRollout } from './plan.js';
import type { RolloutState } from './plan.js';
import { katalogRevision } from './revision.js';
import type { RolloutStore } from './rollout-store.js';

/** PreparedRollout is where a Katalog the operator is about to run stands (docs/reference/runtime.md §24.1). */
export interface PreparedRollout {
  readonly revision: string;
  readonly state: RolloutState;
  readonly resourceVersion: string | undefined;
  /** The stable revision's Katalog while a rollout is under way. */
  readonly previous?: { readonly revision: string; readonly katalog: Katalog } | undefined;
}

/**
 * prepareRollout stores the Katalog as a revision and decides the rollout state, at start-up and
 * on every reload: no state yet → this revision is complete; the stored rollout's target is this
 * revision → it goes on where it stood (a restart); another target → a new rollout from the last
 * complete revision (a rollout superseded before it finished starts again from its stable
 * revision) following `spec.rollout`, all at once without it. When the stable revision's
 * ConfigMap is gone the new revision applies at once.
 */
export async function prepareRollout(input: {
  readonly store: Pick<RolloutStore, 'saveRevision' | 'loadRevision' | 'read' | 'write'>;
  readonly katalog: Katalog;
  readonly text: string;
  readonly now: number;
}): Promise<PreparedRollout> {
  const { store, katalog, now } = input;
  const revision = katalogRevision(katalog);
  await store.saveRevision(revision, katalog, input.text);
  const stored = await store.read();
  let state: RolloutState;
  if (stored == null) state = completeAt(revision, now, 'first revision');
  else if (stored.state.target === revision) state = stored.state;
  else {
    const stable = stored.state.phase === 'Complete' ? stored.state.target : stored.state.stable;
    state = startRollout(stable, revision, katalog.spec.rollout, now);
  }
  let previous: PreparedRollout['previous'];
  if (state.stable !== state.target) {
    const loaded = await store.loadRevision(state.stable);
    if (loaded == null)
      state = completeAt(revision, now, `revision ${state.stable} is gone: applied to every CR at once`);
    else previous = { revision: state.stable, katalog: loaded };
  }
  let resourceVersion = stored?.resourceVersion;
  if (stored == null || JSON.stringify(stored.state) !== JSON.stringify(state))
    resourceVersion = (await store.write(state, resourceVersion)).resourceVersion;
  return { revision, state, resourceVersion, previous };
}

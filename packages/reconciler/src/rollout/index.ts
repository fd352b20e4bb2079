/**
 * @orkestra/reconciler/rollout is Katalog revisions and health-gated rollouts
 * (docs/reference/runtime.md §24): the pure plan (`startRollout`, `tick`, `control`, `assign`),
 * revision names, the ConfigMap store and watch, and the controller the operator runs: what other
 * packages import (ADR 0013, ADR 0091). The runtime itself takes a revision through
 * `createKatalogRuntime`'s `revisions` option.
 *
 * @example
 * import { prepareRollout } from '@orkestra/reconciler/rollout';
 * const prepared = await prepareRollout({ store, katalog, text, now: Date.now() });
 */
export { assign, control, completeAt, startRollout, tick, RolloutCommandError } from './plan.js';
export type { RolloutCommand, RolloutState } from './plan.js';
export { katalogRevision, rolloutObjectName } from './revision.js';
export { RolloutStore, createRolloutStore } from './rollout-store.js';
export { RolloutController } from './rollout-controller.js';
export { RolloutWatch } from './rollout-watch.js';
export type { RuntimeRevisions } from './revisions.js';
export { prepareRollout } from './prepare.js';
export type { PreparedRollout } from './prepare.js';

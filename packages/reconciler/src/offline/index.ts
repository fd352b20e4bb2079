/**
 * @orkestra/reconciler/offline runs the real reconcile pipeline without a cluster: the same
 * `CrdPipeline`, hook slots and provider dispatch as the runtime, against an in-memory cluster,
 * with hook and provider results taken from a render context or a scenario. `ork render`,
 * `ork simulate` and the parity test drive it.
 *
 * Main exports: reconcileOnce (one run of one CR), OfflineEngine (a cluster kept across runs),
 * MemoryCluster (the in-memory API server behind the pipeline's store seam), createAdmissionJudge
 * (steps 6–8 as one verdict, for the operator's admission webhook). Like the main index, it holds
 * only what other packages import (ADR 0013, ADR 0091).
 *
 * @example
 * import { reconcileOnce } from '@orkestra/reconciler/offline';
 * const { run, cluster } = await reconcileOnce(katalog, cr, [], {}, { clock: { now: () => Date.parse('2026-01-01T00:00:00Z') } });
 * for (const write of run.writes) console.log(write.verb, write.ref.kind, write.ref.name);
 */
export { MemoryCluster, mergePatch, uidOf } from './memory-cluster.js';
export type { ClusterWrite } from './memory-cluster.js';
export { OfflineEngine, createScriptedProviders, reconcileOnce } from './offline-engine.js';
export type { OfflineFailures, OfflineResults, OfflineRun, ProviderResultInput } from './offline-engine.js';
export { createAdmissionJudge } from './admission-judge.js';
export type { AdmissionJudge, AdmissionVerdict, JudgeCalls } from './admission-judge.js';
export { IntervalGate } from '../notify/gate.js';
export { planRolloutNotifications } from '../notify/plan.js';
export type { DueNotification } from '../notify/plan.js';
export {
  hookRoots,
  patchResults,
  answerProblem,
  deletionFailuresProblem,
  protocolResults,
  PROTOCOL_ROOT,
  resultPathProblem,
  resultsProblem,
  visibleRoots,
} from './results.js';
export type { HookRoot, ProtocolResult } from './results.js';
export type { HelperParameter } from '../hooks/external/protocols/result-shape.js';

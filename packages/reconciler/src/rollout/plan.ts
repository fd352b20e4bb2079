/**
 * The rollout of a changed Katalog to live CRs (docs/reference/runtime.md §24), as pure
 * functions over a small state: which revision each CR gets, and when a step's gate opens or fails.
 * The state lives in a ConfigMap the operator owns (rollout-store.ts), so it survives restarts.
 */
import { createHash } from 'node:crypto';
import { ConditionType, OrkestraAnnotation, parseDuration } from '@orkestra/types';
import type { Rollout } from '@orkestra/types';
import type { KubeObject } from '@orkestra/registry';
import { labelsMatch } from '../labels.js';

/** RolloutPhase is where a rollout stands. */
export type RolloutPhase = 'Progressing' | 'Failed' | 'Complete' | 'Undone';

/** RolloutState is the persisted state of one Katalog's rollout. */
export interface RolloutState {
  /** The revision CRs outside the rollout keep (the last one fully rolled out). */
  readonly stable: string;
  /** The revision being rolled out; equal to `stable` once complete. */
  readonly target: string;
  readonly phase: RolloutPhase;
  /** 0 is the canary; `i` ≥ 1 is `waves[i - 1]`. */
  readonly step: number;
  /** CRs whose bucket is below this are in the rollout; undefined until the first tick computes it. */
  readonly threshold?: number | undefined;
  /** Canary by label selector: CRs matching it are in the rollout from step 0 on. */
  readonly selector?: Readonly<Record<string, string>> | undefined;
  /** Epoch ms the current step started; its gate times out `readyTimeout` later. */
  readonly stepStartedAt: number;
  /** UIDs rolled back after a failed gate (`onFailure: rollback`): they keep `stable`. */
  readonly rolledBack: readonly string[];
  /** Set by `ork rollout pause`; `spec.rollout.paused` pauses too. */
  readonly paused: boolean;
  /** Why the rollout stands where it does (the failed gate's first CR, …). */
  readonly message: string;
}

/** Assignment is which revision a CR is reconciled with. */
export type Assignment = 'target' | 'stable';

/** ALL is a threshold above every bucket. */
const ALL = 2 ** 32;

/** bucketOf places a CR (by UID) in [0, 2^32): a stable order, independent of names and of list order. */
function bucketOf(uid: string): number {
  return createHash('sha256').update(uid).digest().readUInt32BE(0);
}

function uidOf(cr: KubeObject): string {
  return cr.metadata.uid ?? '';
}

function matches(cr: KubeObject, selector: Readonly<Record<string, string>> | undefined): boolean {
  return selector != null && labelsMatch(cr.metadata.labels, selector);
}

/** inRollout tells whether a CR is in the steps run so far (canary and waves), pins and rollbacks aside. */
export function inRollout(state: RolloutState, cr: KubeObject): boolean {
  if (state.phase === 'Complete') return true;
  return bucketOf(uidOf(cr)) < (state.threshold ?? 0) || matches(cr, state.selector);
}

/**
 * assign decides the revision of one CR (docs/reference/runtime.md §24.2): the pin annotation
 * (`orkestra.konductor.io/revision`) naming one of the two revisions wins; then a complete
 * rollout gives `target`, an undone one `stable`; a rolled-back CR keeps `stable`; a CR in the
 * steps run so far gets `target`, every other CR `stable`.
 */
export function assign(state: RolloutState, cr: KubeObject): Assignment {
  const pin = cr.metadata.annotations?.[OrkestraAnnotation.Revision];
  if (pin === state.target) return 'target';
  if (pin === state.stable) return 'stable';
  if (state.phase === 'Complete') return 'target';
  if (state.phase === 'Undone') return 'stable';
  if (state.rolledBack.includes(uidOf(cr))) return 'stable';
  return inRollout(state, cr) ? 'target' : 'stable';
}

/** thresholdFor is the bucket below which `count` of the CRs fall. */
function thresholdFor(crs: readonly KubeObject[], count: number): number {
  if (count <= 0) return 0;
  if (count >= crs.length) return ALL;
  const buckets = crs.map((cr) => bucketOf(uidOf(cr))).sort((a, b) => a - b);
  return (buckets[count - 1] ?? 0) + 1;
}

/** stepThreshold is the threshold of a step over the live CRs. */
function stepThreshold(policy: Rollout, step: number, crs: readonly KubeObject[]): number {
  if (step === 0) {
    const { count, percent } = policy.canary;
    if (count != null) return thresholdFor(crs, count);
    if (percent != null) return thresholdFor(crs, Math.ceil((percent / 100) * crs.length));
    return 0;
  }
  const wave = policy.waves[step - 1] ?? 100;
  return wave >= 100 ? ALL : thresholdFor(crs, Math.ceil((wave / 100) * crs.length));
}

/** startRollout is a new rollout from `stable` to `target` at the canary (threshold set on the first tick). */
export function startRollout(
  stable: string,
  target: string,
  policy: Rollout | undefined,
  now: number,
): RolloutState {
  if (policy == null || stable === target) return completeAt(target, now, 'applied to every CR at once');
  return {
    stable,
    target,
    phase: 'Progressing',
    step: 0,
    threshold: undefined,
    selector: policy.canary.selector,
    stepStartedAt: now,
    rolledBack: [],
    paused: false,
    message: 'canary',
  };
}

/** completeAt is a finished rollout of `revision`. */
export function completeAt(revision: string, now: number, message = 'complete'): RolloutState {
  return {
    stable: revision,
    target: revision,
    phase: 'Complete',
    step: 0,
    stepStartedAt: now,
    rolledBack: [],
    paused: false,
    message,
  };
}

/** GateMember is a CR of the current step: ready on the target revision or not, and why. */
interface GateMember {
  readonly cr: KubeObject;
  readonly ready: boolean;
  readonly why: string;
}

/** readyOnTarget: the CR's status says it was reconciled with `target` and Ready=True for its generation. */
function readyOnTarget(cr: KubeObject, target: string): { ready: boolean; why: string } {
  const status = (cr['status'] ?? {}) as Record<string, unknown>;
  if (status['katalogRevision'] !== target)
    return { ready: false, why: 'not reconciled with the revision yet' };
  const conditions = Array.isArray(status['conditions'])
    ? (status['conditions'] as {
        type?: string;
        status?: string;
        reason?: string;
        message?: string;
        observedGeneration?: number;
      }[])
    : [];
  const ready = conditions.find((c) => c.type === ConditionType.Ready);
  const generation = cr.metadata['generation'];
  if (ready?.status !== 'True')
    return {
      ready: false,
      why: `Ready=${ready?.status ?? 'Unknown'} ${ready?.reason ?? ''}: ${ready?.message ?? ''}`.trim(),
    };
  if (
    typeof generation === 'number' &&
    ready.observedGeneration != null &&
    ready.observedGeneration !== generation
  )
    return { ready: false, why: 'Ready is for an older generation' };
  return { ready: true, why: '' };
}

/** RolloutEvent is a transition worth an Event and a log line. */
export interface RolloutEvent {
  readonly type: 'Normal' | 'Warning';
  readonly reason: 'RolloutStep' | 'RolloutComplete' | 'RolloutGateFailed' | 'RolledBack';
  readonly message: string;
  /** The CR the event is about (rollbacks); undefined for the rollout itself. */
  readonly cr?: KubeObject;
}

/** TickResult is a tick's new state (the same object when nothing changed) and its events. */
export interface TickResult {
  readonly state: RolloutState;
  readonly events: readonly RolloutEvent[];
}

/**
 * tick advances a rollout over the live CRs (docs/reference/runtime.md §24.3): the first tick sets
 * the canary's threshold; when every CR of the step (pins and rollbacks aside) is Ready on the
 * target revision, the next wave starts, after the last the rollout is complete; when the step's
 * `readyTimeout` passes first, the rollout fails and stops, and with `onFailure: rollback` the
 * CRs that were not ready go back to `stable`. A paused or finished rollout does not move.
 */
export function tick(
  state: RolloutState,
  policy: Rollout | undefined,
  crs: readonly KubeObject[],
  now: number,
): TickResult {
  if (state.phase !== 'Progressing') return { state, events: [] };
  if (policy == null)
    return {
      state: completeAt(state.target, now, 'spec.rollout removed: applied to every CR at once'),
      events: [],
    };
  if (state.threshold == null) {
    const threshold = stepThreshold(policy, 0, crs);
    const next = { ...state, threshold, stepStartedAt: now };
    const canary = crs.filter((cr) => inRollout(next, cr)).length;
    return {
      state: { ...next, message: `canary: ${canary} of ${crs.length} CRs` },
      events: [
        {
          type: 'Normal',
          reason: 'RolloutStep',
          message: `revision ${state.target}: canary of ${canary} CRs started`,
        },
      ],
    };
  }
  if (state.paused || policy.paused) return { state, events: [] };
  const live = crs.filter((cr) => cr.metadata['deletionTimestamp'] == null);
  const members: GateMember[] = live
    .filter(
      (cr) =>
        assign(state, cr) === 'target' && cr.metadata.annotations?.[OrkestraAnnotation.Revision] == null,
    )
    .map((cr) => ({ cr, ...readyOnTarget(cr, state.target) }));
  const notReady = members.filter((m) => !m.ready);
  if (notReady.length === 0) {
    if (state.step >= policy.waves.length) {
      return {
        state: completeAt(state.target, now),
        events: [
          {
            type: 'Normal',
            reason: 'RolloutComplete',
            message: `revision ${state.target} rolled out to ${live.length} CRs`,
          },
        ],
      };
    }
    const step = state.step + 1;
    const next = { ...state, step, threshold: stepThreshold(policy, step, live), stepStartedAt: now };
    const admitted = live.filter((cr) => assign(next, cr) === 'target').length;
    const message = `wave ${step} (${policy.waves[step - 1]}%): ${admitted} of ${live.length} CRs`;
    return {
      state: { ...next, message },
      events: [{ type: 'Normal', reason: 'RolloutStep', message: `revision ${state.target}: ${message}` }],
    };
  }
  if (now - state.stepStartedAt < parseDuration(policy.readyTimeout)) {
    return { state, events: [] };
  }
  const first = notReady[0] as GateMember;
  const message = `${notReady.length} of ${members.length} CRs not Ready within ${policy.readyTimeout}; first ${keyOf(first.cr)}: ${first.why}`;
  const rollback = policy.onFailure === 'rollback';
  const events: RolloutEvent[] = [
    { type: 'Warning', reason: 'RolloutGateFailed', message: `revision ${state.target}: ${message}` },
  ];
  if (rollback) {
    for (const member of notReady)
      events.push({
        type: 'Warning',
        reason: 'RolledBack',
        message: `rolled back to revision ${state.stable}: ${member.why}`,
        cr: member.cr,
      });
  }
  return {
    state: {
      ...state,
      phase: 'Failed',
      message,
      rolledBack: rollback ? [...state.rolledBack, ...notReady.map((m) => uidOf(m.cr))] : state.rolledBack,
    },
    events,
  };
}

/** RolloutCommand is what `ork rollout` asks for. */
export type RolloutCommand = 'pause' | 'resume' | 'undo';

/**
 * control applies a command (docs/reference/runtime.md §24.4): `pause` holds the rollout where it
 * is; `resume` lifts a pause and retries a failed or undone rollout from its current step (rolled
 * back CRs included, the step's timeout restarted); `undo` returns every CR to `stable`.
 * Throws RolloutCommandError when the rollout is complete.
 */
export function control(state: RolloutState, command: RolloutCommand, now: number): RolloutState {
  if (state.phase === 'Complete')
    throw new RolloutCommandError(
      `the rollout of revision ${state.target} is complete: nothing to ${command}`,
    );
  switch (command) {
    case 'pause':
      return { ...state, paused: true };
    case 'resume':
      return {
        ...state,
        paused: false,
        phase: 'Progressing',
        rolledBack: [],
        stepStartedAt: now,
        message: `resumed at step ${state.step}`,
      };
    case 'undo':
      return { ...state, phase: 'Undone', message: `undone: every CR back to revision ${state.stable}` };
  }
}

/** RolloutCommandError is a command that does not apply to the rollout's state. */
export class RolloutCommandError extends Error {
  override readonly name = 'RolloutCommandError';
  readonly code = 'RolloutCommandInvalid';
}

function keyOf(cr: KubeObject): string {
  const ns = cr.metadata.namespace;
  return ns == null || ns === '' ? (cr.metadata.name ?? '') : `${ns}/${cr.metadata.name ?? ''}`;
}

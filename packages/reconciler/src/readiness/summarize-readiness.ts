/**
 * summarizeReadiness: the CR's `Ready` verdict from its children's readiness, naming the first
 * child that is not ready and why (`Deployment shop-web: 1/2 replicas available`).
 */
import { ConditionReason } from '@orkestra/types';
import { isReady, ReadinessState } from './readiness.js';
import type { Readiness } from './readiness.js';

/** ChildVerdict is one child and its readiness, in declaration order. */
export interface ChildVerdict {
  readonly kind: string;
  readonly name: string;
  readonly readiness: Readiness;
  /** Set when the child was not applied because it waits for others (ordering on readiness). */
  readonly waitingFor?: readonly string[] | undefined;
}

/** ReadinessSummary is what the Ready condition says once the reconcile itself succeeded. */
export interface ReadinessSummary {
  readonly ready: boolean;
  readonly reason: string;
  readonly message: string;
}

/**
 * summarizeReadiness is Ready=True (`ReconcileSucceeded`) when every child is `Current`. Otherwise
 * it names the first child, in declaration order, that is not: `ChildFailed` when that child is
 * `Failed`, `WaitingForChildren` when it was held back for others, else `ChildNotReady`; the
 * message is `<Kind> <name>: <why>`, followed by how many others are not ready either.
 *
 * @example
 * summarizeReadiness([{ kind: 'Deployment', name: 'shop-web', readiness: { state: 'InProgress', message: '1/2 replicas available' } }]);
 * // { ready: false, reason: 'ChildNotReady', message: 'Deployment shop-web: 1/2 replicas available' }
 */
export function summarizeReadiness(children: readonly ChildVerdict[]): ReadinessSummary {
  const notReady = children.filter((c) => !isReady(c.readiness));
  const first = notReady[0];
  if (first == null) return { ready: true, reason: ConditionReason.ReconcileSucceeded, message: '' };
  const reason =
    first.waitingFor != null && first.waitingFor.length > 0
      ? ConditionReason.WaitingForChildren
      : first.readiness.state === ReadinessState.Failed
        ? ConditionReason.ChildFailed
        : ConditionReason.ChildNotReady;
  const why = first.readiness.message === '' ? first.readiness.state : first.readiness.message;
  const others = notReady.length - 1;
  const tail = others === 0 ? '' : ` (and ${others} other child${others === 1 ? '' : 'ren'} not ready)`;
  return { ready: false, reason, message: `${first.kind} ${first.name}: ${why}${tail}` };
}

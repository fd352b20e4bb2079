/**
 * childReadiness: the readiness of one child, by its kind's kstatus rule or by the entry's
 * `readyWhen` conditions (over the child's own object, as kro has).
 */
import { apiGroupOf, evaluateConditions, resourceKindOf } from '@orkestra/types';
import type { Condition, EvaluateConditionsOptions, ResourceKindInfo } from '@orkestra/types';
import type { KubeObject } from '../kube-object.js';
import {
  daemonSetReadiness,
  deploymentReadiness,
  replicaSetReadiness,
  statefulSetReadiness,
} from './apps-kinds.js';
import { cronJobReadiness, jobReadiness } from './batch-kinds.js';
import {
  namespaceReadiness,
  persistentVolumeClaimReadiness,
  podReadiness,
  serviceReadiness,
} from './core-kinds.js';
import { current, genericReadiness, inProgress, ReadinessState } from './readiness.js';
import type { KindReadiness, Readiness } from './readiness.js';

/** KIND_READINESS maps `group/Kind` (core kinds as `/Kind`) to its kstatus rule; others use the generic rule. */
const KIND_READINESS: ReadonlyMap<string, KindReadiness> = new Map<string, KindReadiness>([
  ['apps/Deployment', deploymentReadiness],
  ['apps/StatefulSet', statefulSetReadiness],
  ['apps/DaemonSet', daemonSetReadiness],
  ['apps/ReplicaSet', replicaSetReadiness],
  ['batch/Job', jobReadiness],
  ['batch/CronJob', cronJobReadiness],
  ['/Pod', podReadiness],
  ['/PersistentVolumeClaim', persistentVolumeClaimReadiness],
  ['/Service', serviceReadiness],
  ['/Namespace', namespaceReadiness],
]);

/** ChildReadinessOptions configures {@link childReadiness}. */
export interface ChildReadinessOptions {
  /** The entry's `readyWhen`: when non-empty it replaces the kind's rule (every condition must pass). */
  readonly readyWhen?: readonly Condition[] | undefined;
  /** Clock and renderer for the conditions. */
  readonly conditions?: EvaluateConditionsOptions | undefined;
  /** The kind table row of an object (default: @orkestra/types' resourceKindOf), for its `readyWhen` rule. */
  readonly kindOf?: (apiVersion: string, kind: string) => Pick<ResourceKindInfo, 'readyWhen'> | undefined;
}

/**
 * childReadiness returns a child's readiness: `NotFound` when it does not exist, `Terminating`
 * when it is being deleted, else `readyWhen` if given (Current when every condition passes,
 * InProgress naming the first that does not), else the `readyWhen` rule its kind file states
 * (ADR 0051), else the kstatus rule of its kind.
 *
 * @example
 * childReadiness(cachedDeployment); // { state: 'InProgress', message: '1/2 replicas available' }
 */
export function childReadiness(
  object: KubeObject | undefined,
  options: ChildReadinessOptions = {},
): Readiness {
  if (object == null) return { state: ReadinessState.NotFound, message: 'not created yet' };
  if (object.metadata['deletionTimestamp'] != null)
    return { state: ReadinessState.Terminating, message: 'being deleted' };
  const readyWhen = options.readyWhen ?? [];
  if (readyWhen.length > 0) return byConditions(object, readyWhen, options);
  const kindReadyWhen = (options.kindOf ?? resourceKindOf)(object.apiVersion, object.kind)?.readyWhen;
  if (kindReadyWhen != null && kindReadyWhen.length > 0) return byConditions(object, kindReadyWhen, options);
  const rule = KIND_READINESS.get(`${apiGroupOf(object.apiVersion)}/${object.kind}`);
  return (rule ?? genericReadiness)(object);
}

/** byConditions is Current when every condition passes, else InProgress naming the first that does not. */
function byConditions(
  object: KubeObject,
  conditions: readonly Condition[],
  options: ChildReadinessOptions,
): Readiness {
  const result = evaluateConditions(
    { when: conditions },
    object as unknown as Record<string, unknown>,
    options.conditions,
  );
  if (result.passed) return current('readyWhen passed');
  const failedAt = result.failed;
  return inProgress(`readyWhen[${String(failedAt?.index ?? 0)}]: ${failedAt?.reason ?? 'not passed'}`);
}

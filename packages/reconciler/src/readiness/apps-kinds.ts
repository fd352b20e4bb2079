/**
 * kstatus readiness of the `apps/v1` workloads: Deployment, StatefulSet, DaemonSet and ReplicaSet.
 */
import type { KubeObject } from '../kube-object.js';
import {
  conditionOf,
  current,
  failed,
  inProgress,
  intField,
  specOf,
  staleGeneration,
  statusOf,
} from './readiness.js';
import type { Readiness } from './readiness.js';

/** deploymentReadiness follows kstatus: Current once Available and the new ReplicaSet is rolled out. */
export function deploymentReadiness(object: KubeObject): Readiness {
  const stale = staleGeneration(object, true);
  if (stale != null) return stale;
  const spec = specOf(object);
  const status = statusOf(object);
  const want = intField(spec, 'replicas', 1);
  const progressing = conditionOf(object, 'Progressing');
  if (progressing?.reason === 'ProgressDeadlineExceeded')
    return failed(
      `progress deadline exceeded: ${intField(status, 'availableReplicas')}/${want} replicas available`,
    );
  const replicas = intField(status, 'replicas');
  const updated = intField(status, 'updatedReplicas');
  const available = intField(status, 'availableReplicas');
  if (spec['paused'] === true) return inProgress('rollout paused');
  if (updated < want) return inProgress(`${updated}/${want} replicas updated`);
  if (replicas > updated) return inProgress(`${replicas - updated} old replicas pending termination`);
  if (available < want) return inProgress(`${available}/${want} replicas available`);
  const availableCondition = conditionOf(object, 'Available');
  if (availableCondition?.status !== 'True') return inProgress('not Available');
  return current(`${available}/${want} replicas available`);
}

/** statefulSetReadiness follows kstatus: all replicas ready and, for RollingUpdate, on the update revision. */
export function statefulSetReadiness(object: KubeObject): Readiness {
  const stale = staleGeneration(object, true);
  if (stale != null) return stale;
  const spec = specOf(object);
  const status = statusOf(object);
  const want = intField(spec, 'replicas', 1);
  const replicas = intField(status, 'replicas');
  const ready = intField(status, 'readyReplicas');
  if (replicas < want) return inProgress(`${replicas}/${want} replicas created`);
  if (ready < want) return inProgress(`${ready}/${want} replicas ready`);
  const strategy = specOf(object)['updateStrategy'] as
    { type?: unknown; rollingUpdate?: { partition?: unknown } } | undefined;
  if (strategy?.type === 'OnDelete') return current(`${ready}/${want} replicas ready`);
  const partition =
    typeof strategy?.rollingUpdate?.partition === 'number' ? strategy.rollingUpdate.partition : 0;
  const updated = intField(status, 'updatedReplicas');
  if (partition > 0) {
    if (updated < want - partition)
      return inProgress(`${updated}/${want - partition} replicas updated (partitioned)`);
    return current(`${ready}/${want} replicas ready (partitioned)`);
  }
  if (updated < want) return inProgress(`${updated}/${want} replicas updated`);
  if (status['updateRevision'] != null && status['currentRevision'] !== status['updateRevision'])
    return inProgress('rolling update in progress');
  return current(`${ready}/${want} replicas ready`);
}

/** daemonSetReadiness follows kstatus: every scheduled pod updated and available. */
export function daemonSetReadiness(object: KubeObject): Readiness {
  const stale = staleGeneration(object, true);
  if (stale != null) return stale;
  const status = statusOf(object);
  const desired = intField(status, 'desiredNumberScheduled');
  const scheduled = intField(status, 'currentNumberScheduled');
  const updated = intField(status, 'updatedNumberScheduled');
  const available = intField(status, 'numberAvailable');
  if (scheduled < desired) return inProgress(`${scheduled}/${desired} pods scheduled`);
  if (updated < desired) return inProgress(`${updated}/${desired} pods updated`);
  if (available < desired) return inProgress(`${available}/${desired} pods available`);
  return current(`${available}/${desired} pods available`);
}

/** replicaSetReadiness follows kstatus: every replica labeled, ready and available; ReplicaFailure is reported. */
export function replicaSetReadiness(object: KubeObject): Readiness {
  const stale = staleGeneration(object, true);
  if (stale != null) return stale;
  const want = intField(specOf(object), 'replicas', 1);
  const status = statusOf(object);
  const failure = conditionOf(object, 'ReplicaFailure');
  if (failure?.status === 'True')
    return inProgress(`replica failure: ${failure.message ?? failure.reason ?? ''}`.trim());
  const ready = intField(status, 'readyReplicas');
  const available = intField(status, 'availableReplicas');
  if (ready < want) return inProgress(`${ready}/${want} replicas ready`);
  if (available < want) return inProgress(`${available}/${want} replicas available`);
  return current(`${available}/${want} replicas available`);
}

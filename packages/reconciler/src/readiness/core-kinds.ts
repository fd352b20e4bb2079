/** kstatus readiness of core/v1 kinds with a lifecycle: Pod, PersistentVolumeClaim, Service, Namespace. */
import type { KubeObject } from '../kube-object.js';
import { conditionOf, current, describe, failed, inProgress, specOf, statusOf } from './readiness.js';
import type { Readiness } from './readiness.js';

const CRASH_REASONS: ReadonlySet<string> = new Set(['CrashLoopBackOff', 'ImagePullBackOff', 'ErrImagePull']);

/** podReadiness follows kstatus: Succeeded or Ready is Current, Failed or a crash loop Failed, else InProgress. */
export function podReadiness(object: KubeObject): Readiness {
  const status = statusOf(object);
  const phase = typeof status['phase'] === 'string' ? status['phase'] : 'Pending';
  if (phase === 'Succeeded') return current('succeeded');
  if (phase === 'Failed')
    return failed(typeof status['message'] === 'string' ? `failed: ${status['message']}` : 'failed');
  const containers = Array.isArray(status['containerStatuses'])
    ? (status['containerStatuses'] as unknown[])
    : [];
  for (const c of containers) {
    const reason = (c as { state?: { waiting?: { reason?: unknown } } }).state?.waiting?.reason;
    if (typeof reason === 'string' && CRASH_REASONS.has(reason))
      return failed(`container waiting: ${reason}`);
  }
  const ready = conditionOf(object, 'Ready');
  if (ready?.status === 'True') return current('running and ready');
  const scheduled = conditionOf(object, 'PodScheduled');
  if (scheduled?.status === 'False') return inProgress(describe('not scheduled', scheduled));
  return inProgress(`${phase}, not ready`);
}

/** persistentVolumeClaimReadiness is Current once Bound. */
export function persistentVolumeClaimReadiness(object: KubeObject): Readiness {
  const phase = statusOf(object)['phase'];
  if (phase === 'Bound') return current('bound');
  if (phase === 'Lost') return failed('claim lost its volume');
  return inProgress(`${typeof phase === 'string' ? phase : 'Pending'}, not bound`);
}

/** serviceReadiness: a LoadBalancer Service is Current once it has an ingress address; every other type at once. */
export function serviceReadiness(object: KubeObject): Readiness {
  if (specOf(object)['type'] !== 'LoadBalancer') return current();
  const ingress = (statusOf(object)['loadBalancer'] as { ingress?: unknown } | undefined)?.ingress;
  if (Array.isArray(ingress) && ingress.length > 0) return current('load balancer provisioned');
  return inProgress('waiting for a load balancer address');
}

/** namespaceReadiness is Current while Active. */
export function namespaceReadiness(object: KubeObject): Readiness {
  const phase = statusOf(object)['phase'];
  return phase === 'Terminating' ? inProgress('terminating') : current();
}

/** kstatus readiness of `batch/v1` Job and CronJob. */
import type { KubeObject } from '../kube-object.js';
import { conditionOf, current, describe, failed, inProgress, intField, statusOf } from './readiness.js';
import type { Readiness } from './readiness.js';

/** jobReadiness follows kstatus: Current when Complete, Failed when Failed, else InProgress with the counts. */
export function jobReadiness(object: KubeObject): Readiness {
  const complete = conditionOf(object, 'Complete');
  if (complete?.status === 'True') return current('complete');
  const failure = conditionOf(object, 'Failed');
  if (failure?.status === 'True') return failed(describe('failed', failure));
  const status = statusOf(object);
  return inProgress(
    `running: ${intField(status, 'active')} active, ${intField(status, 'succeeded')} succeeded, ${intField(status, 'failed')} failed`,
  );
}

/** cronJobReadiness is always Current, as in kstatus: a CronJob is ready once it exists. */
export function cronJobReadiness(): Readiness {
  return current();
}

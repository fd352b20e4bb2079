import type { Fields } from '../fields.js';
import { templateError } from '../fields.js';
import { compact, defineKind } from '../kind-module.js';
import type { KubeObject } from '../kube-object.js';
import { buildPodSpec, podTemplateMetadata } from '../pod-template.js';

/** jobSpec builds a Job spec from the workload fields plus `backoffLimit` (default 3) and `restartPolicy` (default `OnFailure`). */
export function jobSpec(
  fields: Fields,
  name: string,
  labels: Readonly<Record<string, string>>,
): Record<string, unknown> {
  const restartPolicy = fields.str('restartPolicy') ?? 'OnFailure';
  if (restartPolicy !== 'OnFailure' && restartPolicy !== 'Never') {
    throw templateError(fields.at('restartPolicy'), `must be OnFailure or Never, got "${restartPolicy}"`);
  }
  return compact({
    backoffLimit: fields.int('backoffLimit') ?? 3,
    activeDeadlineSeconds: fields.int('activeDeadlineSeconds'),
    ttlSecondsAfterFinished: fields.int('ttlSecondsAfterFinished'),
    template: {
      metadata: podTemplateMetadata(fields, labels, {}),
      spec: { ...buildPodSpec(fields, name, { service: false }), restartPolicy },
    },
  });
}

/** jobs creates Jobs (default name `<cr>-job`). Jobs are create-only in every group: `ensure` never applies. */
export const jobs = defineKind({
  listKey: 'jobs',
  enrich: { pods: 'owner' },
  createOnly: true,
  neverPruned: true,
  finished: jobFinished,
  build: ({ fields, name, labels }) => ({ body: { spec: jobSpec(fields, name, labels) } }),
});

/** jobFinished reads a Job's `Complete` or `Failed` condition. */
function jobFinished(job: KubeObject): 'complete' | 'failed' | undefined {
  const conditions =
    (job['status'] as { conditions?: { type?: string; status?: string }[] } | undefined)?.conditions ?? [];
  if (conditions.some((c) => c.type === 'Complete' && c.status === 'True')) return 'complete';
  if (conditions.some((c) => c.type === 'Failed' && c.status === 'True')) return 'failed';
  return undefined;
}

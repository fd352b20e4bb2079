import type { Fields } from '../fields.js';
import { templateError } from '../fields.js';
import { compact, defineKind } from '../kind-module.js';
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
  createOnly: true,
  build: ({ fields, name, labels }) => ({ body: { spec: jobSpec(fields, name, labels) } }),
});

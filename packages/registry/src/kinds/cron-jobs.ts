import { templateError } from '../fields.js';
import { compact, defineKind } from '../kind-module.js';
import { jobSpec } from './jobs.js';

const POLICIES = ['Allow', 'Forbid', 'Replace'] as const;

/**
 * cronJobs creates CronJobs (default name `<cr>-cronjob`): `schedule` (required), `timeZone`,
 * `suspend` (false), `concurrencyPolicy` (`Allow`; lowercase accepted), history limits (3, 1),
 * `startingDeadlineSeconds`, and the Job fields for the Jobs it creates.
 */
export const cronJobs = defineKind({
  listKey: 'cronJobs',
  enrich: { jobs: true },
  maxNameLength: 52,
  build: ({ fields, name, labels }) => {
    const policyText = fields.str('concurrencyPolicy') ?? 'Allow';
    const policy = POLICIES.find((p) => p.toLowerCase() === policyText.toLowerCase());
    if (policy == null)
      throw templateError(
        fields.at('concurrencyPolicy'),
        `must be one of ${POLICIES.join(', ')}, got "${policyText}"`,
      );
    return {
      body: {
        spec: compact({
          schedule: fields.reqStr('schedule'),
          timeZone: fields.str('timeZone'),
          suspend: fields.bool('suspend') ?? false,
          concurrencyPolicy: policy,
          successfulJobsHistoryLimit: fields.int('successfulJobsHistoryLimit') ?? 3,
          failedJobsHistoryLimit: fields.int('failedJobsHistoryLimit') ?? 1,
          startingDeadlineSeconds: fields.int('startingDeadlineSeconds'),
          jobTemplate: { metadata: { labels }, spec: jobSpec(fields, name, labels) },
        }),
      },
    };
  },
});

import { HPA_PROFILE_NAMES, hpaProfile } from '@orkestra/types';
import { templateError } from '../fields.js';
import { compact, defineKind } from '../kind-module.js';

/**
 * hpa creates autoscaling/v2 HorizontalPodAutoscalers (default name `<cr>-hpa`): `scaleTargetRef`
 * (default the CR's single workload), `minReplicas` (1), `maxReplicas` (required),
 * CPU target (80 unless a memory target is set), memory target, `behavior` (a templated
 * `behavior.profile` rendered to a preset, docs/reference/katalog.md §18.3).
 */
export const hpa = defineKind({
  listKey: 'hpa',
  // The workload it scales leaves `replicas` out (scaleTargetRef.name, else the CR's single workload).
  sibling: {
    role: 'scaler',
    target: (entry) => (entry['scaleTargetRef'] as Record<string, unknown> | undefined)?.['name'],
  },
  build: ({ fields, hints }) => {
    const target = fields.obj('scaleTargetRef');
    const name = target?.str('name') ?? hints.defaultWorkload?.name;
    if (name == null || name === '')
      throw templateError(fields.at('scaleTargetRef.name'), 'is required (the CR has no single workload)');
    const minReplicas = fields.int('minReplicas') ?? 1;
    const maxReplicas = fields.reqInt('maxReplicas');
    if (maxReplicas < minReplicas)
      throw templateError(
        fields.at('maxReplicas'),
        `must be ≥ minReplicas (${minReplicas}), got ${maxReplicas}`,
      );
    // A literal behavior.profile was expanded when the Katalog loaded; a templated one renders per
    // CR to a preset's name here, which gives the behavior and, unless one is written, the CPU target.
    const behavior = fields.obj('behavior');
    const profileName = behavior?.str('profile');
    const preset = profileName == null ? undefined : hpaProfile(profileName);
    if (profileName != null && preset == null)
      throw templateError(
        fields.at('behavior.profile'),
        `rendered ${JSON.stringify(profileName)}, which is not a behavior.profile preset (${HPA_PROFILE_NAMES.join(', ')})`,
      );
    const memory = fields.int('targetMemoryUtilizationPercentage');
    const cpu =
      fields.int('targetCPUUtilizationPercentage') ?? (memory == null ? (preset?.cpu ?? 80) : undefined);
    const metric = (resource: string, value: number): Record<string, unknown> => ({
      type: 'Resource',
      resource: { name: resource, target: { type: 'Utilization', averageUtilization: value } },
    });
    const metrics = [
      ...(cpu == null ? [] : [metric('cpu', cpu)]),
      ...(memory == null ? [] : [metric('memory', memory)]),
    ];
    return {
      body: {
        spec: compact({
          scaleTargetRef: {
            apiVersion: target?.str('apiVersion') ?? 'apps/v1',
            kind: target?.str('kind') ?? hints.defaultWorkload?.kind ?? 'Deployment',
            name,
          },
          minReplicas,
          maxReplicas,
          metrics,
          behavior: preset?.behavior ?? fields.raw('behavior'),
        }),
      },
    };
  },
});

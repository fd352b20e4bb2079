import { z } from 'zod';
import { gated } from '../schema/condition.js';
import { IntLike, Literal, TemplateValue, Tpl } from '../schema/primitives.js';
import { commonShape } from '../schema/resources.js';
import { defineResourceKind } from './resource-kind.js';

/** HpaEntry is an item of `hpa`; CPU target defaults to 80 unless a memory target is set. */
const HpaEntrySchema = gated({
  ...commonShape,
  scaleTargetRef: z
    .strictObject({
      apiVersion: Literal.default('apps/v1'),
      kind: Literal.default('Deployment'),
      name: Tpl.optional(),
    })
    .prefault({}),
  minReplicas: IntLike.default(1),
  maxReplicas: IntLike,
  targetCPUUtilizationPercentage: IntLike.optional(),
  targetMemoryUtilizationPercentage: IntLike.optional(),
  behavior: TemplateValue.optional(),
})
  .superRefine((entry, ctx) => {
    const profile = behaviorProfile(entry.behavior);
    if (profile !== undefined) {
      const b = entry.behavior as Record<string, unknown>;
      if (!profile.includes('{{') && HPA_PROFILES[profile.toLowerCase()] === undefined)
        ctx.addIssue({
          code: 'custom',
          message: `unknown behavior.profile ${JSON.stringify(profile)} — allowed: ${Object.keys(HPA_PROFILES).join(', ')}`,
          path: ['behavior', 'profile'],
          input: profile,
        });
      else if (b['scaleUp'] !== undefined || b['scaleDown'] !== undefined)
        ctx.addIssue({
          code: 'custom',
          message: `behavior.profile (${JSON.stringify(profile)}) and explicit scaleUp/scaleDown are both declared — use one or the other, not both`,
          path: ['behavior', 'profile'],
          input: profile,
        });
    }
    if (
      typeof entry.minReplicas === 'number' &&
      typeof entry.maxReplicas === 'number' &&
      entry.maxReplicas < entry.minReplicas
    ) {
      ctx.addIssue({
        code: 'custom',
        message: `maxReplicas (${entry.maxReplicas}) must be at least minReplicas (${entry.minReplicas})`,
        path: ['maxReplicas'],
        input: entry.maxReplicas,
      });
    }
  })
  .transform((entry) => {
    const name = behaviorProfile(entry.behavior);
    // A templated profile is chosen when the HPA is built (hpaProfile), with its CPU target.
    if (name?.includes('{{') === true) return entry;
    const preset = name === undefined ? undefined : HPA_PROFILES[name.toLowerCase()];
    return {
      ...entry,
      ...(preset === undefined ? {} : { behavior: preset.behavior }),
      ...(entry.targetCPUUtilizationPercentage === undefined &&
      entry.targetMemoryUtilizationPercentage === undefined
        ? { targetCPUUtilizationPercentage: preset?.cpu ?? 80 }
        : {}),
    };
  });

interface HpaPreset {
  readonly cpu: number;
  readonly behavior: Record<string, unknown>;
}

/** rules builds one direction of an HPA behavior: a stabilization window, a select policy and policies. */
function rules(window: number, select: 'Max' | 'Min', policies: readonly [string, number, number][]) {
  return {
    stabilizationWindowSeconds: window,
    selectPolicy: select,
    policies: policies.map(([type, value, periodSeconds]) => ({ type, value, periodSeconds })),
  };
}

/**
 * HPA_PROFILES are upstream's `behavior.profile` presets (docs/reference/katalog.md §18.3): a CPU
 * target (used when none is written) and a whole behavior block.
 */
const HPA_PROFILES: Readonly<Record<string, HpaPreset>> = Object.assign(Object.create(null) as object, {
  web: {
    cpu: 70,
    behavior: {
      scaleUp: rules(0, 'Max', [
        ['Percent', 100, 15],
        ['Pods', 4, 15],
      ]),
      scaleDown: rules(300, 'Min', [['Percent', 10, 60]]),
    },
  },
  api: {
    cpu: 60,
    behavior: {
      scaleUp: rules(0, 'Max', [
        ['Percent', 100, 15],
        ['Pods', 4, 15],
      ]),
      scaleDown: rules(600, 'Min', [['Percent', 5, 60]]),
    },
  },
  'latency-sensitive': {
    cpu: 50,
    behavior: {
      scaleUp: rules(0, 'Max', [
        ['Percent', 200, 15],
        ['Pods', 10, 15],
      ]),
      scaleDown: rules(900, 'Min', [['Percent', 5, 120]]),
    },
  },
  batch: {
    cpu: 80,
    behavior: {
      scaleUp: rules(30, 'Max', [['Percent', 100, 60]]),
      scaleDown: rules(120, 'Min', [['Percent', 50, 60]]),
    },
  },
  'cost-optimized': {
    cpu: 80,
    behavior: {
      scaleUp: rules(180, 'Min', [['Percent', 25, 60]]),
      scaleDown: rules(60, 'Max', [['Percent', 50, 60]]),
    },
  },
});

/**
 * hpaProfile is the preset a `behavior.profile` names (case-insensitive; docs/reference/katalog.md
 * §18.3): its CPU target and behavior block, or undefined for a name that is none of them. The HPA
 * builder reads it for a templated profile, rendered per CR.
 */
export function hpaProfile(
  name: string,
): { readonly cpu: number; readonly behavior: Record<string, unknown> } | undefined {
  return HPA_PROFILES[name.trim().toLowerCase()];
}

/** HPA_PROFILE_NAMES lists the presets, for the error of an unknown rendered profile. */
export const HPA_PROFILE_NAMES: readonly string[] = Object.keys(HPA_PROFILES);

/** behaviorProfile is `behavior.profile` when it is a string. */
function behaviorProfile(behavior: unknown): string | undefined {
  if (behavior === null || typeof behavior !== 'object' || Array.isArray(behavior)) return undefined;
  const profile = (behavior as Record<string, unknown>)['profile'];
  return typeof profile === 'string' ? profile : undefined;
}
/** HpaEntry is a horizontal pod autoscaler entry. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface HpaEntry extends z.output<typeof HpaEntrySchema> {}
/** HpaEntry is an item of `hpa`; CPU target defaults to 80 unless a memory target is set. */
export const HpaEntry: z.ZodType<HpaEntry> = HpaEntrySchema.meta({ id: 'HpaEntry' });

/** hpa is the `hpa` list: HorizontalPodAutoscaler children (autoscaling/v2). */
export const hpa = defineResourceKind({
  listKey: 'hpa',
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  plural: 'horizontalpodautoscalers',
  childrenKeys: { singular: 'hpa', plural: 'hpas' },
  namespaced: true,
  defaultNameSuffix: '-hpa',
  wave: 5,
  entry: HpaEntry,
});

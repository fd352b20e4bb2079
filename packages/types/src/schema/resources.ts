import { z } from 'zod';
import { ConditionList } from './condition.js';
import {
  AnnotationMap,
  BoolLike,
  Identifier,
  IntLike,
  IntOrName,
  LabelMap,
  Quantity,
  Tpl,
  TplList,
  TplMap,
  describe,
} from './primitives.js';

/**
 * TEMPLATE_CONTEXT_KEYS lists the top-level keys of the template context (docs/reference/katalog.md §17.2), which
 * a forEach `as` name must not shadow (§9).
 */
export const TEMPLATE_CONTEXT_KEYS: readonly string[] = Object.freeze([
  'apiVersion',
  'kind',
  'metadata',
  'spec',
  'status',
  'cross',
  'git',
  'external',
  'docker',
  'item',
  'index',
  'value',
  'providers',
  'children',
  'metrics',
]);
const CONTEXT_KEYS: ReadonlySet<string> = new Set(TEMPLATE_CONTEXT_KEYS);

/** ForEach expands an entry once per list element or map key (docs/reference/katalog.md §9). */
const ForEachSchema = z.strictObject({
  field: Tpl,
  as: Identifier.refine((name) => !CONTEXT_KEYS.has(name), {
    error: (issue) => `forEach.as must not shadow the context key ${String(issue.input)}`,
  }).optional(),
});
/** ForEach is a forEach declaration. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface ForEach extends z.output<typeof ForEachSchema> {}
/** ForEach expands an entry once per list element or map key (docs/reference/katalog.md §9). */
export const ForEach: z.ZodType<ForEach> = ForEachSchema.meta({ id: 'ForEach' });

/** commonShape holds the fields every resource entry has (docs/reference/katalog.md §6), without the gate. */
export const commonShape = {
  name: Tpl.optional(),
  namespace: Tpl.optional(),
  labels: LabelMap.default({}),
  annotations: AnnotationMap.default({}),
  forEach: ForEach.optional(),
  reconcile: z.boolean().default(false),
  /** Falls back to the CRD entry's `forceConflict` when absent. */
  forceConflict: z.boolean().optional(),
  prune: z.boolean().default(true),
  // Readiness and ordering on readiness (ADR 0009).
  /** A name other entries of the same CRD entry use in `waitFor`. */
  id: Identifier.optional(),
  /** Conditions over the child's own object (`status.phase`, …): when given, they decide readiness instead of the kind's rule. */
  readyWhen: ConditionList.optional(),
  /** Ids of entries that must be ready before this one is applied (cycle-checked when loading). */
  waitFor: z.array(Identifier).optional(),
};

/** exclusive reports an issue at `b` when both `a` and `b` are set. */
export function exclusive(ctx: z.RefinementCtx, value: Record<string, unknown>, a: string, b: string): void {
  if (value[a] !== undefined && value[b] !== undefined) {
    ctx.addIssue({
      code: 'custom',
      message: `\`${a}\` and \`${b}\` are exclusive`,
      path: [b],
      input: value[b],
    });
  }
}

/** requireName reports an issue when an entry of a kind without a default name has no `name`. */
export function requireName(value: { name?: string | undefined }, ctx: z.RefinementCtx, kind: string): void {
  if (value.name === undefined)
    ctx.addIssue({
      code: 'custom',
      message: `${kind} entries have no default name: \`name\` is required`,
      input: value,
    });
}

// ---- container and pod sub-fields (docs/reference/katalog.md §7.7) --------------------------------------------

const KeyRef = z.strictObject({ name: Tpl, key: Tpl, optional: z.boolean().optional() });

/** EnvVar is one `env` item: `{name, value}` or `{name, valueFrom}`. */
const EnvVarSchema = z
  .strictObject({
    name: Tpl,
    value: Tpl.optional(),
    valueFrom: z
      .strictObject({
        secretKeyRef: KeyRef.optional(),
        configMapKeyRef: KeyRef.optional(),
        fieldRef: z.strictObject({ fieldPath: Tpl }).optional(),
      })
      .superRefine((from, ctx) => {
        const count = [from.secretKeyRef, from.configMapKeyRef, from.fieldRef].filter(
          (x) => x !== undefined,
        ).length;
        if (count !== 1)
          ctx.addIssue({
            code: 'custom',
            message: 'valueFrom needs exactly one of secretKeyRef, configMapKeyRef, fieldRef',
            input: from,
          });
      })
      .optional(),
  })
  .superRefine((env, ctx) => exclusive(ctx, env, 'value', 'valueFrom'));
/** EnvVar is an environment variable. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface EnvVar extends z.output<typeof EnvVarSchema> {}
/** EnvVar is one `env` item: `{name, value}` or `{name, valueFrom}`. */
export const EnvVar: z.ZodType<EnvVar> = EnvVarSchema.meta({ id: 'EnvVar' });

const EnvList = z.array(EnvVar, {
  error: (issue) =>
    issue.input !== null && typeof issue.input === 'object'
      ? 'env is a list of {name, value} items, not a map: write `env: [{name: KEY, value: "..."}]`'
      : `expected a list of {name, value} items, got ${describe(issue.input)}`,
});

const EnvFromRef = z
  .strictObject({
    name: Tpl,
    prefix: Tpl.optional(),
    suffix: Tpl.optional(),
    optional: z.boolean().optional(),
    keys: TplList.optional(),
  })
  .superRefine((ref, ctx) => {
    if (ref.suffix !== undefined && ref.keys === undefined)
      ctx.addIssue({ code: 'custom', message: '`suffix` requires `keys`', path: ['suffix'], input: ref });
  });

/** EnvFrom keeps upstream's shape: lists of Secret and ConfigMap references. */
const EnvFromSchema = z.strictObject({
  secretRef: z.array(EnvFromRef).optional(),
  configMapRef: z.array(EnvFromRef).optional(),
});
/** EnvFrom is an envFrom block. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface EnvFrom extends z.output<typeof EnvFromSchema> {}
/** EnvFrom keeps upstream's shape: lists of Secret and ConfigMap references. */
export const EnvFrom: z.ZodType<EnvFrom> = EnvFromSchema.meta({ id: 'EnvFrom' });

/** Probe is one probe; `type` is derived (`http` with `path`, `exec` with `command`, else `tcp`). */
const ProbeSchema = z
  .strictObject({
    type: z.enum(['http', 'exec', 'tcp']).optional(),
    path: Tpl.optional(),
    port: IntOrName.optional(),
    command: TplList.optional(),
    initialDelaySeconds: IntLike.optional(),
    periodSeconds: IntLike.optional(),
    timeoutSeconds: IntLike.optional(),
    failureThreshold: IntLike.optional(),
    successThreshold: IntLike.optional(),
  })
  .transform((probe) => ({
    ...probe,
    type: probe.type ?? (probe.path !== undefined ? 'http' : probe.command !== undefined ? 'exec' : 'tcp'),
  }));
/** Probe is a probe. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface Probe extends z.output<typeof ProbeSchema> {}
/** Probe is one probe; `type` is derived (`http` with `path`, `exec` with `command`, else `tcp`). */
export const Probe: z.ZodType<Probe> = ProbeSchema.meta({ id: 'Probe' });

/** Probes are the startup, liveness and readiness probes. */
export const Probes = z.strictObject({
  startup: Probe.optional(),
  liveness: Probe.optional(),
  readiness: Probe.optional(),
});

const SecurityProfile = z.enum(['baseline', 'restricted', 'hardened']);

/** SecurityContext is a container security context: a `profile` or explicit fields. */
const SecurityContextSchema = z
  .strictObject({
    profile: SecurityProfile.optional(),
    allowPrivilegeEscalation: BoolLike.optional(),
    readOnlyRootFilesystem: BoolLike.optional(),
    runAsNonRoot: BoolLike.optional(),
    runAsUser: IntLike.optional(),
    runAsGroup: IntLike.optional(),
    privileged: BoolLike.optional(),
    capabilities: z.strictObject({ add: TplList.optional(), drop: TplList.optional() }).optional(),
  })
  .superRefine((value, ctx) => {
    if (value.profile !== undefined && Object.keys(value).length > 1) {
      ctx.addIssue({
        code: 'custom',
        message: 'securityContext is either {profile} or explicit fields, not both',
        path: ['profile'],
        input: value,
      });
    }
  });
/** SecurityContext is a container security context. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface SecurityContext extends z.output<typeof SecurityContextSchema> {}
/** SecurityContext is a container security context: a `profile` or explicit fields. */
export const SecurityContext: z.ZodType<SecurityContext> = SecurityContextSchema.meta({
  id: 'SecurityContext',
});

/** PodSecurity is a pod security context: a `profile` or explicit fields. */
const PodSecuritySchema = z
  .strictObject({
    profile: SecurityProfile.optional(),
    runAsNonRoot: BoolLike.optional(),
    runAsUser: IntLike.optional(),
    runAsGroup: IntLike.optional(),
    fsGroup: IntLike.optional(),
  })
  .superRefine((value, ctx) => {
    if (value.profile !== undefined && Object.keys(value).length > 1) {
      ctx.addIssue({
        code: 'custom',
        message: 'podSecurity is either {profile} or explicit fields, not both',
        path: ['profile'],
        input: value,
      });
    }
  });
/** PodSecurity is a pod security context. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface PodSecurity extends z.output<typeof PodSecuritySchema> {}
/** PodSecurity is a pod security context: a `profile` or explicit fields. */
export const PodSecurity: z.ZodType<PodSecurity> = PodSecuritySchema.meta({ id: 'PodSecurity' });

/** Volume is a pod volume with exactly one source; `secret.secretName` is accepted for `secret.name`. */
const VolumeSchema = z
  .strictObject({
    name: Tpl,
    configMap: z.strictObject({ name: Tpl, optional: z.boolean().optional() }).optional(),
    secret: z
      .strictObject({ name: Tpl.optional(), secretName: Tpl.optional(), optional: z.boolean().optional() })
      .superRefine((s, ctx) => {
        if ((s.name === undefined) === (s.secretName === undefined))
          ctx.addIssue({
            code: 'custom',
            message: 'secret volumes need `name` (or its alias `secretName`), not both',
            input: s,
          });
      })
      .transform(({ secretName, name, ...rest }) => ({ ...rest, name: name ?? secretName ?? '' }))
      .optional(),
    emptyDir: z.strictObject({ medium: Tpl.optional(), sizeLimit: Quantity.optional() }).optional(),
    persistentVolumeClaim: z.strictObject({ claimName: Tpl, readOnly: z.boolean().optional() }).optional(),
    hostPath: z.strictObject({ path: Tpl, type: Tpl.optional() }).optional(),
  })
  .superRefine((volume, ctx) => {
    const sources = (
      ['configMap', 'secret', 'emptyDir', 'persistentVolumeClaim', 'hostPath'] as const
    ).filter((k) => volume[k] !== undefined);
    if (sources.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        message: `a volume needs exactly one of configMap, secret, emptyDir, persistentVolumeClaim, hostPath (found ${sources.length === 0 ? 'none' : sources.join(', ')})`,
        input: volume,
      });
    }
  });
/** Volume is a pod volume. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface Volume extends z.output<typeof VolumeSchema> {}
/** Volume is a pod volume with exactly one source; `secret.secretName` is accepted for `secret.name`. */
export const Volume: z.ZodType<Volume> = VolumeSchema.meta({ id: 'Volume' });

/** VolumeMount mounts a volume in the container. */
const VolumeMountSchema = z.strictObject({
  name: Tpl,
  mountPath: Tpl,
  subPath: Tpl.optional(),
  readOnly: BoolLike.optional(),
});
/** VolumeMount is a volume mount. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface VolumeMount extends z.output<typeof VolumeMountSchema> {}
/** VolumeMount mounts a volume in the container. */
export const VolumeMount: z.ZodType<VolumeMount> = VolumeMountSchema.meta({ id: 'VolumeMount' });

const ContainerPort = z.strictObject({
  name: Tpl.optional(),
  containerPort: IntLike,
  protocol: Tpl.default('TCP'),
});

/** containerShape holds the single-container and pod fields of every workload kind (docs/reference/katalog.md §7.3, §7.7). */
export const containerShape = {
  image: Tpl,
  imagePullPolicy: Tpl.optional(),
  workingDirectory: Tpl.optional(),
  imagePullSecrets: TplList.default([]),
  command: TplList.optional(),
  args: TplList.optional(),
  protocol: Tpl.default('TCP'),
  env: EnvList.optional(),
  envFrom: EnvFrom.optional(),
  resources: z
    .strictObject({
      requests: z.record(z.string(), Quantity).optional(),
      limits: z.record(z.string(), Quantity).optional(),
    })
    .optional(),
  securityContext: SecurityContext.optional(),
  podSecurity: PodSecurity.optional(),
  serviceAccountName: Tpl.optional(),
  nodeSelector: TplMap.default({}),
  volumes: z.array(Volume).default([]),
  volumeMounts: z.array(VolumeMount).default([]),
  podLabels: LabelMap.default({}),
  podAnnotations: AnnotationMap.default({}),
};
/** servingShape holds the port and probe fields of long-running workloads. */
export const servingShape = {
  port: IntLike.optional(),
  ports: z.array(ContainerPort).optional(),
  probes: Probes.optional(),
};

/** portsExclusive reports `port` and `ports` set together. */
export function portsExclusive(entry: { port?: unknown; ports?: unknown }, ctx: z.RefinementCtx): void {
  exclusive(ctx, entry, 'port', 'ports');
}

/** jobShape holds the fields jobs and cronJobs add to the container fields. */
export const jobShape = {
  backoffLimit: IntLike.default(3),
  restartPolicy: Tpl.default('OnFailure'),
};

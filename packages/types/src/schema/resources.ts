import { z } from 'zod';
import { Duration } from '../duration.js';
import { checkGate, ConditionList, gated, gateShape, normalizeGate } from './condition.js';
import type { GateInput } from './condition.js';
import {
  AnnotationMap,
  BoolLike,
  CronSchedule,
  Identifier,
  IntLike,
  IntOrName,
  IntOrPercent,
  LabelMap,
  Literal,
  Quantity,
  TemplateValue,
  Tpl,
  TplList,
  TplMap,
  describe,
  isNamespaceName,
  isTemplate,
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
const { namespace: _namespace, ...clusterCommonShape } = commonShape;

/** exclusive reports an issue at `b` when both `a` and `b` are set. */
function exclusive(ctx: z.RefinementCtx, value: Record<string, unknown>, a: string, b: string): void {
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
function requireName(value: { name?: string | undefined }, ctx: z.RefinementCtx, kind: string): void {
  if (value.name === undefined)
    ctx.addIssue({
      code: 'custom',
      message: `${kind} entries have no default name: \`name\` is required`,
      input: value,
    });
}

// ---- namespaces, serviceAccounts, RBAC, config, storage -------------------------------------

/** NamespaceEntry is an item of `namespaces` (cluster-scoped: no `namespace` field). */
const NamespaceEntrySchema = gated(clusterCommonShape);
/** NamespaceEntry is a namespace entry. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface NamespaceEntry extends z.output<typeof NamespaceEntrySchema> {}
/** NamespaceEntry is an item of `namespaces` (cluster-scoped: no `namespace` field). */
export const NamespaceEntry: z.ZodType<NamespaceEntry> = NamespaceEntrySchema.meta({ id: 'NamespaceEntry' });

/** ServiceAccountEntry is an item of `serviceAccounts`. */
const ServiceAccountEntrySchema = gated({
  ...commonShape,
  imagePullSecrets: TplList.default([]),
  automountServiceAccountToken: BoolLike.optional(),
});
/** ServiceAccountEntry is a service account entry. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface ServiceAccountEntry extends z.output<typeof ServiceAccountEntrySchema> {}
/** ServiceAccountEntry is an item of `serviceAccounts`. */
export const ServiceAccountEntry: z.ZodType<ServiceAccountEntry> = ServiceAccountEntrySchema.meta({
  id: 'ServiceAccountEntry',
});

/** PolicyRule is one rule of a Role. */
const PolicyRuleSchema = z.strictObject({
  apiGroups: TplList.default(['']),
  resources: TplList.default([]),
  verbs: TplList.min(1, { error: 'a rule needs at least one verb' }),
  resourceNames: TplList.optional(),
});
/** PolicyRule is a Role rule. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface PolicyRule extends z.output<typeof PolicyRuleSchema> {}
/** PolicyRule is one rule of a Role. */
export const PolicyRule: z.ZodType<PolicyRule> = PolicyRuleSchema.meta({ id: 'PolicyRule' });

/** RoleEntry is an item of `roles`. */
const RoleEntrySchema = gated({ ...commonShape, rules: z.array(PolicyRule) });
/** RoleEntry is a role entry. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface RoleEntry extends z.output<typeof RoleEntrySchema> {}
/** RoleEntry is an item of `roles`. */
export const RoleEntry: z.ZodType<RoleEntry> = RoleEntrySchema.meta({ id: 'RoleEntry' });

/** RoleBindingEntry is an item of `roleBindings`. */
const RoleBindingEntrySchema = gated({
  ...commonShape,
  roleRef: z.strictObject({ kind: z.enum(['Role', 'ClusterRole']).default('Role'), name: Tpl }),
  subjects: z.array(
    z.strictObject({
      kind: z.enum(['ServiceAccount', 'User', 'Group']).default('ServiceAccount'),
      name: Tpl,
      namespace: Tpl.optional(),
    }),
  ),
});
/** RoleBindingEntry is a role binding entry. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface RoleBindingEntry extends z.output<typeof RoleBindingEntrySchema> {}
/** RoleBindingEntry is an item of `roleBindings`. */
export const RoleBindingEntry: z.ZodType<RoleBindingEntry> = RoleBindingEntrySchema.meta({
  id: 'RoleBindingEntry',
});

/** SecretTls generates a CA and a server certificate (docs/reference/katalog.md §7.2). */
const SecretTlsSchema = z.strictObject({
  commonName: Tpl.optional(),
  dnsNames: TplList.optional(),
  validFor: Duration.optional(),
  organization: Tpl.default('orkestra'),
});
/** SecretTls is a TLS generation block. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface SecretTls extends z.output<typeof SecretTlsSchema> {}
/** SecretTls generates a CA and a server certificate (docs/reference/katalog.md §7.2). */
export const SecretTls: z.ZodType<SecretTls> = SecretTlsSchema.meta({ id: 'SecretTls' });

/**
 * SecretCopyFrom names the Secret whose data a secrets entry copies (docs/reference/katalog.md §7.2).
 * A literal namespace must be a namespace name. Whether a template may pick the namespace, or the
 * Secret of another namespace, depends on the entry's scope and is checked there (checkCopySources).
 */
const SecretCopyFromSchema = z
  .strictObject({ name: Tpl, namespace: Tpl.optional() })
  .superRefine((from, ctx) => {
    const namespace = from.namespace;
    if (namespace !== undefined && !isTemplate(namespace) && !isNamespaceName(namespace))
      ctx.addIssue({
        code: 'custom',
        message: 'must be a namespace name (DNS-1123 label)',
        path: ['namespace'],
        input: namespace,
      });
  });
/** SecretCopyFrom is a copy source. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface SecretCopyFrom extends z.output<typeof SecretCopyFromSchema> {}
/** SecretCopyFrom names the Secret a secrets entry copies its data from. */
const SecretCopyFrom: z.ZodType<SecretCopyFrom> = SecretCopyFromSchema.meta({ id: 'SecretCopyFrom' });

/** SecretEntry is an item of `secrets`; `rotateAfter` and `tls` imply `once`, `tls` implies type `kubernetes.io/tls`. */
const SecretEntrySchema = gated({
  ...commonShape,
  type: Tpl.optional(),
  data: TplMap.default({}),
  once: z.boolean().default(false),
  rotateAfter: Duration.optional(),
  tls: SecretTls.optional(),
  copyFrom: SecretCopyFrom.optional(),
})
  .superRefine((entry, ctx) => {
    if (entry.copyFrom !== undefined && entry.tls !== undefined)
      ctx.addIssue({
        code: 'custom',
        message: '`copyFrom` and `tls` are exclusive: a Secret is either copied or generated',
        path: ['copyFrom'],
        input: entry.copyFrom,
      });
    if (entry.copyFrom !== undefined && (entry.once || entry.rotateAfter !== undefined))
      ctx.addIssue({
        code: 'custom',
        message:
          '`copyFrom` cannot be combined with `once` or `rotateAfter`: a copy follows its source (declare it under onCreate to create it once)',
        path: ['copyFrom'],
        input: entry.copyFrom,
      });
  })
  .transform((entry) => ({
    ...entry,
    // A copy without `type` takes the source's type (docs/reference/katalog.md §7.2).
    type:
      entry.type ??
      (entry.tls !== undefined ? 'kubernetes.io/tls' : entry.copyFrom !== undefined ? undefined : 'Opaque'),
    once: entry.once || entry.rotateAfter !== undefined || entry.tls !== undefined,
  }));
/** SecretEntry is a secret entry. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface SecretEntry extends z.output<typeof SecretEntrySchema> {}
/** SecretEntry is an item of `secrets`; `rotateAfter` and `tls` imply `once`, `tls` implies type `kubernetes.io/tls`. */
export const SecretEntry: z.ZodType<SecretEntry> = SecretEntrySchema.meta({ id: 'SecretEntry' });

/** ConfigMapEntry is an item of `configMaps`. */
const ConfigMapEntrySchema = gated({ ...commonShape, data: TplMap.default({}) });
/** ConfigMapEntry is a config map entry. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface ConfigMapEntry extends z.output<typeof ConfigMapEntrySchema> {}
/** ConfigMapEntry is an item of `configMaps`. */
export const ConfigMapEntry: z.ZodType<ConfigMapEntry> = ConfigMapEntrySchema.meta({ id: 'ConfigMapEntry' });

/** PersistentVolumeClaimEntry is an item of `persistentVolumeClaims` (alias `pvcs`); `name` is required. */
const PersistentVolumeClaimEntrySchema = gated({
  ...commonShape,
  storage: Quantity,
  accessModes: TplList.default(['ReadWriteOnce']),
  storageClassName: Tpl.optional(),
  volumeMode: Tpl.optional(),
  volumeName: Tpl.optional(),
}).superRefine((entry, ctx) => requireName(entry, ctx, 'persistentVolumeClaims'));
/** PersistentVolumeClaimEntry is a PVC entry. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface PersistentVolumeClaimEntry extends z.output<typeof PersistentVolumeClaimEntrySchema> {}
/** PersistentVolumeClaimEntry is an item of `persistentVolumeClaims` (alias `pvcs`); `name` is required. */
export const PersistentVolumeClaimEntry: z.ZodType<PersistentVolumeClaimEntry> =
  PersistentVolumeClaimEntrySchema.meta({ id: 'PersistentVolumeClaimEntry' });

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

// ---- workloads (docs/reference/katalog.md §7.3) -----------------------------------------------------------------

/** DeploymentEntry is an item of `deployments`. */
const DeploymentEntrySchema = gated({
  ...commonShape,
  ...containerShape,
  ...servingShape,
  replicas: IntLike.default(1),
  rollingUpdate: z
    .strictObject({ maxSurge: IntOrPercent.optional(), maxUnavailable: IntOrPercent.optional() })
    .optional(),
}).superRefine(portsExclusive);
/** DeploymentEntry is a deployment entry. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface DeploymentEntry extends z.output<typeof DeploymentEntrySchema> {}
/** DeploymentEntry is an item of `deployments`. */
export const DeploymentEntry: z.ZodType<DeploymentEntry> = DeploymentEntrySchema.meta({
  id: 'DeploymentEntry',
});

/** VolumeClaimTemplate is a StatefulSet volume claim template; `storageSize` and `storageClass` are accepted aliases. */
const VolumeClaimTemplateSchema = z
  .strictObject({
    name: Tpl.default('data'),
    storage: Quantity.optional(),
    storageSize: Quantity.optional(),
    storageClassName: Tpl.optional(),
    storageClass: Tpl.optional(),
    accessModes: TplList.default(['ReadWriteOnce']),
    mountPath: Tpl.default('/data'),
  })
  .superRefine((value, ctx) => {
    if (value.storage === undefined && value.storageSize === undefined)
      ctx.addIssue({ code: 'custom', message: '`storage` is required', input: value });
    exclusive(ctx, value, 'storage', 'storageSize');
    exclusive(ctx, value, 'storageClassName', 'storageClass');
  })
  .transform(({ storageSize, storageClass, storage, storageClassName, ...rest }) => ({
    ...rest,
    storage: storage ?? storageSize ?? '',
    ...((storageClassName ?? storageClass) === undefined
      ? {}
      : { storageClassName: storageClassName ?? storageClass }),
  }));
/** VolumeClaimTemplate is a volume claim template. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface VolumeClaimTemplate extends z.output<typeof VolumeClaimTemplateSchema> {}
/** VolumeClaimTemplate is a StatefulSet volume claim template; `storageSize` and `storageClass` are accepted aliases. */
export const VolumeClaimTemplate: z.ZodType<VolumeClaimTemplate> = VolumeClaimTemplateSchema.meta({
  id: 'VolumeClaimTemplate',
});

/** StatefulSetEntry is an item of `statefulSets`. */
const StatefulSetEntrySchema = gated({
  ...commonShape,
  ...containerShape,
  ...servingShape,
  replicas: IntLike.default(1),
  serviceName: Tpl.optional(),
  volumeClaimTemplates: z.array(VolumeClaimTemplate).default([]),
  podManagementPolicy: Tpl.optional(),
  rollingUpdate: z.strictObject({ maxUnavailable: IntOrPercent.optional() }).optional(),
}).superRefine(portsExclusive);
/** StatefulSetEntry is a stateful set entry. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface StatefulSetEntry extends z.output<typeof StatefulSetEntrySchema> {}
/** StatefulSetEntry is an item of `statefulSets`. */
export const StatefulSetEntry: z.ZodType<StatefulSetEntry> = StatefulSetEntrySchema.meta({
  id: 'StatefulSetEntry',
});

const jobShape = {
  backoffLimit: IntLike.default(3),
  restartPolicy: Tpl.default('OnFailure'),
};

const { podLabels: _podLabels, podAnnotations: _podAnnotations, ...podContainerShape } = containerShape;

/**
 * PodEntry is an item of `pods` (upstream Orkestra's key): one container and its serving fields;
 * the Pod's own `labels`/`annotations` take the place of `podLabels`/`podAnnotations`.
 */
const PodEntrySchema = gated({
  ...commonShape,
  ...podContainerShape,
  ...servingShape,
  restartPolicy: Tpl.default('Always'),
}).superRefine(portsExclusive);
/** PodEntry is a pod entry. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface PodEntry extends z.output<typeof PodEntrySchema> {}
/** PodEntry is an item of `pods` (create-only in every group). */
export const PodEntry: z.ZodType<PodEntry> = PodEntrySchema.meta({ id: 'PodEntry' });

/** JobEntry is an item of `jobs` (create-only in every group, never pruned). */
const JobEntrySchema = gated({
  ...commonShape,
  ...containerShape,
  ...jobShape,
  activeDeadlineSeconds: IntLike.optional(),
  ttlSecondsAfterFinished: IntLike.optional(),
});
/** JobEntry is a job entry. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface JobEntry extends z.output<typeof JobEntrySchema> {}
/** JobEntry is an item of `jobs` (create-only in every group, never pruned). */
export const JobEntry: z.ZodType<JobEntry> = JobEntrySchema.meta({ id: 'JobEntry' });

/** CronJobEntry is an item of `cronJobs`; a literal `schedule` is checked as a cron expression. */
const CronJobEntrySchema = gated({
  ...commonShape,
  ...containerShape,
  ...jobShape,
  schedule: CronSchedule,
  timeZone: Tpl.optional(),
  suspend: BoolLike.default(false),
  concurrencyPolicy: Tpl.default('Allow'),
  successfulJobsHistoryLimit: IntLike.default(3),
  failedJobsHistoryLimit: IntLike.default(1),
  startingDeadlineSeconds: IntLike.optional(),
  activeDeadlineSeconds: IntLike.optional(),
  ttlSecondsAfterFinished: IntLike.optional(),
});
/** CronJobEntry is a cron job entry. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface CronJobEntry extends z.output<typeof CronJobEntrySchema> {}
/** CronJobEntry is an item of `cronJobs`; a literal `schedule` is checked as a cron expression. */
export const CronJobEntry: z.ZodType<CronJobEntry> = CronJobEntrySchema.meta({ id: 'CronJobEntry' });

// ---- networking (docs/reference/katalog.md §7.4) ----------------------------------------------------------------

const ServicePort = z.strictObject({
  name: Tpl.optional(),
  port: IntLike,
  targetPort: IntOrName.optional(),
  protocol: Tpl.default('TCP'),
  nodePort: IntLike.optional(),
});

/** ServiceEntry is an item of `services`. */
const ServiceEntrySchema = gated({
  ...commonShape,
  type: Tpl.default('ClusterIP'),
  headless: BoolLike.default(false),
  port: IntLike.optional(),
  targetPort: IntOrName.optional(),
  protocol: Tpl.default('TCP'),
  nodePort: IntLike.optional(),
  ports: z.array(ServicePort).optional(),
  workload: Tpl.optional(),
  selector: TplMap.default({}),
}).superRefine((entry, ctx) => {
  exclusive(ctx, entry, 'port', 'ports');
  if (entry.port === undefined && entry.ports === undefined)
    ctx.addIssue({ code: 'custom', message: 'a service needs `port` or `ports`', input: entry });
  if (entry.ports !== undefined && entry.ports.length > 1) {
    entry.ports.forEach((port, index) => {
      if (port.name === undefined)
        ctx.addIssue({
          code: 'custom',
          message: '`name` is required when a service has more than one port',
          path: ['ports', index],
          input: port,
        });
    });
  }
});
/** ServiceEntry is a service entry. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface ServiceEntry extends z.output<typeof ServiceEntrySchema> {}
/** ServiceEntry is an item of `services`. */
export const ServiceEntry: z.ZodType<ServiceEntry> = ServiceEntrySchema.meta({ id: 'ServiceEntry' });

/** IngressEntry is an item of `ingresses` (one rule, one path). */
const IngressEntrySchema = gated({
  ...commonShape,
  host: Tpl.optional(),
  path: Tpl.default('/'),
  pathType: Tpl.default('Prefix'),
  className: Tpl.optional(),
  serviceName: Tpl.optional(),
  servicePort: IntOrName.optional(),
  tls: z
    .strictObject({
      create: z.boolean().default(false),
      secretName: Tpl.optional(),
      hosts: TplList.optional(),
      validFor: Duration.default('1y'),
    })
    .optional(),
});
/** IngressEntry is an ingress entry. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface IngressEntry extends z.output<typeof IngressEntrySchema> {}
/** IngressEntry is an item of `ingresses` (one rule, one path). */
export const IngressEntry: z.ZodType<IngressEntry> = IngressEntrySchema.meta({ id: 'IngressEntry' });

const NetworkPeer = z.strictObject({
  podSelector: TemplateValue.optional(),
  namespaceSelector: TemplateValue.optional(),
  ipBlock: z.strictObject({ cidr: Tpl, except: TplList.optional() }).optional(),
});
const NetworkPolicyPort = z.strictObject({ protocol: Tpl.optional(), port: IntOrName.optional() });

/** NetworkPolicyEntry is an item of `networkPolicies`; `name` is required. */
const NetworkPolicyEntrySchema = gated({
  ...commonShape,
  profile: z
    .enum(['deny-all', 'deny-all-ingress', 'deny-all-egress', 'allow-same-namespace', 'allow-dns-egress'])
    .optional(),
  podSelector: TplMap.default({}),
  ingress: z
    .array(
      z.strictObject({ from: z.array(NetworkPeer).optional(), ports: z.array(NetworkPolicyPort).optional() }),
    )
    .optional(),
  egress: z
    .array(
      z.strictObject({ to: z.array(NetworkPeer).optional(), ports: z.array(NetworkPolicyPort).optional() }),
    )
    .optional(),
  policyTypes: z.array(z.enum(['Ingress', 'Egress'])).optional(),
}).superRefine((entry, ctx) => {
  requireName(entry, ctx, 'networkPolicies');
  exclusive(ctx, entry, 'profile', 'ingress');
  exclusive(ctx, entry, 'profile', 'egress');
});
/** NetworkPolicyEntry is a network policy entry. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface NetworkPolicyEntry extends z.output<typeof NetworkPolicyEntrySchema> {}
/** NetworkPolicyEntry is an item of `networkPolicies`; `name` is required. */
export const NetworkPolicyEntry: z.ZodType<NetworkPolicyEntry> = NetworkPolicyEntrySchema.meta({
  id: 'NetworkPolicyEntry',
});

// ---- scaling (docs/reference/katalog.md §7.5) ---------------------------------------------------------------------

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
  .transform((entry) => ({
    ...entry,
    ...(entry.targetCPUUtilizationPercentage === undefined &&
    entry.targetMemoryUtilizationPercentage === undefined
      ? { targetCPUUtilizationPercentage: 80 }
      : {}),
  }));
/** HpaEntry is a horizontal pod autoscaler entry. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface HpaEntry extends z.output<typeof HpaEntrySchema> {}
/** HpaEntry is an item of `hpa`; CPU target defaults to 80 unless a memory target is set. */
export const HpaEntry: z.ZodType<HpaEntry> = HpaEntrySchema.meta({ id: 'HpaEntry' });

/** PdbEntry is an item of `pdb`; `minAvailable: 1` when neither bound is set. */
const PdbEntrySchema = gated({
  ...commonShape,
  minAvailable: IntOrPercent.optional(),
  maxUnavailable: IntOrPercent.optional(),
  workload: Tpl.optional(),
  selector: TplMap.default({}),
  unhealthyPodEvictionPolicy: Tpl.optional(),
})
  .superRefine((entry, ctx) => exclusive(ctx, entry, 'minAvailable', 'maxUnavailable'))
  .transform((entry) => ({
    ...entry,
    ...(entry.minAvailable === undefined && entry.maxUnavailable === undefined ? { minAvailable: 1 } : {}),
  }));
/** PdbEntry is a pod disruption budget entry. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface PdbEntry extends z.output<typeof PdbEntrySchema> {}
/** PdbEntry is an item of `pdb`; `minAvailable: 1` when neither bound is set. */
export const PdbEntry: z.ZodType<PdbEntry> = PdbEntrySchema.meta({ id: 'PdbEntry' });

// ---- custom (docs/reference/katalog.md §7.6) ------------------------------------------------------------------------

const CustomMetadata = z.strictObject({
  name: Tpl,
  namespace: Tpl.optional(),
  labels: LabelMap.default({}),
  annotations: AnnotationMap.default({}),
});

const { name: _n, namespace: _ns, labels: _l, annotations: _a, ...customCommonShape } = commonShape;

/**
 * CustomEntry is an item of `custom`: any kind. `name`, `namespace`, `labels` and `annotations`
 * live under `metadata`; every other top-level key (`spec`, `data`, …) is part of the manifest and
 * kept as written, with every string leaf a template.
 */
const CustomEntrySchema = z
  .object({
    apiVersion: Literal,
    kind: Literal,
    metadata: CustomMetadata,
    namespaced: z.boolean().optional(),
    ...customCommonShape,
    ...gateShape,
  })
  .catchall(TemplateValue)
  .superRefine((entry, ctx) => {
    for (const key of ['name', 'namespace', 'labels', 'annotations']) {
      if (key in entry)
        ctx.addIssue({
          code: 'custom',
          message: `custom entries take \`metadata.${key}\`, not a top-level \`${key}\``,
          path: [key],
          input: entry[key],
        });
    }
    if ('status' in entry)
      ctx.addIssue({
        code: 'custom',
        message: '`status` is not allowed in custom entries',
        path: ['status'],
        input: entry['status'],
      });
    checkGate(entry as GateInput, ctx);
  })
  .transform((entry) => normalizeGate(entry as typeof entry & GateInput));
/** CustomEntry is a custom entry; manifest keys other than the known ones stay at the top level. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface CustomEntry extends z.output<typeof CustomEntrySchema> {}
/**
 * CustomEntry is an item of `custom`: any kind. `name`, `namespace`, `labels` and `annotations`
 * live under `metadata`; every other top-level key (`spec`, `data`, …) is part of the manifest and
 * kept as written, with every string leaf a template.
 */
export const CustomEntry: z.ZodType<CustomEntry> = CustomEntrySchema.meta({ id: 'CustomEntry' });

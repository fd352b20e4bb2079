import { z } from 'zod';
import { Rollout } from './rollout.js';
import { Duration, isDuration, parseDuration } from '../duration.js';
import { upstreamKindNote } from '../upstream/document-kinds.js';
import {
  KATALOG_API_VERSION,
  KATALOG_KIND,
  UPSTREAM_API_VERSIONS,
  UPSTREAM_GENERATIONS,
} from '../metadata.js';
import { closestMatch } from '../suggest.js';
import { REPO_HOST_PATTERN, repoHostAllowed, repoHostOf } from '../repo-hosts.js';
import { gated, gateShape, checkGate, normalizeGate } from './condition.js';
import type { GateInput } from './condition.js';
import {
  Autoscale,
  Cleanup,
  DependsOn,
  EmitEvents,
  EnrichItem,
  WatchItem,
  Mutation,
  Normalize,
  ProviderBlocks,
  ProviderRef,
  Queue,
  PreReconcile,
  Requeue,
  RollbackTrigger,
  StatusBlock,
  Validation,
} from './crd-parts.js';
import {
  CrossRead,
  DockerHook,
  ExternalCall,
  GitHook,
  HOISTED_HOOKS,
  ModuleHook,
  RemoteReconciler,
} from './hooks.js';
import { checkVersions, Conversion, CrdVersion } from './versions.js';
import {
  DnsLabel,
  EntryName,
  JsonMap,
  LabelMap,
  Literal,
  AnnotationMap,
  Tpl,
  isTemplate,
} from './primitives.js';
import { RESOURCE_KINDS } from '../kinds/index.js';
import type { KindTable } from '../kinds/index.js';
import { JobEntry } from '../kinds/jobs.js';
import { PersistentVolumeClaimEntry } from '../kinds/persistent-volume-claims.js';
import { Notification } from './notification.js';
import { Lifecycle, Publish } from './lifecycle.js';

/** EntryListShape is one `z.array(entry).default([])` per registered kind, keyed by list key. */
type EntryListShape = {
  readonly [T in KindTable[number] as T['listKey']]: z.ZodDefault<z.ZodArray<T['entry']>>;
};

/** resourceListShape is the resource lists of a group, derived from the kind table (kinds/index.ts). */
const resourceListShape = Object.fromEntries(
  RESOURCE_KINDS.map((info) => [info.listKey, z.array(info.entry).default([])]),
) as unknown as EntryListShape;

/**
 * ResourceGroupInput is `onCreate`/`onReconcile` as written: the resource lists, `pvcs` (alias of
 * `persistentVolumeClaims`), the gate, and `external`/`git`/`docker`, which the operatorBox hoists.
 */
const ResourceGroupInput = z
  .strictObject({
    ...resourceListShape,
    persistentVolumeClaims: z.array(PersistentVolumeClaimEntry).optional(),
    pvcs: z.array(PersistentVolumeClaimEntry).optional(),
    ...gateShape,
    external: z.array(ExternalCall).optional(),
    git: GitHook.optional(),
    docker: DockerHook.optional(),
  })
  .superRefine((group, ctx) => {
    checkGate(group as GateInput, ctx);
    if (group.pvcs !== undefined && group.persistentVolumeClaims !== undefined) {
      ctx.addIssue({
        code: 'custom',
        message: '`pvcs` is an alias of `persistentVolumeClaims`; use one of them, not both',
        path: ['pvcs'],
        input: group.pvcs,
      });
    }
  })
  .transform(({ pvcs, persistentVolumeClaims, ...rest }) => {
    const { external, git, docker, ...group } = normalizeGate(rest as typeof rest & GateInput);
    return {
      group: { ...group, persistentVolumeClaims: persistentVolumeClaims ?? pvcs ?? [] },
      external: external ?? [],
      git,
      docker,
    };
  });

/** ResourceGroup is `onCreate` or `onReconcile` after loading: one list per kind (docs/reference/katalog.md §5.1) plus the group gate. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface ResourceGroup extends NonNullable<z.output<typeof ResourceGroupInput>['group']> {}

/**
 * ResourceGroup is the zod schema of `onCreate`/`onReconcile` on its own. Parsed standalone it drops
 * `external`, `git` and `docker` (OperatorBox hoists them); use OperatorBox to keep them.
 */
export const ResourceGroup: z.ZodType<ResourceGroup> = ResourceGroupInput.transform(
  (value) => value.group as ResourceGroup,
);

const RollbackSchema = z
  .strictObject({
    trigger: RollbackTrigger,
    reapplyPreviousSpec: z.boolean().default(false),
    onRollback: ResourceGroupInput.optional(),
  })
  .superRefine((rollback, ctx) => {
    for (const hook of ['external', 'git', 'docker'] as const) {
      const value = rollback.onRollback?.[hook];
      if (value === undefined || (Array.isArray(value) && value.length === 0)) continue;
      ctx.addIssue({
        code: 'custom',
        message: `onRollback holds resource lists only; \`${hook}\` belongs in operatorBox`,
        path: ['onRollback', hook],
        input: value,
      });
    }
  })
  .transform(({ onRollback, ...rest }) => ({
    ...rest,
    ...(onRollback === undefined ? {} : { onRollback: onRollback.group as ResourceGroup }),
  }));
/** Rollback is a `rollback` block after loading. */
export type Rollback = z.output<typeof RollbackSchema>;
/**
 * Rollback (docs/reference/katalog.md §20.4, upstream's `rollback` and `rollBackOnError`): after
 * `trigger.consecutiveFailures` failed reconciles in a row (all within `withinDuration` when given)
 * the CR is rolled back: its reconciles stop until its spec changes; `onRollback` children are
 * applied over `.previous` (the last spec that reconciled), or with `reapplyPreviousSpec` the
 * entry's templates are applied once more with that spec.
 */
export const Rollback: z.ZodType<Rollback, unknown> = RollbackSchema.meta({ id: 'Rollback' });

/** DeleteRef names a child to delete in an ordered onDelete group. */
const DeleteRef = z.strictObject({ name: Tpl.optional(), namespace: Tpl.optional() });
const CustomDeleteRef = z.strictObject({
  apiVersion: Literal,
  kind: Literal,
  metadata: z.strictObject({ name: Tpl, namespace: Tpl.optional() }),
});

/** DeleteListShape is one list of delete references per registered kind, keyed by list key. */
type DeleteListShape = {
  readonly [T in KindTable[number] as T['listKey']]: z.ZodDefault<
    z.ZodArray<T['listKey'] extends 'custom' ? typeof CustomDeleteRef : typeof DeleteRef>
  >;
};

/** deleteListShape derives the delete references of an onDelete group from the kind table; cluster-scoped kinds take no namespace. */
function deleteListShape(): DeleteListShape {
  return Object.fromEntries(
    RESOURCE_KINDS.map((info) => {
      const ref =
        info.listKey === 'custom'
          ? CustomDeleteRef
          : info.namespaced === false
            ? DeleteRef.omit({ namespace: true })
            : DeleteRef;
      return [info.listKey, z.array(ref).default([])];
    }),
  ) as unknown as DeleteListShape;
}

/** DeleteGroup is one step of ordered deletion (docs/reference/katalog.md §5.6). */
const DeleteGroupSchema = gated({
  name: Literal,
  propagation: z.enum(['Foreground', 'Background']).default('Foreground'),
  ...deleteListShape(),
});
/** DeleteGroup is an ordered-deletion group. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface DeleteGroup extends z.output<typeof DeleteGroupSchema> {}
/** DeleteGroup is one step of ordered deletion (docs/reference/katalog.md §5.6). */
export const DeleteGroup: z.ZodType<DeleteGroup> = DeleteGroupSchema.meta({ id: 'DeleteGroup' });

/** OnDelete is the deletion-time block: cleanup jobs and ordered deletion groups (docs/reference/katalog.md §5.6). */
const OnDeleteSchema = gated({
  timeout: Duration.default('5m'),
  jobs: z.array(JobEntry).default([]),
  ordered: z.boolean().default(false),
  groups: z.array(DeleteGroup).default([]),
}).superRefine((value, ctx) => {
  if (value.ordered && value.groups.length === 0)
    ctx.addIssue({
      code: 'custom',
      message: '`groups` is required when `ordered: true`',
      path: ['ordered'],
      input: value,
    });
  const seen = new Set<string>();
  value.groups.forEach((group, index) => {
    if (seen.has(group.name))
      ctx.addIssue({
        code: 'custom',
        message: `group name ${group.name} is used twice`,
        path: ['groups', index, 'name'],
        input: group.name,
      });
    seen.add(group.name);
  });
});
/** OnDelete is an onDelete block. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface OnDelete extends z.output<typeof OnDeleteSchema> {}
/** OnDelete is the deletion-time block: cleanup jobs and ordered deletion groups (docs/reference/katalog.md §5.6). */
export const OnDelete: z.ZodType<OnDelete> = OnDeleteSchema.meta({ id: 'OnDelete' });

function uniqueBy<T>(
  list: readonly T[],
  key: (item: T) => string,
  ctx: z.RefinementCtx,
  path: (index: number) => (string | number)[],
  what: string,
): void {
  const seen = new Map<string, number>();
  list.forEach((item, index) => {
    const k = key(item);
    const first = seen.get(k);
    if (first !== undefined)
      ctx.addIssue({
        code: 'custom',
        message: `${what} ${k} is already used by item ${first}`,
        path: path(index),
        input: k,
      });
    else seen.set(k, index);
  });
}

/**
 * OperatorBox is what happens for each CR (docs/reference/katalog.md §4). `external`, `git` and `docker` written
 * inside `onCreate`/`onReconcile` are hoisted: external calls from onReconcile first, then onCreate,
 * then `operatorBox.external`; at most one `git` and one `docker` may exist after hoisting.
 */
const OperatorBoxSchema = z
  .strictObject({
    finalizers: z.array(Literal).default([]),
    cross: z.array(CrossRead).default([]),
    git: GitHook.optional(),
    external: z.array(ExternalCall).default([]),
    docker: DockerHook.optional(),
    remote: RemoteReconciler.optional(),
    hooks: z.array(ModuleHook).default([]),
    onCreate: ResourceGroupInput.prefault({}),
    onReconcile: ResourceGroupInput.prefault({}),
    onDelete: OnDelete.optional(),
    providers: ProviderBlocks.default({}),
    status: StatusBlock.prefault({}),
  })
  .superRefine((box, ctx) => {
    for (const hook of HOISTED_HOOKS.blocks) {
      const places = [
        ...(box[hook] === undefined ? [] : [[hook]]),
        ...(box.onCreate?.[hook] === undefined ? [] : [['onCreate', hook]]),
        ...(box.onReconcile?.[hook] === undefined ? [] : [['onReconcile', hook]]),
      ];
      if (places.length > 1) {
        ctx.addIssue({
          code: 'custom',
          message: `at most one \`${hook}\` block is allowed (found ${places.length} after hoisting from onCreate/onReconcile)`,
          path: places[1] ?? [],
          input: hook,
        });
      }
    }
    // Refinements also run when children failed, so nested values may be partial here.
    const list = <T>(value: T[] | undefined): T[] => (Array.isArray(value) ? value : []);
    const external = [
      ...list(box.onReconcile?.external).map((call, i) => ({ call, path: ['onReconcile', 'external', i] })),
      ...list(box.onCreate?.external).map((call, i) => ({ call, path: ['onCreate', 'external', i] })),
      ...list(box.external).map((call, i) => ({ call, path: ['external', i] })),
    ];
    uniqueBy(
      external,
      (e) => e.call.name,
      ctx,
      (i) => [...(external[i]?.path ?? []), 'name'],
      'external call name',
    );
    uniqueBy(
      list(box.hooks),
      (h) => String(h?.name),
      ctx,
      (i) => ['hooks', i, box.hooks[i]?.name === box.hooks[i]?.function ? 'function' : 'name'],
      'hook name',
    );
    uniqueBy(
      list(box.cross),
      (c) => String(c?.as),
      ctx,
      (i) => ['cross', i, box.cross[i]?.as === box.cross[i]?.crd ? 'crd' : 'as'],
      'cross result name',
    );
  })
  .transform((box) => ({
    finalizers: box.finalizers,
    cross: box.cross,
    git: box.git ?? box.onReconcile.git ?? box.onCreate.git,
    external: [...box.onReconcile.external, ...box.onCreate.external, ...box.external],
    docker: box.docker ?? box.onReconcile.docker ?? box.onCreate.docker,
    remote: box.remote,
    hooks: box.hooks,
    onCreate: box.onCreate.group,
    onReconcile: box.onReconcile.group,
    onDelete: box.onDelete,
    providers: box.providers,
    status: box.status,
  }));
/** OperatorBox is an operatorBox after loading (hooks hoisted). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface OperatorBox extends z.output<typeof OperatorBoxSchema> {}
/**
 * OperatorBox is what happens for each CR (docs/reference/katalog.md §4). `external`, `git` and `docker` written
 * inside `onCreate`/`onReconcile` are hoisted: external calls from onReconcile first, then onCreate,
 * then `operatorBox.external`; at most one `git` and one `docker` may exist after hoisting.
 */
export const OperatorBox: z.ZodType<OperatorBox> = OperatorBoxSchema.meta({ id: 'OperatorBox' });

/** ApiTypes names the custom resource kind of a CRD entry (docs/reference/katalog.md §3.1). */
const ApiTypesSchema = z.strictObject({
  group: Literal.regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/, {
    error: 'group must be a DNS-1123 subdomain such as demo.example.com',
  }),
  version: Literal.regex(/^v\d+((alpha|beta)\d+)?$/, {
    error: 'version must look like v1, v1beta1 or v1alpha1',
  }),
  kind: Literal.regex(/^[A-Z][A-Za-z0-9]*$/, { error: 'kind must be PascalCase, e.g. Website' }),
  plural: Literal.regex(/^[a-z][a-z0-9]*$/, {
    error: 'plural must be a lowercase resource name, e.g. websites',
  }),
  singular: Literal.regex(/^[a-z][a-z0-9]*$/).optional(),
  shortNames: z.array(Literal).optional(),
});
/** ApiTypes is an apiTypes block. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface ApiTypes extends z.output<typeof ApiTypesSchema> {}
/** ApiTypes names the custom resource kind of a CRD entry (docs/reference/katalog.md §3.1). */
export const ApiTypes: z.ZodType<ApiTypes> = ApiTypesSchema.meta({ id: 'ApiTypes' });

const crdEntryShape = {
  enabled: z.boolean().default(true),
  description: Literal.default(''),
  apiTypes: ApiTypes,
  namespaced: z.boolean().default(true),
  schema: z.strictObject({ openAPIV3Schema: JsonMap }).optional(),
  /** The versions the CRD serves, each with its schema (docs/reference/katalog.md §3.4, ADR 0056); default `apiTypes.version` alone. */
  versions: z.array(CrdVersion).optional(),
  /** How objects convert between versions (docs/reference/katalog.md §3.4, ADR 0056; upstream's `conversion`). */
  conversion: Conversion.optional(),
  workers: z
    .int()
    .min(1, { error: 'workers must be between 1 and 50' })
    .max(50, { error: 'workers must be between 1 and 50' })
    .default(3),
  resync: Duration.default('10m'),
  forceConflict: z.boolean().default(true),
  crossAccess: z.boolean().default(false),
  queue: Queue.prefault({}),
  /** When to reconcile a CR again after a successful reconcile (docs/reference/katalog.md §20.2, upstream's `requeue`). */
  requeue: Requeue.optional(),
  /** Gates on a CR's reconciles (docs/reference/katalog.md §20.3, upstream's `preReconcile`). */
  preReconcile: PreReconcile.optional(),
  /** Stop, and optionally roll back, a CR that keeps failing (docs/reference/katalog.md §20.4, upstream's `rollback`). */
  rollback: Rollback.optional(),
  /** Kubernetes Events recorded after a reconcile (docs/reference/katalog.md §20.5, upstream's `emit.events`). */
  events: EmitEvents.optional(),
  /** Delete a CR a while after it reaches a terminal state (docs/reference/katalog.md §20.6, upstream's `runtime.cleanup`). */
  cleanup: Cleanup.optional(),
  autoscale: Autoscale.optional(),
  restrictedNamespaces: z.array(Literal).default([]),
  allowedNamespaces: z.array(Literal).default([]),
  /**
   * Accept wildcards and the `escalate`, `bind` and `impersonate` verbs in the entry's role rules
   * (docs/reference/katalog.md §7.1): `ork validate` then warns instead of refusing (ADR 0033).
   */
  allowEscalation: z.boolean().optional(),
  dependsOn: DependsOn.default([]),
  /**
   * Labels and annotations the runtime keeps on every CR of the entry (docs/reference/katalog.md §3.3,
   * ADR 0023; upstream's entry `labels`): values are templates over the CR, added or updated with one metadata patch, never removed.
   */
  labels: LabelMap.optional(),
  annotations: AnnotationMap.optional(),
  /** Objects besides children and cross targets whose changes re-queue CRs (docs/reference/katalog.md §3.2, ADR 0021). */
  watch: z.array(WatchItem).optional(),
  /**
   * What the runtime adds to the entry's children in the status-field context (docs/reference/katalog.md §3.5,
   * upstream's `enrich`): `pods` (`_pods`), `endpoints` (`_endpoints`), `owner` (`_owner`),
   * `backingpods` (`_backingPods`), `replicasets` (`_replicaSets`), `pvcs` (`_pvcs`) and `cronjob`
   * (`_lastJob`, `_lastSuccessfulJob`, `_activeJobs`), read from informers that only enriching Katalogs run.
   * An item `{<target>: {when, or}}` adds its target only while the conditions hold over the CR and
   * its children.
   */
  enrich: z.array(EnrichItem).default([]),
  /**
   * What `Ready` means (ADR 0009): `children` (default) is Synced and every child ready;
   * `reconciled` is Ready = Synced, upstream's meaning, which the loader sets for upstream dialects.
   */
  readiness: z.enum(['children', 'reconciled']).default('children'),
  normalize: Normalize.optional(),
  mutation: Mutation.optional(),
  validation: Validation.optional(),
  operatorBox: OperatorBox.prefault({}),
};

/**
 * checkValidationCalls refuses a `validation.external` call named like another one or like an
 * `operatorBox.external` call: both fill `external.<name>` (docs/reference/katalog.md §12).
 */
function checkValidationCalls(
  entry: {
    validation?: { external?: readonly { name: string }[] } | undefined;
    operatorBox?: { external?: readonly { name: string }[] } | undefined;
  },
  ctx: z.RefinementCtx,
): void {
  const taken = new Set((entry.operatorBox?.external ?? []).map((call) => call.name));
  (entry.validation?.external ?? []).forEach((call, i) => {
    if (taken.has(call.name))
      ctx.addIssue({
        code: 'custom',
        message: `external call name ${call.name} is used twice (validation.external and operatorBox.external both fill external.<name>)`,
        path: ['validation', 'external', i, 'name'],
        input: call.name,
      });
    taken.add(call.name);
  });
}

function refineCrdEntry(
  entry: { resync: string; queue: { maxDepth: number }; apiTypes: ApiTypes } & Parameters<
    typeof checkValidationCalls
  >[0] &
    Parameters<typeof checkVersions>[0],
  ctx: z.RefinementCtx,
): void {
  // A templated `copyFrom` source loads: the runtime copies it only when granted (katalog.md §7.2, ADR 0048).
  checkChildNamespaces(entry as unknown as ChildNamespaceInput, ctx);
  checkDockerTargets(entry as unknown as DockerTargetInput, ctx);
  checkValidationCalls(entry, ctx);
  checkVersions(entry, ctx);
  if (!isDuration(entry.resync)) return;
  const resync = parseDuration(entry.resync);
  if (resync === 0 && entry.queue?.maxDepth !== 0) {
    ctx.addIssue({
      code: 'custom',
      message: 'resync 0 is allowed only when queue.maxDepth is 0',
      path: ['resync'],
      input: entry.resync,
    });
  } else if (resync !== 0 && resync < 1_000) {
    // Upstream Katalogs use 5, 10 and 15 s; `ork validate --strict` warns below 30 s.
    ctx.addIssue({
      code: 'custom',
      message: `resync must be 0 or at least 1s, got ${entry.resync}`,
      path: ['resync'],
      input: entry.resync,
    });
  }
}

/** DockerTargetInput is the part of a parsed entry checkDockerTargets reads (defensively). */
interface DockerTargetInput {
  readonly operatorBox?: {
    readonly git?: unknown;
    readonly docker?: {
      readonly image?: unknown;
      readonly workingDirectory?: unknown;
      readonly push?: unknown;
    };
  };
}

/**
 * checkDockerTargets keeps a CR from choosing what the docker hook builds and where it is pushed
 * (docs/reference/katalog.md §16.2, ADR 0033): without a git hook, `workingDirectory` is a literal
 * (the runtime confines it to the work directory); with `push: true`, `image` names a literal
 * registry host.
 */
function checkDockerTargets(entry: DockerTargetInput, ctx: z.RefinementCtx): void {
  const docker = entry.operatorBox?.docker;
  if (docker == null || typeof docker !== 'object') return;
  if (entry.operatorBox?.git == null && isTemplate(docker.workingDirectory))
    ctx.addIssue({
      code: 'custom',
      message:
        'must be a literal without a git hook: a CR must not choose which directory of the operator is built (the build context stays inside --work-dir)',
      path: ['operatorBox', 'docker', 'workingDirectory'],
      input: docker.workingDirectory,
    });
  if (docker.push === true && typeof docker.image === 'string') {
    const host = docker.image.split('/')[0] ?? '';
    const named =
      docker.image.includes('/') && (host.includes('.') || host.includes(':') || host === 'localhost');
    if (!named || host.includes('{{') || host.includes('}}'))
      ctx.addIssue({
        code: 'custom',
        message:
          'with push: true, image must start with a literal registry host (registry.example.com/team/app:{{ spec.tag }}): a CR must not choose where the image is pushed',
        path: ['operatorBox', 'docker', 'image'],
        input: docker.image,
      });
  }
}

/** ChildNamespaceInput is the part of a parsed entry checkChildNamespaces reads (defensively). */
interface ChildNamespaceInput {
  readonly namespaced?: boolean;
  readonly allowedNamespaces?: readonly string[];
  readonly operatorBox?: {
    readonly cross?: readonly { readonly selector?: { readonly namespace?: string } }[];
    readonly onDelete?: { readonly groups?: readonly Record<string, unknown>[] };
  } & Partial<Record<'onCreate' | 'onReconcile', Record<string, unknown>>>;
}

/** CR_NAMESPACE matches a template that is exactly the CR's own namespace. */
const CR_NAMESPACE = /^\{\{\s*\.?metadata\.namespace\s*\}\}$/;

/** namespaceOf reads the namespace a resource entry (or a `custom` entry's metadata) names. */
function namespaceOf(item: unknown, listKey: string): { value: unknown; at: (string | number)[] } {
  if (item == null || typeof item !== 'object') return { value: undefined, at: [] };
  if (listKey === 'custom') {
    const metadata = (item as { metadata?: { namespace?: unknown } }).metadata;
    return { value: metadata?.namespace, at: ['metadata', 'namespace'] };
  }
  return { value: (item as { namespace?: unknown }).namespace, at: ['namespace'] };
}

/**
 * checkChildNamespaces keeps a namespaced entry's writes and reads in namespaces the Katalog's
 * author chose (docs/reference/katalog.md §6, §7.2, §15.2, ADR 0033): a child's namespace is absent
 * (the CR's), the CR's namespace, or a literal; a template is allowed only when the entry declares
 * `allowedNamespaces`, so the runtime's namespace guard (katalog.md §19) refuses anything outside them. A
 * `copyFrom` with a templated source name is refused when its destination may be another
 * namespace, and a cross read's templated `selector.namespace` needs `allowedNamespaces` too.
 */
function checkChildNamespaces(entry: ChildNamespaceInput, ctx: z.RefinementCtx): void {
  if (entry.namespaced === false) return;
  const guarded = (entry.allowedNamespaces ?? []).length > 0;
  const templated = (value: unknown): value is string =>
    isTemplate(value) && !CR_NAMESPACE.test(value.trim());
  const refuse = (path: (string | number)[], input: unknown, message: string): void =>
    ctx.addIssue({ code: 'custom', message, path, input });
  const groups: [string[], Record<string, unknown> | undefined][] = [
    [['operatorBox', 'onCreate'], entry.operatorBox?.onCreate],
    [['operatorBox', 'onReconcile'], entry.operatorBox?.onReconcile],
    ...(entry.operatorBox?.onDelete?.groups ?? []).map((group, i): [string[], Record<string, unknown>] => [
      ['operatorBox', 'onDelete', 'groups', String(i)],
      group,
    ]),
  ];
  for (const [base, group] of groups) {
    if (group == null || typeof group !== 'object') continue;
    for (const [listKey, list] of Object.entries(group)) {
      if (!Array.isArray(list)) continue;
      list.forEach((item: unknown, index) => {
        const { value, at } = namespaceOf(item, listKey);
        const path = [...base.map((p) => (/^\d+$/.test(p) ? Number(p) : p)), listKey, index, ...at];
        if (templated(value) && !guarded)
          refuse(
            path,
            value,
            "a templated namespace in a namespaced entry needs `allowedNamespaces` on the entry: a CR must not choose the namespace the operator writes into (use the CR's namespace, a literal, or declare allowedNamespaces)",
          );
        const from = (item as { copyFrom?: { name?: unknown; namespace?: unknown } } | null)?.copyFrom;
        const elsewhere = value != null && !(typeof value === 'string' && CR_NAMESPACE.test(value.trim()));
        if (from != null && isTemplate(from.name) && from.namespace == null && elsewhere)
          refuse(
            [...path.slice(0, -at.length), 'copyFrom', 'name'],
            from.name,
            "must be a literal source name when the copy's namespace may differ from the CR's: a CR must not copy a Secret or ConfigMap of its namespace into another one",
          );
      });
    }
  }
  (entry.operatorBox?.cross ?? []).forEach((cross, index) => {
    const namespace = cross?.selector?.namespace;
    if (templated(namespace) && !guarded)
      refuse(
        ['operatorBox', 'cross', index, 'selector', 'namespace'],
        namespace,
        'a templated selector.namespace in a namespaced entry needs `allowedNamespaces` on the entry: a CR must not choose the namespace it reads other CRs from',
      );
  });
}

/** CrdEntry is one item of `spec.crds` (docs/reference/katalog.md §3). */
const CrdEntrySchema = z.strictObject(crdEntryShape).superRefine(refineCrdEntry);
/** CrdEntry is a CRD entry after loading. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface CrdEntry extends z.output<typeof CrdEntrySchema> {}
/** CrdEntry is one item of `spec.crds` (docs/reference/katalog.md §3). */
export const CrdEntry: z.ZodType<CrdEntry> = CrdEntrySchema.meta({ id: 'CrdEntry' });

const CrdListItem = z
  .strictObject({ name: EntryName, ...crdEntryShape })
  .superRefine(refineCrdEntry)
  .transform(({ name, ...entry }) => ({ name, entry }));

/** CrdMap is `spec.crds`: the canonical map form, or a list whose items carry `name:` (converted to the map form). */
export const CrdMap = z
  .union([z.record(EntryName, CrdEntry), z.array(CrdListItem)], {
    error: 'spec.crds is a map of entry name to CRD entry (or a list of entries with `name`)',
  })
  .superRefine((crds, ctx) => {
    if (Array.isArray(crds)) {
      uniqueBy(
        crds,
        (item) => item.name,
        ctx,
        (i) => [i, 'name'],
        'CRD entry name',
      );
      if (crds.length === 0)
        ctx.addIssue({ code: 'custom', message: 'spec.crds needs at least one entry', input: crds });
    } else if (Object.keys(crds).length === 0)
      ctx.addIssue({ code: 'custom', message: 'spec.crds needs at least one entry', input: crds });
  })
  // A prototype-free map: a lookup by a user-written name (`crds[cross.crd]`, `crds['constructor']`)
  // finds only declared entries, never an Object.prototype member.
  .transform((crds): Record<string, CrdEntry> =>
    Object.assign(
      Object.create(null) as Record<string, CrdEntry>,
      Array.isArray(crds) ? Object.fromEntries(crds.map((item) => [item.name, item.entry])) : crds,
    ),
  );

/** KatalogMetadata names the operator (docs/reference/katalog.md §2.1). */
const KatalogMetadataSchema = z.strictObject({
  name: DnsLabel,
  description: Literal.default(''),
  version: Literal.default(''),
  labels: LabelMap.default({}),
  annotations: AnnotationMap.default({}),
});
/** KatalogMetadata is the Katalog's metadata. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface KatalogMetadata extends z.output<typeof KatalogMetadataSchema> {}
/** KatalogMetadata names the operator (docs/reference/katalog.md §2.1). */
export const KatalogMetadata: z.ZodType<KatalogMetadata> = KatalogMetadataSchema.meta({
  id: 'KatalogMetadata',
});

/**
 * DeletionProtection refuses deletes at admission (docs/reference/katalog.md §2.4, ADR 0050): of the
 * Katalog's CRDs (`crds`, default true) and of the children of its entries (`children`, default
 * false), unless the object carries `orkestra.konductor.io/allow-delete: "true"`. Absent: off.
 */
const DeletionProtectionSchema = z.strictObject({
  crds: z.boolean().default(true),
  children: z.boolean().default(false),
});
/** DeletionProtection is a loaded `spec.deletionProtection`. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface DeletionProtection extends z.output<typeof DeletionProtectionSchema> {}
/** DeletionProtection refuses deletes of the Katalog's CRDs and children at admission (docs/reference/katalog.md §2.4). */
export const DeletionProtection: z.ZodType<DeletionProtection> = DeletionProtectionSchema.meta({
  id: 'DeletionProtection',
});

/** KatalogSpec holds the CRD entries, providers and extra finalizers (docs/reference/katalog.md §2.2). */
const KatalogSpecSchema = z
  .strictObject({
    crds: CrdMap,
    providers: z.array(ProviderRef).default([]),
    finalizers: z.array(Literal).default([]),
    /** How a changed Katalog reaches live CRs; absent = all at once (docs/reference/katalog.md §2.3, ADR 0015). */
    rollout: Rollout.optional(),
    /**
     * Allow `regex` patterns that are templates (built from CR data at run time); they run on the
     * same linear-time engine as literal ones (docs/reference/katalog.md §8.3, ADR 0028). Default false.
     */
    allowTemplatedRegex: z.boolean().optional(),
    /**
     * Namespaces whose Secrets and ConfigMaps a `copyFrom` chosen by a CR (a template) may read
     * without a grant on the source (docs/reference/katalog.md §7.2, ADR 0048 and 0115). Default none.
     */
    allowedSourceNamespaces: z.array(DnsLabel).optional(),
    /** Refuse deletes of the Katalog's CRDs (and children) at admission; absent = off (docs/reference/katalog.md §2.4, ADR 0050). */
    deletionProtection: DeletionProtection.optional(),
    /**
     * The hosts git hooks may clone from (`github.com`, `*.example.com`); absent = any host. A literal
     * `repo` elsewhere is a load error; a templated one is refused when it renders (docs/reference/katalog.md §16.1, ADR 0040).
     */
    allowedRepoHosts: z
      .array(
        z.string().regex(REPO_HOST_PATTERN, {
          error: 'expected a host name, optionally with a leading "*." for its subdomains',
        }),
      )
      .min(1, { error: 'list at least one host, or leave allowedRepoHosts out' })
      .optional(),
    /** Teams told by `notify:` on conditions, their channels and interval gate (docs/reference/katalog.md §15.4, ADR 0060). */
    notification: Notification.optional(),
  })
  .superRefine((spec, ctx) => {
    uniqueBy(
      spec.providers,
      (p) => p.name,
      ctx,
      (i) => ['providers', i, 'name'],
      'provider name',
    );
    checkRepoHosts(spec, ctx);
    checkRepoText(spec, ctx);
  });

/**
 * checkRepoText refuses a git `repo` holding a control character anywhere, or whitespace in a
 * literal one (docs/reference/katalog.md §16.1): no repository URL needs them, and the URL parser
 * drops tabs and newlines, so the name resolved would differ from the one git is given. The
 * runtime's git hook refuses the same in a rendered repo.
 */
function checkRepoText(spec: { readonly crds: Record<string, CrdEntry> }, ctx: z.RefinementCtx): void {
  for (const [name, entry] of Object.entries(spec.crds)) {
    const repo = entry.operatorBox.git?.repo;
    if (repo == null) continue;
    // eslint-disable-next-line no-control-regex -- control characters are what is refused
    const bad = isTemplate(repo) ? /[\u0000-\u001f\u007f]/.exec(repo) : /[\s\u0000-\u001f\u007f]/u.exec(repo);
    if (bad != null)
      ctx.addIssue({
        code: 'custom',
        message: `git repo holds ${JSON.stringify(bad[0])} at offset ${bad.index}: a repository URL has no whitespace or control character`,
        path: ['crds', name, 'operatorBox', 'git', 'repo'],
        input: repo,
      });
  }
}

/**
 * checkRepoHosts refuses a git hook whose literal `repo` names a remote host outside
 * `spec.allowedRepoHosts` (docs/reference/katalog.md §16.1); a templated `repo` is checked when it
 * renders (the runtime's git hook), a local path stays the Katalog author's choice.
 */
function checkRepoHosts(
  spec: {
    readonly crds: Record<string, CrdEntry>;
    readonly allowedRepoHosts?: readonly string[] | undefined;
  },
  ctx: z.RefinementCtx,
): void {
  const allowed = spec.allowedRepoHosts;
  if (allowed == null || allowed.length === 0) return;
  for (const [name, entry] of Object.entries(spec.crds)) {
    const repo = entry.operatorBox.git?.repo;
    if (repo == null || isTemplate(repo)) continue;
    const host = repoHostOf(repo);
    if (host != null && !repoHostAllowed(host, allowed))
      ctx.addIssue({
        code: 'custom',
        message: `git repo host ${JSON.stringify(host)} is not in spec.allowedRepoHosts (${allowed.join(', ')})`,
        path: ['crds', name, 'operatorBox', 'git', 'repo'],
        input: repo,
      });
  }
}
/** KatalogSpec is the Katalog's spec. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface KatalogSpec extends z.output<typeof KatalogSpecSchema> {}
/** KatalogSpec holds the CRD entries, providers and extra finalizers (docs/reference/katalog.md §2.2). */
export const KatalogSpec: z.ZodType<KatalogSpec> = KatalogSpecSchema.meta({ id: 'KatalogSpec' });

/**
 * Katalog is the zod schema of a whole Katalog document (docs/reference/katalog.md §2). Parsing applies every
 * default and normalizes aliases: `or` → `anyOf`, `pvcs` → `persistentVolumeClaims`, the list form
 * of `spec.crds` → the map form, and `external`/`git`/`docker` hoisted out of groups. Cross-field
 * checks that need the whole document (dependsOn, provider names, duplicate children) are done by
 * `loadKatalog`, not by this schema.
 */
const KatalogSchema = z.strictObject({
  apiVersion: z.literal(KATALOG_API_VERSION, {
    error: (issue) => {
      const near =
        typeof issue.input === 'string'
          ? closestMatch(issue.input, [KATALOG_API_VERSION, ...UPSTREAM_API_VERSIONS])
          : undefined;
      const upstream = UPSTREAM_GENERATIONS.map((g) =>
        g.kind === KATALOG_KIND ? g.apiVersion : `${g.apiVersion} with kind ${g.kind}`,
      ).join(', ');
      return `apiVersion must be ${KATALOG_API_VERSION} (or an upstream one: ${upstream})${near == null ? '' : `; did you mean ${near}?`}`;
    },
  }),
  kind: z.literal(KATALOG_KIND, {
    error: (issue) => {
      const upstream = upstreamKindNote(issue.input);
      return `kind must be ${KATALOG_KIND}${upstream == null ? '' : ` (${upstream})`}`;
    },
  }),
  metadata: KatalogMetadata,
  /** Maturity, deprecation and verified versions (docs/reference/katalog.md §2.5, ADR 0063). */
  lifecycle: Lifecycle.optional(),
  /** How the Katalog is published; `signing` is recorded, not verified (docs/reference/katalog.md §2.6, ADR 0063). */
  publish: Publish.optional(),
  spec: KatalogSpec,
});
/** Katalog is a loaded, defaulted Katalog. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface Katalog extends z.output<typeof KatalogSchema> {}
/**
 * Katalog is the zod schema of a whole Katalog document (docs/reference/katalog.md §2). Parsing applies every
 * default and normalizes aliases: `or` → `anyOf`, `pvcs` → `persistentVolumeClaims`, the list form
 * of `spec.crds` → the map form, and `external`/`git`/`docker` hoisted out of groups. Cross-field
 * checks that need the whole document (dependsOn, provider names, duplicate children) are done by
 * `loadKatalog`, not by this schema.
 */
export const Katalog: z.ZodType<Katalog> = KatalogSchema.meta({
  id: 'Katalog',
  title: 'Orkestra Katalog',
  description:
    'One operator: CRD entries, their operatorBox, and providers (orkestra.konductor.io/v1alpha1).',
});
/** KatalogInput is a Katalog as written (before defaults and alias normalization). */
export type KatalogInput = z.input<typeof KatalogSchema>;

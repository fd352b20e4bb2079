/**
 * Every label, annotation and finalizer key the runtime reads or writes (docs/reference/katalog.md §22). Apart from
 * the standard `app.kubernetes.io/managed-by`, every key derives from {@link ORKESTRA_PREFIX}.
 */

/** ORKESTRA_PREFIX is the one key prefix of every Orkestra label, annotation and finalizer. */
export const ORKESTRA_PREFIX = 'orkestra.konductor.io/';

/** KATALOG_API_VERSION is the only `apiVersion` a Katalog document may declare. */
export const KATALOG_API_VERSION = `${ORKESTRA_PREFIX}v1alpha1` as const;

/**
 * UPSTREAM_GENERATIONS is the one table of upstream Katalog headers the loader accepts and maps
 * (docs/reference/katalog.md §24, ADR 0081): each upstream `apiVersion` with the document `kind` it
 * goes with. Anything not in it is refused at `apiVersion` or `kind`.
 */
export const UPSTREAM_GENERATIONS = [
  { apiVersion: 'orkestra.konductor.io/v1Alpha', kind: 'Katalog' },
  { apiVersion: 'orkestra.orkspace.io/v1', kind: 'Katalog' },
  // The oldest generation (G1 files of upstream's early releases).
  { apiVersion: 'controller.orkestra.io/v1', kind: 'Katalog' },
  // The newest: upstream renamed Inrun, which spells the Katalog `Catalog` (and a motif `Module`).
  { apiVersion: 'inrun.dev/v1', kind: 'Catalog' },
] as const;

/** UPSTREAM_API_VERSIONS are the Katalog apiVersions of upstream generations the loader accepts (and maps, docs/reference/katalog.md §24). */
export const UPSTREAM_API_VERSIONS: readonly (typeof UPSTREAM_GENERATIONS)[number]['apiVersion'][] =
  UPSTREAM_GENERATIONS.map((generation) => generation.apiVersion);

/** KATALOG_KIND is the only `kind` a Katalog document may declare. */
export const KATALOG_KIND = 'Katalog';

/** MANAGED_BY is the value of the `app.kubernetes.io/managed-by` label and the server-side apply field manager. */
export const MANAGED_BY = 'orkestra';

/** OrkestraLabel lists the labels stamped on every child (docs/reference/katalog.md §22.1). */
export const OrkestraLabel = {
  /** `app.kubernetes.io/managed-by: orkestra`. */
  ManagedBy: 'app.kubernetes.io/managed-by',
  /** The owning CR's UID; decides ownership and pruning. */
  OwnerUid: `${ORKESTRA_PREFIX}owner-uid`,
  /** The owning CR's name. */
  OwnerName: `${ORKESTRA_PREFIX}owner-name`,
  /** The CRD entry name. */
  Crd: `${ORKESTRA_PREFIX}crd`,
  /** The child's name; used in workload selectors and pod templates. */
  Child: `${ORKESTRA_PREFIX}child`,
  /**
   * CR and child, sharded operators only: the replica (shard ID) that owns the CR; its CR and
   * child informers select on it (docs/reference/runtime.md §25, ADR 0045).
   */
  Shard: `${ORKESTRA_PREFIX}shard`,
  /** CR, sharded operators only: set by the sharder to ask the owning shard to hand the CR over (ADR 0045). */
  Drain: `${ORKESTRA_PREFIX}drain`,
} as const;
/** OrkestraLabel is one of the runtime's label keys. */
export type OrkestraLabel = (typeof OrkestraLabel)[keyof typeof OrkestraLabel];

/** OrkestraAnnotation lists the annotations stamped on children and CRs (docs/reference/katalog.md §22). */
export const OrkestraAnnotation = {
  /** Child: where its entry is declared, e.g. `onReconcile.deployments[0]`. */
  Source: `${ORKESTRA_PREFIX}source`,
  /** Child with `autoscale`: RFC 3339 time of its last replica change (katalog.md §18.4). */
  AutoscaledAt: `${ORKESTRA_PREFIX}autoscaled-at`,
  /** Apply-mode child: hash of the last applied desired manifest. */
  AppliedHash: `${ORKESTRA_PREFIX}applied-hash`,
  /** Secret with `rotateAfter` or `tls`: RFC 3339 generation time. */
  GeneratedAt: `${ORKESTRA_PREFIX}generated-at`,
  /** Secret with `rotateAfter`: the declared duration. */
  RotateAfter: `${ORKESTRA_PREFIX}rotate-after`,
  /** CR with a `git` block: the last commit of a successful reconcile. */
  LastCommit: `${ORKESTRA_PREFIX}last-commit`,
  /** CR with a `docker` block: the last image built. */
  LastImage: `${ORKESTRA_PREFIX}last-image`,
  /** CR, set by people: pins the CR to a Katalog revision, overriding the rollout (docs/reference/runtime.md §24.2, ADR 0015). */
  Revision: `${ORKESTRA_PREFIX}revision`,
  /**
   * Source Secret or ConfigMap, set by its owners: the namespaces (comma-separated) whose CRs may
   * copy it with a `copyFrom` they chose (docs/reference/katalog.md §7.2, ADR 0048 and 0115), as a
   * ReferenceGrant does.
   */
  CopyTo: `${ORKESTRA_PREFIX}copy-to-namespaces`,
  /** CR of an entry with `rollback`: its last successfully reconciled spec, gzip + base64 JSON (katalog.md §20.4). */
  PreviousSpec: `${ORKESTRA_PREFIX}previous-spec`,
  /** CR of an entry with `rollback`: the generation at which it was rolled back (katalog.md §20.4). */
  RollbackAtGeneration: `${ORKESTRA_PREFIX}rollback-at-generation`,
  /** CR of an entry with `cleanup`: RFC 3339 time its cleanup conditions were first seen to hold (katalog.md §20.6). */
  CleanupPendingSince: `${ORKESTRA_PREFIX}cleanup-pending-since`,
  /** CRD or child, set by people: `"true"` lets a delete through deletion protection (docs/reference/katalog.md §2.4, ADR 0050). */
  AllowDelete: `${ORKESTRA_PREFIX}allow-delete`,
} as const;
/** OrkestraAnnotation is one of the runtime's annotation keys. */
export type OrkestraAnnotation = (typeof OrkestraAnnotation)[keyof typeof OrkestraAnnotation];

/** OrkestraFinalizer lists the runtime's finalizers (docs/reference/katalog.md §22.2). */
export const OrkestraFinalizer = {
  /** Added to every CR before any child is created; removed at the end of the deletion path. */
  Finalizer: `${ORKESTRA_PREFIX}finalizer`,
} as const;
/** OrkestraFinalizer is one of the runtime's finalizer names. */
export type OrkestraFinalizer = (typeof OrkestraFinalizer)[keyof typeof OrkestraFinalizer];

/**
 * isReservedLabelKey tells whether a user-declared label key is reserved (docs/reference/katalog.md §6): the
 * Orkestra prefix and `app.kubernetes.io/managed-by`.
 */
export function isReservedLabelKey(key: string): boolean {
  return key.startsWith(ORKESTRA_PREFIX) || key === OrkestraLabel.ManagedBy;
}

/** isReservedAnnotationKey tells whether a user-declared annotation key uses the reserved Orkestra prefix. */
export function isReservedAnnotationKey(key: string): boolean {
  return key.startsWith(ORKESTRA_PREFIX);
}

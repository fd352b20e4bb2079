import type { ResourceKindInfo } from '@orkestra/types';
import {
  isReservedAnnotationKey,
  isReservedLabelKey,
  MANAGED_BY,
  OrkestraAnnotation,
  OrkestraLabel,
  RESOURCE_KINDS,
} from '@orkestra/types';
import type { NormalizeRules } from './compare.js';
import { DEFAULT_RULES } from './compare.js';
import type { EnsureOptions } from './ensure.js';
import { ensureObject } from './ensure.js';
import { Fields, templateError } from './fields.js';
import type { KubeObject, ObjectRef } from './kube-object.js';
import { shortenLabelValue } from './label-value.js';
import type { EnsureResult, RemoveResult } from './operation-result.js';
import type { Owner } from './owner.js';
import { ownerReferenceFor } from './owner.js';
import type { RemoveOptions } from './remove.js';
import { removeObject } from './remove.js';

/** RenderedEntry is one Katalog resource entry after template rendering: plain JSON. */
export type RenderedEntry = Readonly<Record<string, unknown>>;

/**
 * EntrySource is what `resolve` gets: the rendered entry and where it is declared, relative to
 * the CRD entry (e.g. `onReconcile.deployments[0]`), which becomes the source annotation.
 */
export interface EntrySource<E = RenderedEntry> {
  readonly entry: E;
  readonly path: string;
}

/**
 * ResolveHints carries facts about the CR's other entries that some defaults depend on; the
 * reconciler computes them from the whole desired set.
 */
export interface ResolveHints {
  /** The CR's single Deployment/StatefulSet child, selected by services and pdb without `workload` and targeted by hpa. */
  readonly defaultWorkload?: { readonly kind: string; readonly name: string };
  /** The CR's single Service child and its first port, for ingress defaults. */
  readonly defaultService?: { readonly name: string; readonly port: number | string };
  /** This Deployment/StatefulSet is the target of an hpa child of the same CR: `replicas` is left out. */
  readonly hpaTargeted?: boolean;
  /** custom kinds: the scope from discovery (`KubeClient.discover`), unless the entry sets `namespaced`. */
  readonly namespaced?: boolean;
}

/** ResolvedChild is a desired child: its identity and full manifest. */
export interface ResolvedChild {
  readonly ref: ObjectRef;
  readonly manifest: KubeObject;
  /** Kinds that are never applied (Jobs): callers must use create mode. */
  readonly createOnly: boolean;
}

/**
 * KindModule is everything the runtime knows about one resource list of the Katalog: how an
 * entry becomes a manifest (`resolve`), how the kind is compared (`rules`), and how it is written
 * (`ensure`) and deleted (`remove`).
 */
export interface KindModule<E = RenderedEntry> {
  /** The Katalog list key, e.g. `deployments`. */
  readonly listKey: string;
  /** `apps/v1`; undefined for custom (given by the entry). */
  readonly apiVersion: string | undefined;
  readonly kind: string | undefined;
  /** undefined for custom (discovered). */
  readonly namespaced: boolean | undefined;
  /** Write wave (docs/reference/runtime.md §9.4). */
  readonly wave: number;
  /** Default name is `<cr><suffix>`; undefined when `name` is required. */
  readonly defaultNameSuffix: string | undefined;
  /** Never applied, only created (Jobs). */
  readonly createOnly: boolean;
  /** Comparison rules for no-op detection. */
  readonly rules: NormalizeRules;
  /** resolve turns a rendered entry into the full manifest for `owner`. */
  resolve(source: EntrySource<E>, owner: Owner, hints?: ResolveHints): ResolvedChild;
  /** ensure writes the manifest (create if absent, or apply) and reports what it did. */
  ensure(manifest: KubeObject, options: EnsureOptions): Promise<EnsureResult>;
  /** remove deletes the child idempotently. */
  remove(ref: ObjectRef, options: RemoveOptions): Promise<RemoveResult>;
  // What the generic pipeline asks a kind (docs/adr/0051-a-kind-owns-its-behaviours.md); absent means no.
  /** The part this kind's entries play for the CR's other entries (ResolveHints). */
  readonly sibling?: SiblingRole;
  /**
   * Whether an entry's child is created once and then kept (`once` Secrets, docs/reference/katalog.md §7.2):
   * its data is never rewritten, its labels and annotations follow in onReconcile, and it is
   * rotated when due.
   */
  createdOnce?(entry: RenderedEntry): boolean;
  /**
   * Whether a live child ran to completion (Jobs): a child recorded `completed` in the inventory is
   * not created again (docs/reference/katalog.md §5.2).
   */
  finished?(live: KubeObject): 'complete' | 'failed' | undefined;
  /** Children of this kind are never pruned (Jobs, docs/reference/runtime.md §9.6). */
  readonly neverPruned?: boolean;
  /** Top-level fields templates never see (a Secret's `data`, docs/reference/katalog.md §13.3). */
  readonly hiddenFields?: readonly string[];
  /** Children of this kind are namespaces: the namespace guard checks their own name (docs/reference/runtime.md §13). */
  readonly isNamespace?: boolean;
  /** What an entry's `enrich` adds to children of this kind (docs/reference/katalog.md §3.5); undefined: nothing. */
  readonly enrich?: KindEnrich;
}

/**
 * KindEnrich says how `enrich` finds what it adds to a child of a kind, from the informer caches
 * (docs/reference/katalog.md §3.5): `pods` — the pods whose controller is the child (`owner`), that
 * and selected by its `spec.selector` (`selector`), or selected and run through one of its
 * ReplicaSets `<name>-<pod-template-hash>` (`replicaSets`, a Deployment); `podOrdinals` — each pod
 * carries its StatefulSet ordinal; `endpoints` — the child's EndpointSlices (a Service);
 * `backingPods` — the pods its flat `spec.selector` selects (a Service, `backingpods`);
 * `ownedReplicaSets` — the ReplicaSets it owns (a Deployment, `replicasets`); `claims` — the claims
 * of its `volumeClaimTemplates` (a StatefulSet, `pvcs`); `jobs` — the Jobs it owns (a CronJob,
 * `cronjob`); `node` — the Node it runs on (a Pod, `node`); `volume` and `storageClass` — the
 * bound PersistentVolume and the StorageClass it names (a PersistentVolumeClaim, `pvc`, `storageclass`);
 * `podEvents` — `events` also gathers the Warning events of the pods its selector selects (a workload).
 */
export interface KindEnrich {
  readonly pods?: 'owner' | 'selector' | 'replicaSets';
  readonly podOrdinals?: boolean;
  readonly endpoints?: boolean;
  readonly backingPods?: boolean;
  readonly ownedReplicaSets?: boolean;
  readonly claims?: boolean;
  readonly jobs?: boolean;
  readonly node?: boolean;
  readonly volume?: boolean;
  readonly storageClass?: boolean;
  readonly podEvents?: boolean;
}

/**
 * SiblingRole is the part a kind's entries play in the defaults of the CR's other entries
 * (ResolveHints): the CR's only `workload` is what services and pdb select and hpa targets; the
 * CR's only `service` (with its first port) is the ingress backend; a `scaler` names the workload
 * it scales (undefined: the default workload), which then leaves `replicas` out.
 */
export type SiblingRole =
  | { readonly role: 'workload' }
  | { readonly role: 'service'; port(entry: RenderedEntry): number | undefined }
  /** `target` is the rendered name of the workload it scales; null or undefined for the default workload. */
  | { readonly role: 'scaler'; target(entry: RenderedEntry): unknown };

/** BuildContext is what a kind's `build` sees: the entry's fields, the child's identity and the owner. */
export interface BuildContext {
  readonly fields: Fields;
  readonly name: string;
  readonly namespace: string | undefined;
  readonly owner: Owner;
  readonly hints: ResolveHints;
  /** The system labels (plus user labels), as put on the object; workloads copy them to pods. */
  readonly labels: Readonly<Record<string, string>>;
  /** The value of the `child` label for this child. */
  readonly childLabel: string;
}

/** KindBody is what a kind's `build` returns: the top-level fields besides apiVersion/kind/metadata. */
export interface KindBody {
  readonly body: Readonly<Record<string, unknown>>;
  /** Extra labels on the object itself (e.g. the `child` label on workloads). */
  readonly extraLabels?: Readonly<Record<string, string>>;
}

/**
 * KindDefinition is the input of defineKind: the list key, how the kind is built, and what sets it
 * apart. apiVersion, kind, scope, wave and default-name suffix come from @orkestra/types'
 * RESOURCE_KINDS by list key; a definition may repeat them, but only with the same values.
 */
export interface KindDefinition {
  /** The Katalog list key; its RESOURCE_KINDS row supplies the facts below. */
  readonly listKey: string;
  /** Must equal RESOURCE_KINDS' value when given; required only for list keys RESOURCE_KINDS lacks. */
  readonly apiVersion?: string;
  /** Must equal RESOURCE_KINDS' value when given. */
  readonly kind?: string;
  /** Must equal RESOURCE_KINDS' value when given. */
  readonly namespaced?: boolean;
  /** Must equal RESOURCE_KINDS' value when given. */
  readonly wave?: number;
  /** Must equal RESOURCE_KINDS' value (null there is undefined here) when given. */
  readonly defaultNameSuffix?: string | undefined;
  /** Longest valid name: 63 for DNS labels (namespaces, services), 253 otherwise. */
  readonly maxNameLength?: number;
  readonly createOnly?: boolean;
  /** Entries created once and then kept (`once` Secrets; see KindModule.createdOnce); reported in ResolvedChild.createOnly. */
  readonly createdOnce?: (entry: RenderedEntry) => boolean;
  readonly rules?: NormalizeRules;
  build(ctx: BuildContext): KindBody;
  /** Override of the default ensure (ensureObject), e.g. to recreate on an immutable change. */
  ensure?(manifest: KubeObject, options: EnsureOptions): Promise<EnsureResult>;
  readonly sibling?: SiblingRole;
  readonly finished?: (live: KubeObject) => 'complete' | 'failed' | undefined;
  readonly neverPruned?: boolean;
  readonly hiddenFields?: readonly string[];
  readonly isNamespace?: boolean;
  readonly enrich?: KindEnrich;
}

/** KindFacts are the static facts of a built-in kind, as a KindModule reports them. */
interface KindFacts {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespaced: boolean;
  readonly wave: number;
  readonly defaultNameSuffix: string | undefined;
}

/**
 * kindFacts looks a definition's facts up in RESOURCE_KINDS. A repeated fact that differs, a
 * missing fact of an unknown list key, and `custom` (no fixed kind) are programming errors.
 */
function kindFacts(def: KindDefinition): KindFacts {
  const row: ResourceKindInfo | undefined = RESOURCE_KINDS.find((info) => info.listKey === def.listKey);
  if (row?.listKey === 'custom')
    throw new TypeError('defineKind: custom has no fixed kind; it is its own module');
  const pick = <K extends keyof KindFacts>(key: K, known: KindFacts[K] | undefined): KindFacts[K] => {
    const given = def[key] as KindFacts[K] | undefined;
    if (row != null && Object.hasOwn(def, key) && given !== known) {
      throw new TypeError(
        `defineKind(${def.listKey}): ${key} ${JSON.stringify(given)} differs from RESOURCE_KINDS (${JSON.stringify(known)})`,
      );
    }
    const value = row == null ? given : known;
    if (value === undefined && key !== 'defaultNameSuffix') {
      throw new TypeError(
        `defineKind(${def.listKey}): ${key} is required for a list key RESOURCE_KINDS does not have`,
      );
    }
    return value as KindFacts[K];
  };
  return {
    apiVersion: pick('apiVersion', row?.apiVersion ?? undefined),
    kind: pick('kind', row?.kind ?? undefined),
    namespaced: pick('namespaced', row?.namespaced ?? undefined),
    wave: pick('wave', row?.wave),
    defaultNameSuffix: pick('defaultNameSuffix', row?.defaultNameSuffix ?? undefined),
  };
}

/**
 * defineKind builds a KindModule from a kind's list key and its `build` function; the static
 * facts come from RESOURCE_KINDS, and names, namespaces, labels, annotations and owner references
 * are handled here, the same for every kind.
 */
export function defineKind(def: KindDefinition): KindModule {
  const facts = kindFacts(def);
  const rules = def.rules ?? DEFAULT_RULES;
  const createOnly = def.createOnly ?? false;
  return {
    listKey: def.listKey,
    apiVersion: facts.apiVersion,
    kind: facts.kind,
    namespaced: facts.namespaced,
    wave: facts.wave,
    defaultNameSuffix: facts.defaultNameSuffix,
    createOnly,
    rules,
    resolve(source, owner, hints = {}) {
      const fields = new Fields(source.entry, source.path);
      const name = childName(fields, owner, facts.defaultNameSuffix, def.maxNameLength ?? 253);
      const namespace = childNamespace(fields, owner, facts.namespaced);
      const meta = commonMetadata({ fields, owner, name, namespace, sourcePath: source.path });
      const childLabel = shortenLabelValue(name);
      const built = def.build({ fields, name, namespace, owner, hints, labels: meta.labels, childLabel });
      const manifest: KubeObject = {
        apiVersion: facts.apiVersion,
        kind: facts.kind,
        metadata: {
          ...meta,
          labels: { ...meta.labels, ...built.extraLabels },
        },
        ...built.body,
      };
      const ref: ObjectRef =
        namespace == null
          ? { apiVersion: facts.apiVersion, kind: facts.kind, name }
          : { apiVersion: facts.apiVersion, kind: facts.kind, name, namespace };
      const once = def.createdOnce?.(source.entry as RenderedEntry) ?? false;
      return { ref, manifest, createOnly: createOnly || once };
    },
    ensure(manifest, options) {
      const opts = createOnly ? { ...options, mode: 'create' as const } : options;
      return def.ensure == null ? ensureObject(manifest, opts, rules) : def.ensure(manifest, opts);
    },
    remove(ref, options) {
      return removeObject(ref, options);
    },
    ...(def.sibling == null ? {} : { sibling: def.sibling }),
    ...(def.createdOnce == null ? {} : { createdOnce: def.createdOnce }),
    ...(def.finished == null ? {} : { finished: def.finished }),
    ...(def.neverPruned == null ? {} : { neverPruned: def.neverPruned }),
    ...(def.hiddenFields == null ? {} : { hiddenFields: def.hiddenFields }),
    ...(def.isNamespace == null ? {} : { isNamespace: def.isNamespace }),
    ...(def.enrich == null ? {} : { enrich: def.enrich }),
  };
}

/** childName returns the rendered `name`, or the default `<cr><suffix>` (a TemplateError when too long). */
export function childName(
  fields: Fields,
  owner: Owner,
  suffix: string | undefined,
  maxLength: number,
  key = 'name',
): string {
  const given = fields.str(key);
  if (given != null && given !== '') return given;
  if (suffix == null) throw templateError(fields.at(key), 'is required');
  const name = `${owner.name}${suffix}`;
  if (name.length > maxLength) {
    throw templateError(
      fields.at(key),
      `default name "${name}" is ${name.length} characters, longer than the ${maxLength} allowed; set a name`,
    );
  }
  return name;
}

/** childNamespace returns the child's namespace: the entry's, else the CR's, else `default`; undefined for cluster-scoped kinds. */
export function childNamespace(
  fields: Fields,
  owner: Owner,
  namespaced: boolean,
  key = 'namespace',
): string | undefined {
  const given = fields.str(key);
  if (!namespaced) {
    if (given != null && given !== '')
      throw templateError(fields.at(key), 'is not allowed for a cluster-scoped kind');
    return undefined;
  }
  return given != null && given !== '' ? given : (owner.namespace ?? 'default');
}

/** systemLabels returns the labels the runtime stamps on every child of `owner` (docs/reference/katalog.md §22.1). */
export function systemLabels(owner: Owner): Record<string, string> {
  return {
    [OrkestraLabel.ManagedBy]: MANAGED_BY,
    [OrkestraLabel.OwnerUid]: shortenLabelValue(owner.uid),
    [OrkestraLabel.OwnerName]: shortenLabelValue(owner.name),
    [OrkestraLabel.Crd]: shortenLabelValue(owner.crd),
    ...(owner.shard == null || owner.shard === '' ? {} : { [OrkestraLabel.Shard]: owner.shard }),
  };
}

/** CommonMetadataInput is the input of commonMetadata. */
export interface CommonMetadataInput {
  readonly fields: Fields;
  readonly owner: Owner;
  readonly name: string;
  readonly namespace: string | undefined;
  readonly sourcePath: string;
  /** Where labels/annotations sit in the entry (`metadata` for custom entries). */
  readonly metaFields?: Fields;
}

/**
 * commonMetadata builds name, namespace, labels (user labels, then system labels over them),
 * annotations (user annotations plus the source annotation) and the owner reference.
 */
export function commonMetadata(input: CommonMetadataInput): {
  name: string;
  namespace?: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  ownerReferences?: NonNullable<ReturnType<typeof ownerReferenceFor>>[];
} {
  const mf = input.metaFields ?? input.fields;
  const userLabels = mf.strMap('labels') ?? {};
  for (const key of Object.keys(userLabels)) {
    if (isReservedLabelKey(key)) {
      throw templateError(`${mf.at('labels')}.${key}`, 'is a reserved label key');
    }
  }
  const userAnnotations = mf.strMap('annotations') ?? {};
  for (const key of Object.keys(userAnnotations)) {
    if (isReservedAnnotationKey(key))
      throw templateError(`${mf.at('annotations')}.${key}`, 'is a reserved annotation key');
  }
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries(userLabels)) labels[k] = shortenLabelValue(v);
  Object.assign(labels, systemLabels(input.owner));
  const ownerRef = ownerReferenceFor(input.owner, input.namespace);
  return {
    name: input.name,
    ...(input.namespace == null ? {} : { namespace: input.namespace }),
    labels,
    annotations: { ...userAnnotations, [OrkestraAnnotation.Source]: input.sourcePath },
    ...(ownerRef == null ? {} : { ownerReferences: [ownerRef] }),
  };
}

/** compact drops keys whose value is undefined, so manifests hold only declared fields. */
export function compact<T extends Record<string, unknown>>(obj: T): T {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined)) as T;
}

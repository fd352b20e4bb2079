import {
  RESOURCE_KINDS,
  apiGroupOf,
  copiesOf,
  copyKindOf,
  copySourceWatches,
  enrichWatchItems,
  guessPlural,
} from '@orkestra/types';
import {
  admissionWebhookName,
  mutatingWebhookName,
  needsAdmissionWebhook,
  needsMutatingWebhook,
  needsShardWebhook,
  shardWebhookName,
} from './admission-webhook.js';
import type { CrdEntry, ExternalCall, Katalog, ResourceGroup } from '@orkestra/types';
import { manifestMetadata } from './manifest-meta.js';
import type { Manifest } from './manifest-meta.js';

/** PolicyRule is one RBAC rule as written in a Role or ClusterRole. */
export interface PolicyRule {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly verbs: readonly string[];
  readonly resourceNames?: readonly string[];
}

/** NamespaceRole is the rules the operator needs in one namespace only (docs/reference/runtime.md §19). */
export interface NamespaceRole {
  readonly namespace: string;
  readonly rules: readonly PolicyRule[];
}

/** RbacOptions configures generateRbac. */
export interface RbacOptions {
  /** Namespace of the operator: its ServiceAccount and leader-election Lease. */
  readonly namespace: string;
  /**
   * Add a ClusterRole for the Control Center's token gate (tokenreviews and subjectaccessreviews
   * create; docs/reference/runtime.md §23.4). Default false.
   */
  readonly controlCenter?: boolean;
  /**
   * Grant what `ork run --sharding` needs in the operator namespace (docs/reference/runtime.md §25):
   * every replica's own shard Lease (a name with its host and a random suffix) and the sharder's
   * list, watch and deletion of dead ones; and the shard-assignment webhook's (ADR 0110): its
   * MutatingWebhookConfiguration's caBundle and the webhook's certificate Secret. Default false.
   */
  readonly sharding?: boolean;
}

/** Rbac is what `ork generate rbac` derives from a Katalog (docs/reference/runtime.md §19). */
export interface Rbac {
  /** ServiceAccount, (Cluster)Role and binding, leader-election Role and RoleBinding. */
  readonly manifests: readonly Manifest[];
  /** The rules of the operator's own (Cluster)Role, e.g. for the Helm chart's `rbac.rules`. */
  readonly rules: readonly PolicyRule[];
  /** The single namespace the informers are pinned to (a Role), or undefined (a ClusterRole). */
  readonly pinnedNamespace: string | undefined;
  /**
   * Rules granted in one namespace each (a Role and RoleBinding there, e.g. the chart's
   * `rbac.namespaceRoles`): reads of Secrets whose namespace the Katalog writes literally
   * (`auth.secretRef.namespace`, a literal `copyFrom.namespace`, a `watch` of Secrets in a literal
   * namespace). Sorted by namespace; a rule the operator's own rules already cover there is left out.
   */
  readonly namespaceRoles: readonly NamespaceRole[];
  /** Things a person must look at: templated role rules, bindings to roles the Katalog does not define. */
  readonly notes: readonly string[];
}

/**
 * The verbs the runtime uses on child kinds: list/watch (informers), get, create and patch
 * (server-side apply creates and updates), delete (prune, deletion). Never `update`: nothing
 * sends a PUT to a child (the RBAC chaos test removes each verb in turn and proves the rest by a 403).
 */
const CHILD_VERBS = ['get', 'list', 'watch', 'create', 'patch', 'delete'];
/**
 * A built-in child kind listed in a Katalog has an informer (runtime.md §3.1), and the runtime reads
 * it from that cache; but an object the label-filtered cache does not hold is read with one GET
 * before it is written, so an unmanaged object of a child's name is never adopted (ADR 0032). So
 * every child kind gets `get` too.
 */
const WATCHED_CHILD_VERBS = CHILD_VERBS;
const VERB_ORDER = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];

/** Collects verbs by API group and resource (and resource names), then merges them into rules. */
class RuleSet {
  readonly #grants = new Map<string, Set<string>>();

  add(
    apiGroup: string,
    resource: string,
    verbs: readonly string[],
    resourceNames: readonly string[] = [],
  ): void {
    const key = JSON.stringify([apiGroup, resource, [...resourceNames].sort()]);
    let set = this.#grants.get(key);
    if (set == null) {
      set = new Set();
      this.#grants.set(key, set);
    }
    for (const verb of verbs) set.add(verb);
  }

  /** rules merges resources of one API group with the same verbs and resource names into one rule, in a stable order. */
  rules(): PolicyRule[] {
    const merged = new Map<
      string,
      { group: string; names: string[]; verbs: string[]; resources: string[] }
    >();
    for (const [key, verbSet] of this.#grants) {
      const [group, resource, names] = JSON.parse(key) as [string, string, string[]];
      const verbs = [...verbSet].sort(byVerb);
      const mergeKey = JSON.stringify([group, names, verbs]);
      const existing = merged.get(mergeKey);
      if (existing == null) merged.set(mergeKey, { group, names, verbs, resources: [resource] });
      else existing.resources.push(resource);
    }
    return [...merged.values()]
      .map((r) => ({
        apiGroups: [r.group],
        resources: [...r.resources].sort(),
        verbs: r.verbs,
        ...(r.names.length === 0 ? {} : { resourceNames: r.names }),
      }))
      .sort((a, b) => (ruleKey(a) < ruleKey(b) ? -1 : ruleKey(a) > ruleKey(b) ? 1 : 0));
  }
}

function byVerb(a: string, b: string): number {
  const ia = VERB_ORDER.indexOf(a);
  const ib = VERB_ORDER.indexOf(b);
  return (ia === -1 ? 99 : ia) - (ib === -1 ? 99 : ib) || a.localeCompare(b);
}

function ruleKey(rule: PolicyRule): string {
  return `${rule.apiGroups[0] ?? ''}\u0000${rule.resources.join(',')}\u0000${(rule.resourceNames ?? []).join(',')}`;
}

function listOf(group: ResourceGroup, key: string): readonly Record<string, unknown>[] {
  return ((group as unknown as Record<string, unknown>)[key] as Record<string, unknown>[] | undefined) ?? [];
}

const hasTemplate = (values: readonly unknown[]): boolean =>
  values.some((v) => typeof v === 'string' && v.includes('{{'));

/**
 * pinnedNamespace returns the one namespace every enabled entry's informers are limited to
 * (docs/reference/katalog.md §19: `allowedNamespaces` is a single exact name and the CRD is namespaced), or
 * undefined when any entry watches more, or any child kind is cluster-scoped.
 */
function pinnedNamespace(katalog: Katalog): string | undefined {
  const entries = Object.values(katalog.spec.crds).filter((e) => e.enabled);
  let pinned: string | undefined;
  for (const entry of entries) {
    const allowed = entry.allowedNamespaces;
    const only = allowed.length === 1 ? allowed[0] : undefined;
    if (!entry.namespaced || only == null || only.includes('*')) return undefined;
    if (pinned != null && pinned !== only) return undefined;
    pinned = only;
    // A watched kind outside that namespace (or cluster-scoped) needs the ClusterRole.
    if ([...(entry.watch ?? []), ...enrichWatchItems(entry)].some((item) => item.namespace !== only))
      return undefined;
    for (const group of childGroups(entry)) {
      if (listOf(group, 'namespaces').length > 0) return undefined;
      if (listOf(group, 'custom').some((c) => c['namespaced'] === false)) return undefined;
    }
  }
  return pinned;
}

function addEntry(
  rules: RuleSet,
  entry: CrdEntry,
  notes: string[],
  definedRoles: Set<string>,
  reads: SecretReads,
): void {
  const { group, plural } = entry.apiTypes;
  // CRs are read from the informer (list/watch), never with a GET; finalizers are patched on.
  rules.add(group, plural, ['list', 'watch', 'patch']);
  // Status is only ever merge-patched through the subresource (status-writer.ts), never read from it.
  rules.add(group, `${plural}/status`, ['patch']);
  rules.add(group, `${plural}/finalizers`, ['update']);
  const box = entry.operatorBox;
  for (const [groupName, resourceGroup] of [
    ['onCreate', box.onCreate],
    ['onReconcile', box.onReconcile],
    // katalog.md §20.4: a rolled-back CR's children are written by the same operator.
    ...(entry.rollback?.onRollback == null
      ? []
      : [['rollback.onRollback', entry.rollback.onRollback] as const]),
  ] as const) {
    for (const info of RESOURCE_KINDS) {
      const list = listOf(resourceGroup, info.listKey);
      if (list.length === 0) continue;
      if (info.listKey === 'custom') {
        list.forEach((custom, customIndex) => {
          const apiVersion = String(custom['apiVersion']);
          const kind = String(custom['kind']);
          rules.add(apiGroupOf(apiVersion), guessPlural(kind), CHILD_VERBS);
          if (apiVersion === RBAC_API_VERSION && (kind === 'Role' || kind === 'ClusterRole')) {
            // The API server refuses a role granting more than its writer holds (no escalate verb).
            const name = (custom['metadata'] as { name?: unknown } | undefined)?.name;
            if (typeof name === 'string') definedRoles.add(`${kind}/${name}`);
            addRoleRules(rules, custom, `${entry.apiTypes.kind}: ${groupName}.custom[${customIndex}]`, notes);
          } else if (apiGroupOf(apiVersion) !== 'rbac.authorization.k8s.io') {
            notes.push(
              `custom kind ${kind} (${apiVersion}) is granted as resource "${guessPlural(kind)}", a guess from its kind; check it against the CRD's plural`,
            );
          }
        });
        continue;
      }
      // group and plural come from the kind facts table (@orkestra/types RESOURCE_KINDS), not a guess.
      rules.add(
        info.group ?? '',
        info.plural ?? '',
        info.listKey === 'jobs' ? CHILD_VERBS : WATCHED_CHILD_VERBS,
      );
      if (
        info.listKey === 'ingresses' &&
        list.some((i) => (i['tls'] as { create?: unknown } | undefined)?.create === true)
      ) {
        rules.add('', 'secrets', CHILD_VERBS);
      }
      if (info.listKey === 'roles') {
        list.forEach((role, roleIndex) => {
          if (typeof role['name'] === 'string') definedRoles.add(`Role/${role['name']}`);
          addRoleRules(rules, role, `${entry.apiTypes.kind}: ${groupName}.roles[${roleIndex}]`, notes);
        });
      }
    }
  }
  // A remote reconciler's children: the kinds its `managedResources` list (ADR 0046).
  for (const managed of box.remote?.managedResources ?? [])
    rules.add(managed.group, managed.plural, CHILD_VERBS);
  addWatchRules(rules, entry, notes, reads);
  addSecretReads(entry, reads);
  const onDelete = box.onDelete;
  if (onDelete != null) {
    if (onDelete.jobs.length > 0) rules.add('batch', 'jobs', CHILD_VERBS);
    for (const deleteGroup of onDelete.groups) {
      for (const info of RESOURCE_KINDS) {
        const list = listOf(deleteGroup as unknown as ResourceGroup, info.listKey);
        if (list.length === 0) continue;
        if (info.listKey === 'custom') {
          for (const custom of list) {
            rules.add(apiGroupOf(String(custom['apiVersion'])), guessPlural(String(custom['kind'])), [
              'get',
              'list',
              'watch',
              'delete',
            ]);
          }
        } else {
          rules.add(info.group ?? '', info.plural ?? '', ['get', 'list', 'watch', 'delete']);
        }
      }
    }
  }
}

/** CORE_PLURALS are the resources of built-in kinds a `watch` item may name beyond the child kinds. */
const CORE_PLURALS: Readonly<Record<string, string>> = {
  'v1/Node': 'nodes',
  'v1/Event': 'events',
  'v1/Pod': 'pods',
  'v1/Endpoints': 'endpoints',
  'v1/PersistentVolume': 'persistentvolumes',
  'apps/v1/DaemonSet': 'daemonsets',
  'apps/v1/ReplicaSet': 'replicasets',
  'discovery.k8s.io/v1/EndpointSlice': 'endpointslices',
  'storage.k8s.io/v1/StorageClass': 'storageclasses',
};

/**
 * addWatchRules grants list/watch on each `watch` item's resource (limited to its name when it has
 * one: a named item is watched with the field selector `metadata.name=<name>`), and on the literal
 * source Secrets of `copyFrom` under onReconcile, which are watched the same way (runtime.md §4.1),
 * and on the kinds the entry's `enrich` reads (pods, endpointslices; katalog.md §3.5) — nothing more.
 */
function addWatchRules(rules: RuleSet, entry: CrdEntry, notes: string[], reads: SecretReads): void {
  for (const item of [...(entry.watch ?? []), ...enrichWatchItems(entry)]) {
    if (item.apiVersion === 'v1' && item.kind === 'Secret' && isLiteralNamespace(item.namespace)) {
      reads.inNamespace(item.namespace, ['list', 'watch'], item.name);
      continue;
    }
    const known =
      RESOURCE_KINDS.find((k) => k.apiVersion === item.apiVersion && k.kind === item.kind)?.plural ??
      CORE_PLURALS[`${item.apiVersion}/${item.kind}`];
    const plural = known ?? guessPlural(item.kind);
    if (known == null)
      notes.push(
        `watched kind ${item.kind} (${item.apiVersion}) is granted as resource "${plural}", a guess from its kind; check it against the API's plural`,
      );
    rules.add(apiGroupOf(item.apiVersion), plural, ['list', 'watch'], item.name == null ? [] : [item.name]);
  }
  for (const item of copySourceWatches(entry)) {
    const resource = copyKindOf(item.kind)?.resource ?? 'secrets';
    if (isLiteralNamespace(item.namespace))
      reads.inNamespace(item.namespace, ['list', 'watch'], item.name, resource);
    else rules.add('', resource, ['list', 'watch'], item.name == null ? [] : [item.name]);
  }
}

const isLiteralNamespace = (namespace: string | undefined): namespace is string =>
  namespace != null && namespace !== '' && !namespace.includes('{{');

/**
 * SecretReads sorts the Secrets the operator reads by where their namespace comes from
 * (docs/reference/runtime.md §19): a namespace the Katalog writes literally is granted in a Role of
 * that namespace only (by name when the name is literal too); a namespace that follows from the CR
 * (the CR's own, or a template) can be any namespace, so `get` is granted cluster-wide and a note
 * names why.
 */
class SecretReads {
  readonly #byNamespace = new Map<string, RuleSet>();
  /** The operator's namespace: where per-entry credentials without a namespace are read (ADR 0079). */
  readonly operatorNamespace: string;

  constructor(operatorNamespace: string) {
    this.operatorNamespace = operatorNamespace;
  }

  /** Why `get` on Secrets is granted cluster-wide: one phrase per reader. */
  readonly crChosen = new Set<string>();

  inNamespace(
    namespace: string,
    verbs: readonly string[],
    name: string | undefined,
    resource: 'secrets' | 'configmaps' = 'secrets',
  ): void {
    let set = this.#byNamespace.get(namespace);
    if (set == null) {
      set = new RuleSet();
      this.#byNamespace.set(namespace, set);
    }
    set.add('', resource, verbs, name == null || name.includes('{{') ? [] : [name]);
  }

  /** roles are the per-namespace rules, without those `covered` says the operator holds there already. */
  roles(covered: (namespace: string, rule: PolicyRule) => boolean): NamespaceRole[] {
    return [...this.#byNamespace.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([namespace, set]) => ({
        namespace,
        rules: set.rules().filter((rule) => !covered(namespace, rule)),
      }))
      .filter((role) => role.rules.length > 0);
  }
}

/**
 * addNotificationReads records what team notifications read (docs/reference/katalog.md §15.4): the
 * SMTP login, the webhook URLs and the SMTP CA — each a ref with a literal namespace, granted there by name.
 */
function addNotificationReads(notification: Katalog['spec']['notification'], reads: SecretReads): void {
  if (notification == null) return;
  const smtp = notification.smtp;
  const secrets = [
    smtp?.auth?.user,
    smtp?.auth?.password,
    smtp?.ca,
    notification.slack?.webhook.secretRef,
    ...Object.values(notification.teams).map((team) => team.webhook?.secretRef),
  ];
  for (const ref of secrets) if (ref != null) reads.inNamespace(ref.namespace, ['get'], ref.name);
  if (smtp?.caConfigMap != null)
    reads.inNamespace(smtp.caConfigMap.namespace, ['get'], smtp.caConfigMap.name, 'configmaps');
}

/**
 * addSecretReads records the Secret reads of an entry's credentials: `auth.secretRef` of external
 * calls and of cross reads (one GET each), and the sources of `copyFrom` (one GET each reconcile,
 * docs/reference/katalog.md §7.2).
 */
function addSecretReads(entry: CrdEntry, reads: SecretReads): void {
  const kind = entry.apiTypes.kind;
  const refs = [
    ...externalCalls(entry).map((call) => ({ ref: call.auth?.secretRef, what: 'an external call' })),
    ...entry.operatorBox.cross.map((cross) => ({ ref: cross.auth?.secretRef, what: 'a cross read' })),
    { ref: entry.operatorBox.remote?.auth?.secretRef, what: 'the remote reconciler' },
  ];
  for (const { ref, what } of refs) {
    if (ref == null) continue;
    if (isLiteralNamespace(ref.namespace)) reads.inNamespace(ref.namespace, ['get'], ref.name);
    else reads.crChosen.add(`${kind}: ${what}'s auth.secretRef (no namespace: the CR's)`);
  }
  // The worker autoscaler reads for the entry, not a CR: a Secret without a namespace is the
  // operator's (docs/reference/katalog.md §18.2, ADR 0079), granted there by name.
  for (const ref of autoscaleSecretRefs(entry))
    reads.inNamespace(ref.namespace ?? reads.operatorNamespace, ['get'], ref.name);
  for (const { copy, from } of copySources(entry)) {
    if (isLiteralNamespace(from.namespace))
      reads.inNamespace(from.namespace, ['get'], from.name, copy.resource);
    // A ConfigMap copy is a configMaps child: the operator's child rules already get ConfigMaps
    // wherever its CRs live (a pinned Role: see templatedCopies).
    else if (copy.resource === 'secrets')
      reads.crChosen.add(
        `${kind}: copyFrom${from.namespace == null ? " (no namespace: the CR's)" : ' (a templated namespace)'}`,
      );
  }
}

/**
 * autoscaleSecretRefs lists the Secrets the worker autoscaler reads for an entry: its sources'
 * `auth.secretRef`, and that of a cross read of the entry its rules name (`cross.<as|crd>.…`) when
 * no source of that name comes first (the autoscaler's order, docs/reference/katalog.md §18.2).
 */
function autoscaleSecretRefs(entry: CrdEntry): { name: string; namespace?: string | undefined }[] {
  const autoscale = entry.autoscale;
  if (autoscale == null || !autoscale.enabled) return [];
  const sources = autoscale.sources;
  const named = new Set<string>();
  for (const rule of autoscale.rules)
    for (const condition of [...rule.when, ...rule.anyOf]) {
      const name = 'field' in condition ? /^cross\.([^.]+)(\.|$)/.exec(condition.field)?.[1] : undefined;
      if (name != null && !sources.some((source) => source.as === name)) named.add(name);
    }
  return [
    ...sources.flatMap((source) => (source.auth?.secretRef == null ? [] : [source.auth.secretRef])),
    ...entry.operatorBox.cross.flatMap((cross) =>
      cross.auth?.secretRef != null && (named.has(cross.as ?? '') || named.has(cross.crd))
        ? [cross.auth.secretRef]
        : [],
    ),
  ];
}

const RBAC_API_VERSION = 'rbac.authorization.k8s.io/v1';

/**
 * addRoleRules grants the operator a role child's literal rules (a `roles` entry, or a `custom`
 * Role or ClusterRole): the API server refuses to create a role that grants more than its writer
 * holds, and `escalate` is never generated for the operator's own use. Wildcards and the
 * escalate/bind/impersonate verbs reach here only when the entry sets `allowEscalation` or the
 * caller passed --allow-rbac-wildcards (role-wildcards.ts); they are noted. Templated rules are
 * reported, not added.
 */
function addRoleRules(rules: RuleSet, role: Record<string, unknown>, where: string, notes: string[]): void {
  const roleRules = (role['rules'] as Record<string, unknown>[] | undefined) ?? [];
  roleRules.forEach((rule, ruleIndex) => {
    const apiGroups = (rule['apiGroups'] as string[] | undefined) ?? [''];
    const resources = (rule['resources'] as string[] | undefined) ?? [];
    const verbs = (rule['verbs'] as string[] | undefined) ?? [];
    const names = (rule['resourceNames'] as string[] | undefined) ?? [];
    const at = `${where}.rules[${ruleIndex}]`;
    if (hasTemplate([...apiGroups, ...resources, ...verbs, ...names])) {
      notes.push(
        `${at} is templated: not added; granting it needs the escalate/bind verbs, which are never generated`,
      );
      return;
    }
    if ([...apiGroups, ...resources, ...verbs].includes('*')) {
      notes.push(`${at} uses a wildcard, so the operator is granted that wildcard too`);
    }
    const privileged = verbs.filter((verb) => ['escalate', 'bind', 'impersonate'].includes(verb));
    if (privileged.length > 0) {
      notes.push(`${at} grants ${privileged.join(', ')}, so the operator is granted it too`);
    }
    for (const apiGroup of apiGroups)
      for (const resource of resources) rules.add(apiGroup, resource, verbs, names);
  });
}

/** The verbs on core v1 `events` (docs/reference/runtime.md §19), granted in exactly one Role: the runtime creates Events and patches a repeated one's count (ADR 0042). */
const EVENT_VERBS: readonly string[] = ['create', 'patch'];

/** childGroups are the groups whose children the operator writes: onCreate, onReconcile, rollback.onRollback. */
function childGroups(entry: CrdEntry): readonly ResourceGroup[] {
  const box = entry.operatorBox;
  return entry.rollback?.onRollback == null
    ? [box.onCreate, box.onReconcile]
    : [box.onCreate, box.onReconcile, entry.rollback.onRollback];
}

function bindingNotes(entry: CrdEntry, definedRoles: ReadonlySet<string>, notes: string[]): void {
  for (const group of childGroups(entry)) {
    const customBindings = listOf(group, 'custom').filter(
      (c) =>
        c['apiVersion'] === RBAC_API_VERSION &&
        (c['kind'] === 'RoleBinding' || c['kind'] === 'ClusterRoleBinding'),
    );
    for (const binding of [...listOf(group, 'roleBindings'), ...customBindings]) {
      const roleRef = binding['roleRef'] as { kind?: string; name?: string } | undefined;
      const name = roleRef?.name ?? '';
      if (!definedRoles.has(`${roleRef?.kind ?? 'Role'}/${name}`)) {
        notes.push(
          `${entry.apiTypes.kind}: a roleBinding refers to ${roleRef?.kind ?? 'Role'} ${name}, which this Katalog does not define; the operator must hold its permissions (add them, or grant \`bind\` on it by hand)`,
        );
      }
    }
  }
}

/** externalCalls is every HTTP call of an entry: `validation.external` (step 8) and `operatorBox.external` (step 11). */
function externalCalls(entry: CrdEntry): readonly ExternalCall[] {
  return [...(entry.validation?.external ?? []), ...entry.operatorBox.external];
}

/** copySources lists the sources of an entry's `copyFrom` Secrets and ConfigMaps (no namespace: the CR's own). */
function copySources(entry: CrdEntry): ReturnType<typeof copiesOf> {
  return childGroups(entry).flatMap((group) => copiesOf(group));
}

/**
 * rolloutRules are the ConfigMap rules of Katalog revisions and the rollout state (docs/reference/runtime.md §24) that
 * `operatorRules` do not cover already; `covers` says whether those rules reach the operator
 * namespace at all (a ClusterRole, or a Role pinned to that namespace).
 */
function rolloutRules(
  operatorRules: readonly PolicyRule[],
  covers: boolean,
  rolloutName: string,
): PolicyRule[] {
  const granted = (verb: string): boolean =>
    covers &&
    operatorRules.some(
      (rule) =>
        rule.apiGroups.includes('') &&
        rule.resources.includes('configmaps') &&
        rule.verbs.includes(verb) &&
        (rule.resourceNames == null || rule.resourceNames.length === 0),
    );
  // list and watch: the operator reads these ConfigMaps from a watch (ADR 0034).
  const verbs = ['create', 'get', 'list', 'watch'].filter((verb) => !granted(verb));
  return [
    ...(verbs.length === 0 ? [] : [{ apiGroups: [''], resources: ['configmaps'], verbs }]),
    ...(granted('patch')
      ? []
      : [{ apiGroups: [''], resources: ['configmaps'], verbs: ['patch'], resourceNames: [rolloutName] }]),
  ];
}

/**
 * generateRbac derives least-privilege RBAC from what the Katalog can touch (docs/reference/runtime.md §19): the
 * CR kinds (list/watch/patch, status patch, finalizers update), every child kind
 * (list/watch/create/patch/delete, and get), events, the literal rules of `roles` entries, and the
 * leader-election Lease in the operator namespace. Secrets are read cluster-wide (`get`) only where
 * their namespace follows from the CR (providers, `auth.secretRef` without a namespace, `copyFrom`
 * without a literal namespace); a Secret in a namespace the Katalog writes literally is granted by
 * a Role in that namespace (`namespaceRoles`). No wildcards are generated. A Role replaces the
 * ClusterRole when the informers are pinned to one namespace.
 */
export function generateRbac(katalog: Katalog, options: RbacOptions): Rbac {
  const rules = new RuleSet();
  const notes: string[] = [];
  const definedRoles = new Set<string>();
  const reads = new SecretReads(options.namespace);
  const entries = Object.values(katalog.spec.crds).filter((e) => e.enabled);
  for (const entry of entries) addEntry(rules, entry, notes, definedRoles, reads);
  addNotificationReads(katalog.spec.notification, reads);
  for (const entry of entries) bindingNotes(entry, definedRoles, notes);
  // The runtime writes core v1 Events only: POST, and PATCH of a repeated Event's count (ADR 0042).
  rules.add('', 'events', EVENT_VERBS);
  // Providers read Secrets and ConfigMaps of the CR's namespace (kube-reader.ts `readerFor`).
  const providerReads =
    katalog.spec.providers.length > 0 || entries.some((e) => Object.keys(e.operatorBox.providers).length > 0);
  if (providerReads) {
    rules.add('', 'secrets', ['get']);
    rules.add('', 'configmaps', ['get']);
    reads.crChosen.add("providers (they read Secrets and ConfigMaps of the CR's namespace)");
  }
  // A Secret in a namespace that follows from the CR: any namespace a CR may live in.
  if (reads.crChosen.size > 0) rules.add('', 'secrets', ['get']);
  const templatedCopies = [
    ...new Set(
      entries.flatMap((e) =>
        copySources(e)
          .filter(({ from }) => from.namespace?.includes('{{') === true)
          .map(({ copy }) => copy.resource),
      ),
    ),
  ];

  const name = katalog.metadata.name;
  const roleName = `orkestra:${name}`;
  const pinned = pinnedNamespace(katalog);
  if (pinned == null && reads.crChosen.size > 0)
    notes.push(
      `\`get\` on Secrets is granted cluster-wide because a Secret's namespace follows from the CR: ${[...reads.crChosen].join('; ')}. A namespace the Katalog writes literally is granted as a Role in that namespace instead`,
    );
  if (templatedCopies.length > 0 && pinned != null)
    notes.push(
      `an entry copies ${templatedCopies.join(' and ')} from a namespace its CRs choose (copyFrom.namespace is a template), but the generated Role is limited to namespace ${pinned}: grant \`get\` on ${templatedCopies.join(' and ')} in those namespaces by hand`,
    );
  // The conversion webhook (docs/reference/runtime.md §26, ADR 0057): the operator writes the
  // caBundle into the CRDs of the entries that convert (cluster-scoped: only a ClusterRole can grant it).
  const converting = entries
    .filter((entry) => entry.conversion != null)
    .map((entry) => `${entry.apiTypes.plural}.${entry.apiTypes.group}`);
  if (converting.length > 0 && pinned == null) {
    rules.add('apiextensions.k8s.io', 'customresourcedefinitions', ['get', 'patch'], converting);
    // Storage version migration trims status.storedVersions (docs/reference/katalog.md §3.4).
    rules.add('apiextensions.k8s.io', 'customresourcedefinitions/status', ['patch'], converting);
  } else if (converting.length > 0)
    notes.push(
      `the conversion webhook writes its caBundle into ${converting.join(', ')}, but the generated Role is limited to namespace ${pinned}: grant \`get\` and \`patch\` on those customresourcedefinitions in a ClusterRole by hand`,
    );
  // The admission webhook (docs/reference/katalog.md §12, ADR 0089): the operator writes the
  // caBundle into its ValidatingWebhookConfiguration (a replace: the bundle sits in a list).
  if (needsAdmissionWebhook(katalog) && pinned == null)
    rules.add(
      'admissionregistration.k8s.io',
      'validatingwebhookconfigurations',
      ['get', 'update'],
      [admissionWebhookName(katalog)],
    );
  else if (needsAdmissionWebhook(katalog))
    notes.push(
      `the admission webhook writes its caBundle into the ValidatingWebhookConfiguration ${admissionWebhookName(katalog)}, but the generated Role is limited to namespace ${pinned}: grant \`get\` and \`update\` on it in a ClusterRole by hand`,
    );
  // The mutating webhook (docs/reference/katalog.md §12, ADR 0092): the same, for its MutatingWebhookConfiguration.
  if (needsMutatingWebhook(katalog) && pinned == null)
    rules.add(
      'admissionregistration.k8s.io',
      'mutatingwebhookconfigurations',
      ['get', 'update'],
      [mutatingWebhookName(katalog)],
    );
  else if (needsMutatingWebhook(katalog))
    notes.push(
      `the mutating webhook writes its caBundle into the MutatingWebhookConfiguration ${mutatingWebhookName(katalog)}, but the generated Role is limited to namespace ${pinned}: grant \`get\` and \`update\` on it in a ClusterRole by hand`,
    );
  // The shard-assignment webhook (docs/reference/runtime.md §25.2, ADR 0110): the same, for its own configuration.
  const shardWebhook = options.sharding === true && needsShardWebhook(katalog);
  if (shardWebhook && pinned == null)
    rules.add(
      'admissionregistration.k8s.io',
      'mutatingwebhookconfigurations',
      ['get', 'update'],
      [shardWebhookName(katalog)],
    );
  else if (shardWebhook)
    notes.push(
      `the shard-assignment webhook writes its caBundle into the MutatingWebhookConfiguration ${shardWebhookName(katalog)}, but the generated Role is limited to namespace ${pinned}: grant \`get\` and \`update\` on it in a ClusterRole by hand`,
    );
  // CRD self-healing (docs/reference/runtime.md §2.9): each entry's CRD is watched by name.
  const crdNames = entries.map((e) => `${e.apiTypes.plural}.${e.apiTypes.group}`);
  if (pinned == null && crdNames.length > 0)
    rules.add('apiextensions.k8s.io', 'customresourcedefinitions', ['list', 'watch'], crdNames);
  else if (crdNames.length > 0)
    notes.push(
      `the runtime watches its CRDs (${crdNames.join(', ')}) to deactivate an entry whose CRD is deleted, but a Role cannot grant cluster-scoped CRDs: grant \`list\` and \`watch\` on those customresourcedefinitions in a ClusterRole by hand, or the entries are not deactivated`,
    );
  const operatorRules = rules.rules();
  // A namespace's reads that the operator's own rules already grant there need no Role of their own.
  const namespaceRoles = reads.roles(
    (namespace, rule) =>
      (pinned == null || pinned === namespace) &&
      operatorRules.some(
        (held) =>
          held.apiGroups.includes('') &&
          rule.resources.every((r) => held.resources.includes(r)) &&
          rule.verbs.every((v) => held.verbs.includes(v)) &&
          (held.resourceNames == null ||
            (rule.resourceNames != null && rule.resourceNames.every((n) => held.resourceNames?.includes(n)))),
      ),
  );
  const subject = { kind: 'ServiceAccount', name, namespace: options.namespace };
  const leaseName = `orkestra-${name}`;
  const leaseRules: PolicyRule[] = [
    { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
    {
      apiGroups: ['coordination.k8s.io'],
      resources: ['leases'],
      // Renewals are a PUT with the Lease's resourceVersion (ADR 0035): never a patch.
      verbs: ['get', 'update'],
      resourceNames: [leaseName],
    },
    ...(options.sharding === true
      ? [
          {
            apiGroups: ['coordination.k8s.io'],
            resources: ['leases'],
            verbs: ['get', 'list', 'watch', 'update', 'delete'],
          },
        ]
      : []),
    // docs/reference/runtime.md §24: Katalog revisions (immutable, hash-named: create, get) and the rollout state, the
    // only one patched (docs/reference/runtime.md §24.1) — the verbs the operator's own rules do not
    // already grant in the operator namespace (a Katalog with configMaps children has create, patch).
    ...rolloutRules(operatorRules, pinned == null || pinned === options.namespace, `${leaseName}-rollout`),
    // The webhook's CA and serving certificate live in a Secret of the operator namespace.
    ...(converting.length === 0 && !shardWebhook
      ? []
      : [
          { apiGroups: [''], resources: ['secrets'], verbs: ['create'] },
          {
            apiGroups: [''],
            resources: ['secrets'],
            verbs: ['get', 'update'],
            resourceNames: ['orkestra-webhook-tls'],
          },
        ]),
    // The LeaderElection Event on the Lease is written in the operator namespace: the ClusterRole's
    // events rule covers it; a Role pinned to another namespace does not, so this Role grants it.
    ...(pinned == null || pinned === options.namespace
      ? []
      : [{ apiGroups: [''], resources: ['events'], verbs: [...EVENT_VERBS] }]),
  ];
  const manifests: Manifest[] = [
    {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: manifestMetadata(katalog, name, options.namespace),
    },
    pinned == null
      ? {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRole',
          metadata: manifestMetadata(katalog, roleName),
          rules: operatorRules,
        }
      : {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'Role',
          metadata: manifestMetadata(katalog, roleName, pinned),
          rules: operatorRules,
        },
    pinned == null
      ? {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRoleBinding',
          metadata: manifestMetadata(katalog, roleName),
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: roleName },
          subjects: [subject],
        }
      : {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'RoleBinding',
          metadata: manifestMetadata(katalog, roleName, pinned),
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: roleName },
          subjects: [subject],
        },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: manifestMetadata(katalog, `${roleName}:leader-election`, options.namespace),
      rules: leaseRules,
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: manifestMetadata(katalog, `${roleName}:leader-election`, options.namespace),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: `${roleName}:leader-election` },
      subjects: [subject],
    },
  ];
  for (const role of namespaceRoles) {
    const readsName = `${roleName}:reads`;
    manifests.push(
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: manifestMetadata(katalog, readsName, role.namespace),
        rules: role.rules,
      },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: manifestMetadata(katalog, readsName, role.namespace),
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: readsName },
        subjects: [subject],
      },
    );
  }
  if (options.controlCenter === true) {
    const ccName = `${roleName}:control-center`;
    manifests.push(
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: manifestMetadata(katalog, ccName),
        rules: [
          { apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'], verbs: ['create'] },
          { apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] },
        ],
      },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: manifestMetadata(katalog, ccName),
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: ccName },
        subjects: [subject],
      },
    );
  }
  return {
    manifests,
    rules: operatorRules,
    pinnedNamespace: pinned,
    namespaceRoles,
    notes: [...new Set(notes)],
  };
}

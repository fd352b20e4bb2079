/**
 * Step 13 of the pipeline (docs/reference/runtime.md §9.1): forEach expansion, per-copy gates, rendering and the
 * registry's `resolve`, giving the desired children of one CR.
 */
import { kindFor, kindForObject } from '@orkestra/registry';
import type { KubeObject, ObjectRef, Owner, ResolveHints } from '@orkestra/registry';
import type { TemplateContext } from '@orkestra/template';
import { ConditionReason, TerminalError, evaluateConditions } from '@orkestra/types';
import type { Condition, EvaluateConditionsOptions } from '@orkestra/types';
import type { CompiledCrd, CompiledResourceEntry, GroupName } from './compile-katalog.js';

/** DesiredChild is one child the CR should have after this reconcile. */
export interface DesiredChild {
  readonly entry: CompiledResourceEntry;
  readonly ref: ObjectRef;
  /** `apiVersion/kind/namespace/name`. */
  readonly id: string;
  readonly manifest: KubeObject;
  readonly mode: 'create' | 'apply';
  /** The rendered entry (secrets read `once`, `tls`, `rotateAfter` from it). */
  readonly rendered: Readonly<Record<string, unknown>>;
  /**
   * For `once` Secrets, whose `data` is not rendered with the rest (docs/reference/katalog.md §7.2): renders the
   * data now and returns the full manifest. Call it only when the Secret is created or rotated, so
   * random helpers run only then (docs/reference/runtime.md §9.2). `manifest` is the Secret without data.
   */
  readonly withData?: () => KubeObject;
  /**
   * For Secrets and ConfigMaps with `copyFrom` (docs/reference/katalog.md §7.2, ADR 0115): the source
   * (of the child's own kind), and how to build the manifest from the source as read (the registry
   * kind takes what it copies: a Secret's data and type, a ConfigMap's data and binaryData).
   * `manifest` is the child without the copied data.
   */
  readonly copyFrom?: {
    readonly namespace: string;
    readonly name: string;
    /**
     * Set when the CR chose the source (a templated `copyFrom` of a namespaced entry) in another
     * namespace: the namespaces the source must grant the copy to (the CR's, and the copy's own
     * when it differs) — docs/reference/katalog.md §7.2.
     */
    readonly grantTo?: readonly string[];
    readonly withCopy: (source: KubeObject) => KubeObject;
  };
  /**
   * Set by workload autoscale on an existing child created once (docs/reference/katalog.md §18.4):
   * the replicas it decided and the change time. The child is not re-applied; only `spec.replicas`
   * and `orkestra.konductor.io/autoscaled-at` are patched.
   */
  readonly scale?: { readonly replicas: number; readonly at: string };
}

/** BlockedChild is a child the namespace guard kept from being written. */
export interface BlockedChild {
  readonly entry: CompiledResourceEntry;
  readonly ref: ObjectRef;
  readonly reason: string;
}

/** DesiredSet is the desired children of one CR, per group, in kind order then declaration order. */
export interface DesiredSet {
  readonly groups: Readonly<Record<GroupName, readonly DesiredChild[]>>;
  readonly blocked: readonly BlockedChild[];
  /** Identities of every desired child (both groups). */
  readonly ids: ReadonlySet<string>;
}

/** BuildDesiredSetInput is what buildDesiredSet needs. */
export interface BuildDesiredSetInput {
  readonly crd: CompiledCrd;
  readonly owner: Owner;
  readonly context: TemplateContext;
  readonly conditions: EvaluateConditionsOptions;
  /** Scope of custom kinds (from discovery), by `apiVersion/Kind`. */
  readonly customScope: (apiVersion: string, kind: string) => boolean | undefined;
  /** Whether a namespace is blocked, and why; undefined when allowed. */
  readonly blockedReason: (namespace: string) => string | undefined;
}

/** idOf is a child identity `apiVersion/kind/namespace/name`. */
export function idOf(ref: ObjectRef): string {
  return `${ref.apiVersion}/${ref.kind}/${ref.namespace ?? ''}/${ref.name}`;
}

interface Rendered {
  readonly entry: CompiledResourceEntry;
  readonly rendered: Record<string, unknown>;
  /** The copy's context (forEach item and all), for rendering deferred Secret data later. */
  readonly context: TemplateContext;
}

/**
 * buildDesiredSet renders every entry whose group gate and own gate pass (forEach copies each
 * with their item context), resolves the manifests, and checks that no two passing entries render
 * the same object within a group (`DuplicateChild`, terminal; one under onCreate and onReconcile
 * is the onReconcile child). Children targeting a blocked namespace are
 * reported in `blocked` instead.
 */
export function buildDesiredSet(input: BuildDesiredSetInput): DesiredSet {
  const { crd, context, conditions } = input;
  const renderedByGroup: Record<GroupName, Rendered[]> = { onCreate: [], onReconcile: [] };
  for (const group of crd.groups) {
    const gate = group.gate as { when: readonly Condition[]; anyOf: readonly Condition[] };
    if (!evaluateConditions(gate, context, conditions).passed) continue;
    for (const entry of group.entries) {
      const copies = entry.compiled.expand(context, {
        include: (ctx, g) =>
          evaluateConditions(g as { when?: Condition[]; anyOf?: Condition[] }, ctx, conditions).passed,
        nameOf: (rendered) => nameOf(entry, rendered),
      });
      for (const copy of copies)
        renderedByGroup[group.name].push({ entry, rendered: copy.entry, context: copy.context });
    }
  }
  const all = [...renderedByGroup.onCreate, ...renderedByGroup.onReconcile];
  const hints = hintsFor(all, input.owner.name);

  const seen = new Map<string, DesiredChild>();
  const blocked: BlockedChild[] = [];
  const groups: Record<GroupName, DesiredChild[]> = { onCreate: [], onReconcile: [] };
  for (const name of ['onCreate', 'onReconcile'] as const) {
    for (const { entry, rendered, context: copyContext } of renderedByGroup[name]) {
      const module = kindFor(entry.listKey);
      if (module == null) continue;
      const forResolve = resolvable(entry, rendered);
      const kindHints: ResolveHints = { ...hints.base };
      if (module.sibling?.role === 'workload') {
        const workloadName =
          nameOf(entry, rendered) ?? `${input.owner.name}${module.defaultNameSuffix ?? ''}`;
        if (hints.hpaTargets.has(workloadName)) Object.assign(kindHints, { hpaTargeted: true });
      }
      if (entry.listKey === 'custom') {
        const scope = input.customScope(String(rendered['apiVersion']), String(rendered['kind']));
        if (scope != null) Object.assign(kindHints, { namespaced: scope });
      }
      const resolved = module.resolve({ entry: forResolve, path: entry.source }, input.owner, kindHints);
      const ref = resolved.ref;
      const guardNamespace = kindForObject(ref)?.isNamespace === true ? ref.name : ref.namespace;
      const reason = guardNamespace == null ? undefined : input.blockedReason(guardNamespace);
      if (reason != null) {
        blocked.push({ entry, ref, reason });
        continue;
      }
      const id = idOf(ref);
      const first = seen.get(id);
      // The same child under onCreate and onReconcile (common in upstream Katalogs): created if
      // absent and applied on every reconcile, which is what the onReconcile entry alone does.
      const createdFirst = first != null && name === 'onReconcile' && groups.onCreate.includes(first);
      if (createdFirst) groups.onCreate.splice(groups.onCreate.indexOf(first), 1);
      else if (first != null) {
        throw new TerminalError(
          `${formatChild(ref)} is rendered by ${first.entry.katalogPath} and ${entry.katalogPath}; at most one passing entry may render an object`,
          { code: ConditionReason.DuplicateChild, katalogPath: entry.katalogPath },
        );
      }
      const mode: 'create' | 'apply' = resolved.createOnly || !entry.applyMode ? 'create' : 'apply';
      const deferred = entry.deferredData;
      const withData =
        deferred == null || rendered['tls'] != null
          ? undefined
          : (): KubeObject =>
              module.resolve(
                { entry: { ...forResolve, data: deferred.render(copyContext) }, path: entry.source },
                input.owner,
                kindHints,
              ).manifest;
      const source = copySource(rendered, input.owner, entry, crd.entry.namespaced, ref.namespace);
      const copyFrom =
        source == null
          ? undefined
          : {
              ...source,
              withCopy: (from: KubeObject): KubeObject =>
                module.resolve(
                  { entry: { ...forResolve, ...copied(from) }, path: entry.source },
                  input.owner,
                  kindHints,
                ).manifest,
            };
      const child: DesiredChild = {
        entry,
        ref,
        id,
        manifest: resolved.manifest,
        mode,
        rendered,
        ...(withData == null ? {} : { withData }),
        ...(copyFrom == null ? {} : { copyFrom }),
      };
      seen.set(id, child);
      groups[name].push(child);
    }
  }
  return { groups, blocked, ids: new Set(seen.keys()) };
}

function formatChild(ref: ObjectRef): string {
  return ref.namespace == null ? `${ref.kind} ${ref.name}` : `${ref.kind} ${ref.namespace}/${ref.name}`;
}

/** nameOf is the identity used for the forEach duplicate check: `namespace/name` when rendered. */
function nameOf(entry: CompiledResourceEntry, rendered: Record<string, unknown>): string | undefined {
  const source =
    entry.listKey === 'custom' ? ((rendered['metadata'] ?? {}) as Record<string, unknown>) : rendered;
  const name = source['name'];
  if (name == null || name === '') return undefined;
  const namespace = source['namespace'];
  return namespace == null || namespace === '' ? String(name) : `${String(namespace)}/${String(name)}`;
}

/**
 * copied is what a copy takes from its source, as the registry kinds read it: `copiedData` (a
 * Secret's base64 values or a ConfigMap's strings, as read), `copiedBinaryData` (a ConfigMap's) and
 * `copiedType` (a Secret's). A kind takes the fields it has.
 */
function copied(source: KubeObject): Record<string, unknown> {
  const type = source['type'];
  return {
    copiedData: source['data'] ?? {},
    ...(source['binaryData'] == null ? {} : { copiedBinaryData: source['binaryData'] }),
    ...(typeof type === 'string' ? { copiedType: type } : {}),
  };
}

/** copySource is the source of a rendered entry with `copyFrom` (default namespace: the CR's). */
function copySource(
  rendered: Readonly<Record<string, unknown>>,
  owner: Owner,
  entry: CompiledResourceEntry,
  namespaced: boolean,
  copyNamespace: string | undefined,
): { namespace: string; name: string; grantTo?: readonly string[] } | undefined {
  const from = rendered['copyFrom'] as { name?: unknown; namespace?: unknown } | undefined;
  if (from == null) return undefined;
  const namespace =
    typeof from.namespace === 'string' && from.namespace !== ''
      ? from.namespace
      : (owner.namespace ?? 'default');
  const name = typeof from.name === 'string' ? from.name : '';
  const declared = entry.raw['copyFrom'] as { name?: unknown; namespace?: unknown } | undefined;
  const chosenByCr = isTemplate(declared?.namespace) || isTemplate(declared?.name);
  const crNamespace = owner.namespace ?? 'default';
  if (!namespaced || !chosenByCr || namespace === crNamespace) return { namespace, name };
  const grantTo = [...new Set([crNamespace, copyNamespace ?? crNamespace])];
  return { namespace, name, grantTo };
}

function isTemplate(value: unknown): boolean {
  return typeof value === 'string' && value.includes('{{');
}

/** resolvable strips runtime-only keys the registry does not take (a `tls` Secret is resolved as its TLS type without data). */
function resolvable(
  entry: CompiledResourceEntry,
  rendered: Record<string, unknown>,
): Record<string, unknown> {
  if (entry.listKey !== 'secrets' || rendered['tls'] == null) return rendered;
  const { tls: _tls, data: _data, ...rest } = rendered;
  return { ...rest, type: rest['type'] ?? 'kubernetes.io/tls' };
}

/**
 * hintsFor gathers what the CR's entries tell each other, by the part their kind plays
 * (KindModule.sibling): the only workload, the only service and its first port, the workloads
 * the scalers target.
 */
function hintsFor(
  all: readonly Rendered[],
  crName: string,
): { base: ResolveHints; hpaTargets: ReadonlySet<string> } {
  const withRole = all.map((r) => ({ ...r, module: kindFor(r.entry.listKey) }));
  const defaultName = (r: (typeof withRole)[number]): string =>
    stringOr(r.rendered['name'], `${crName}${r.module?.defaultNameSuffix ?? ''}`);
  const workloads = withRole.filter((r) => r.module?.sibling?.role === 'workload');
  const services = withRole.filter((r) => r.module?.sibling?.role === 'service');
  const base: { -readonly [K in keyof ResolveHints]: ResolveHints[K] } = {};
  const workload = workloads.length === 1 ? workloads[0] : undefined;
  if (workload?.module?.kind != null) {
    base.defaultWorkload = { kind: workload.module.kind, name: defaultName(workload) };
  }
  const service = services.length === 1 ? services[0] : undefined;
  const serviceRole = service?.module?.sibling;
  if (service != null && serviceRole?.role === 'service') {
    const port = serviceRole.port(service.rendered);
    if (port != null) base.defaultService = { name: defaultName(service), port };
  }
  const hpaTargets = new Set<string>();
  for (const scaler of withRole) {
    const role = scaler.module?.sibling;
    if (role?.role !== 'scaler') continue;
    const name = role.target(scaler.rendered) ?? base.defaultWorkload?.name;
    if (typeof name === 'string') hpaTargets.add(name);
  }
  return { base, hpaTargets };
}

function stringOr(value: unknown, fallback: string): string {
  return typeof value === 'string' && value !== ''
    ? value
    : typeof value === 'number'
      ? String(value)
      : fallback;
}

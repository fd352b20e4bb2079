import { createHash } from 'node:crypto';
import {
  ConditionReason,
  ConditionStatus,
  ConditionType,
  OrkestraAnnotation,
  RESOURCE_KINDS,
  SECRET_TLS_DEFAULT_NAME_SUFFIX,
  evaluateCondition,
  evaluateConditions,
  getPath,
  stringForm,
  toOrkestraError,
} from '@orkestra/types';
import type { Condition, CrdEntry, Katalog, ResourceGroup } from '@orkestra/types';
import { coerce, compileEntry, compileNormalize, compileValue } from '@orkestra/template';
import type { TemplateContext, TemplateEngine } from '@orkestra/template';
import { kinds, withAppliedHash } from '@orkestra/registry';
import type { KindListKey, KubeObject, Owner, ResolveHints } from '@orkestra/registry';
import type { CustomResource } from './cr-input.js';
import { isBlockedNamespace } from './namespace-guard.js';
import { reportCaughtError } from './caught-error.js';

/** ProviderResultInput is a provider declaration's result as given in a render context file. */
export interface ProviderResultInput {
  readonly ready?: boolean;
  readonly message?: string;
  readonly outputs?: Readonly<Record<string, unknown>>;
}

/**
 * RenderContext supplies what `ork render` cannot compute offline (the results of cross reads,
 * git, external calls, docker builds and providers) and, optionally, the observed children that
 * status fields read (katalog.md §13.3: `children.deployment`, `children.deployments.<name>`, …).
 */
export interface RenderContext {
  readonly cross?: Readonly<Record<string, unknown>>;
  readonly git?: Readonly<Record<string, unknown>>;
  readonly external?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  readonly docker?: Readonly<Record<string, unknown>>;
  readonly providers?: Readonly<Record<string, Readonly<Record<string, ProviderResultInput>>>>;
  readonly children?: Readonly<Record<string, unknown>>;
}

/** RenderOptions configures renderCr. */
export interface RenderOptions {
  /** Engine with the render's random source and clock. */
  readonly engine: TemplateEngine;
  /** The time conditions, `now` and `lastTransitionTime` see. */
  readonly now: Date;
  readonly context?: RenderContext;
}

/** RenderedChild is one desired child and how it would be written. */
export interface RenderedChild {
  readonly manifest: KubeObject;
  readonly mode: 'create' | 'apply';
  readonly source: string;
  readonly prune: boolean;
}

/** RenderFailure is the reason and message the Ready condition would carry after a failed reconcile. */
export interface RenderFailure {
  readonly reason: ConditionReason;
  readonly message: string;
}

/**
 * RenderStage is the part of the offline pipeline a failure happened in (runtime.md §7):
 * `namespace` (step 4), `normalize` (6), `mutation` (7), `validation` (8), `hooks` (9–12),
 * `children` (13, desired-set construction), `providers` (16). Children are written only when
 * the failure comes after the desired set was built.
 */
export type RenderStage =
  'namespace' | 'normalize' | 'mutation' | 'validation' | 'hooks' | 'children' | 'providers';

/** RenderedCr is what one reconcile of a CR would produce offline: its children and the status written. */
export interface RenderedCr {
  readonly entryName: string;
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace: string | undefined;
  readonly children: readonly RenderedChild[];
  readonly status: Record<string, unknown>;
  readonly failure: RenderFailure | undefined;
  /** The stage the failure happened in; undefined without a failure. */
  readonly failedStage: RenderStage | undefined;
  /** The CR's spec after mutation rules when they changed it (the runtime merge-patches it); else undefined. */
  readonly mutatedSpec: Record<string, unknown> | undefined;
  /** Things the reader should know: results missing from the context, skipped checks, status field errors. */
  readonly notes: readonly string[];
}

/** RenderInputError is a CR that cannot be rendered at all (no CRD entry serves its apiVersion and kind). */
export class RenderInputError extends Error {
  override readonly name = 'RenderInputError';
  readonly code = 'RenderInputError';
}

type Json = Record<string, unknown>;

const isMap = (value: unknown): value is Json =>
  value != null && typeof value === 'object' && !Array.isArray(value);

/** own reads a key that comes from user input (a CR, a context file): own properties only, never Object.prototype's. */
const own = (map: unknown, key: string): unknown =>
  isMap(map) && Object.hasOwn(map, key) ? map[key] : undefined;

/** nullProtoMap is a map to fill with user-named keys: a key such as `__proto__` stays an ordinary key. */
const nullProtoMap = (): Json => Object.create(null) as Json;

/** fakeUid derives a stable UUID-shaped UID from the CR's identity, for CRs written without one. */
export function fakeUid(entry: string, namespace: string | undefined, name: string): string {
  const hex = createHash('sha256')
    .update(`${entry}/${namespace ?? ''}/${name}`)
    .digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** findEntry returns the CRD entry whose apiTypes match a CR's apiVersion and kind. */
export function findEntry(
  katalog: Katalog,
  apiVersion: string,
  kind: string,
): [string, CrdEntry] | undefined {
  return Object.entries(katalog.spec.crds).find(
    ([, e]) => `${e.apiTypes.group}/${e.apiTypes.version}` === apiVersion && e.apiTypes.kind === kind,
  );
}

function setPath(target: Json, path: string, value: unknown): void {
  const segments = path.replace(/^\./, '').split('.');
  let node = target;
  for (const segment of segments.slice(0, -1)) {
    const next = own(node, segment);
    if (!isMap(next)) node[segment] = {};
    node = node[segment] as Json;
  }
  const last = segments.at(-1) ?? '';
  if (value === undefined) delete node[last];
  else node[last] = value;
}

function specHash(spec: unknown): string {
  return createHash('sha256').update(canonical(spec)).digest('hex').slice(0, 16);
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isMap(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const STATUS_TYPES: Readonly<Record<string, 'string' | 'int' | 'float' | 'bool'>> = {
  string: 'string',
  int: 'int',
  float: 'float',
  bool: 'bool',
};

function convertStatusValue(value: unknown, type: string | undefined, path: string): unknown {
  if (type == null || value == null) return value;
  if (type === 'auto') {
    for (const t of ['int', 'float', 'bool'] as const) {
      try {
        return coerce(value, t, path);
      } catch {
        // try the next type
      }
    }
    return coerce(value, 'string', path);
  }
  const target = STATUS_TYPES[type];
  return target == null ? value : coerce(value, target, path);
}

class ReconcileFailure extends Error {
  readonly reason: ConditionReason;

  constructor(reason: ConditionReason, message: string) {
    super(message);
    this.reason = reason;
  }
}

function failureOf(error: unknown): ReconcileFailure {
  if (error instanceof ReconcileFailure) return error;
  reportCaughtError(error, 'render: reconcile');
  const normalized = toOrkestraError(error);
  const reason = (Object.values(ConditionReason) as string[]).includes(normalized.code)
    ? (normalized.code as ConditionReason)
    : ConditionReason.InternalError;
  return new ReconcileFailure(reason, normalized.message);
}

/**
 * renderCr runs the offline part of a reconcile for one CR (runtime.md §7): namespace guard,
 * normalize, mutation, validation, hook results from the context, forEach expansion, gates,
 * onCreate and onReconcile children resolved by @orkestra/registry, provider declarations, and
 * the status the runtime would write. Nothing touches a cluster. The CR's shape is checked where
 * it is read (checkCustomResource); a CR no entry serves throws a RenderInputError.
 */
export function renderCr(katalog: Katalog, input: CustomResource, options: RenderOptions): RenderedCr {
  const found = findEntry(katalog, input.apiVersion, input.kind);
  if (found == null) {
    throw new RenderInputError(
      `no CRD entry of Katalog ${katalog.metadata.name} serves ${input.apiVersion} ${input.kind}`,
    );
  }
  const [entryName, entry] = found;
  const metadata = input.metadata;
  const name = metadata.name;
  const namespace = entry.namespaced ? (metadata.namespace ?? 'default') : undefined;
  const uid = metadata.uid ?? fakeUid(entryName, namespace, name);
  const generation = typeof metadata['generation'] === 'number' ? metadata['generation'] : 1;
  let stored: Json = {
    ...structuredClone(input),
    metadata: {
      ...structuredClone(metadata),
      name,
      ...(namespace == null ? {} : { namespace }),
      uid,
      generation,
    },
    spec: isMap(input['spec']) ? structuredClone(input['spec']) : {},
    status: isMap(input['status']) ? structuredClone(input['status']) : {},
  };
  const { engine, now } = options;
  const ctxOptions = {
    now: () => now,
    renderTemplate: (source: string, context: Readonly<Record<string, unknown>>) =>
      engine.renderTemplate(source, context),
  };
  const passes = (
    gate: { readonly when?: readonly Condition[]; readonly anyOf?: readonly Condition[] },
    context: TemplateContext,
  ): boolean => evaluateConditions(gate, context, ctxOptions).passed;
  const supplied = options.context ?? {};
  const notes: string[] = [];
  const children: RenderedChild[] = [];
  const box = entry.operatorBox;
  const owner: Owner = {
    apiVersion: `${entry.apiTypes.group}/${entry.apiTypes.version}`,
    kind: entry.apiTypes.kind,
    name,
    ...(namespace == null ? {} : { namespace }),
    uid,
    crd: entryName,
  };
  const guard = { restricted: entry.restrictedNamespaces, allowed: entry.allowedNamespaces };

  let failure: ReconcileFailure | undefined;
  let warnings: string[] = [];
  let hasWarnRules = false;
  let context: Json = {};
  const freshProviders: Json = nullProtoMap();
  const providerRecords: Json =
    isMap(stored['status']) && isMap((stored['status'] as Json)['providers'])
      ? structuredClone((stored['status'] as Json)['providers'] as Json)
      : {};

  const crContext = (cr: Json): Json => ({
    apiVersion: cr['apiVersion'],
    kind: cr['kind'],
    metadata: cr['metadata'],
    spec: cr['spec'],
    status: cr['status'],
  });

  let stage: RenderStage = 'namespace';
  let mutatedSpec: Json | undefined;
  try {
    // 4. Namespace guard.
    if (namespace != null && isBlockedNamespace(namespace, guard)) {
      throw new ReconcileFailure(
        ConditionReason.NamespaceRestricted,
        `namespace ${namespace} is blocked by the restrictedNamespaces/allowedNamespaces of ${entryName}`,
      );
    }
    // 6. normalize; 7. mutation (then normalized again).
    stage = 'normalize';
    const normalizer =
      entry.normalize == null
        ? undefined
        : compileNormalize(entry.normalize, { path: `${entryName}.normalize`, engine });
    let normalized = normalizer == null ? stored : normalizer.apply(stored);
    const rules = entry.mutation?.rules ?? [];
    if (rules.length > 0) {
      stage = 'mutation';
      let mutated = false;
      const next: Json = structuredClone(stored);
      rules.forEach((rule, index) => {
        const ctx = crContext(normalized);
        if (!passes(rule, ctx)) return;
        const field = rule.field.replace(/^\./, '');
        const current = getPath(next, field);
        const isDefault = rule.default !== undefined;
        if (isDefault && !(current == null || current === '')) return;
        const path = `${entryName}.mutation.rules[${index}].${isDefault ? 'default' : 'override'}`;
        let value = compileValue(isDefault ? rule.default : rule.override, { path, engine }).render(ctx);
        if (rule.valueType != null)
          value = coerce(value, rule.valueType as 'string' | 'int' | 'float' | 'bool', path);
        if (canonical(value) === canonical(current)) return;
        setPath(next, field, value);
        mutated = true;
      });
      if (mutated) {
        stored = next;
        mutatedSpec = isMap(next['spec']) ? structuredClone(next['spec'] as Json) : {};
        normalized = normalizer == null ? stored : normalizer.apply(stored);
        notes.push('mutation rules changed the CR; the runtime would merge-patch its spec');
      }
    }
    context = crContext(normalized);

    // 8. validation.
    stage = 'validation';
    const violations: string[] = [];
    (entry.validation?.rules ?? []).forEach((rule) => {
      if (rule.action === 'warn') hasWarnRules = true;
      if (!passes(rule, context)) return;
      if ('operator' in rule.condition && rule.condition.operator === 'unique') {
        notes.push(
          `validation rule on ${rule.condition.field} uses unique, which needs the other CRs: not checked offline`,
        );
        return;
      }
      if (evaluateCondition(rule.condition, context, ctxOptions).passed) return;
      const message = stringForm(engine.renderTemplate(rule.message, context));
      if (rule.action === 'warn') warnings.push(message);
      else violations.push(message);
    });
    if (violations.length > 0)
      throw new ReconcileFailure(ConditionReason.ValidationFailed, violations.join('; '));

    // 9–12. cross, git, external, docker: results come from the context.
    stage = 'hooks';
    const cross: Json = {};
    for (const read of box.cross) {
      const as = read.as ?? read.crd;
      const given = own(supplied.cross, as);
      if (given == null) notes.push(`cross.${as}: no result in the context; rendered as not found`);
      cross[as] = {
        found: false,
        name: '',
        namespace: '',
        labels: {},
        annotations: {},
        spec: {},
        status: {},
        ...(isMap(given) ? given : {}),
      };
    }
    context = { ...context, cross };
    if (box.git != null) {
      const called = passes(box.git, context);
      const given = supplied.git;
      if (called && given == null) notes.push('git: no result in the context; rendered as not called');
      const git: Json = {
        called: called && given != null,
        commit: '',
        shortCommit: '',
        branch: '',
        dir: '',
        changed: false,
        error: '',
        ...(called && isMap(given) ? given : {}),
      };
      if (git['error'] !== '' && !box.git.continueOnError) {
        context = { ...context, git };
        throw new ReconcileFailure(ConditionReason.GitFailed, `git: ${stringForm(git['error'])}`);
      }
      context = { ...context, git };
    }
    const external: Json = {};
    for (const call of box.external) {
      const called = passes(call, { ...context, external });
      const given = own(supplied.external, call.name) as Json | undefined;
      if (called && given == null)
        notes.push(`external.${call.name}: no result in the context; rendered as not called`);
      const result: Json =
        called && given != null
          ? {
              called: true,
              ok: true,
              status: 200,
              body: '',
              json: null,
              headers: {},
              error: '',
              durationMs: 0,
              ...given,
            }
          : {
              called: false,
              ok: false,
              status: 0,
              body: '',
              json: null,
              headers: {},
              error: '',
              durationMs: 0,
            };
      external[call.name] = result;
      if (result['called'] === true && result['ok'] !== true && !call.continueOnError) {
        context = { ...context, external };
        throw new ReconcileFailure(
          ConditionReason.ExternalCallFailed,
          `external call ${call.name} failed: ${stringForm(result['error']) || `status ${stringForm(result['status'])}`}`,
        );
      }
    }
    context = { ...context, external };
    if (box.docker != null) {
      const called = passes(box.docker, context);
      const given = supplied.docker;
      if (called && given == null) notes.push('docker: no result in the context; rendered as not built');
      const docker: Json = {
        called: called && given != null,
        image: '',
        digest: '',
        buildSucceeded: false,
        error: '',
        ...(called && isMap(given) ? given : {}),
      };
      context = { ...context, docker };
      if (docker['error'] !== '' && !box.docker.continueOnError) {
        throw new ReconcileFailure(
          ConditionReason.DockerBuildFailed,
          `docker: ${stringForm(docker['error'])}`,
        );
      }
    }
    // Resource templates see the provider outputs recorded by the last reconcile (katalog.md §14.3).
    const recorded: Json = nullProtoMap();
    for (const [provider, records] of Object.entries(providerRecords)) {
      if (!isMap(records)) continue;
      const byName: Json = nullProtoMap();
      for (const [declName, record] of Object.entries(records)) {
        if (!isMap(record)) continue;
        byName[declName] = {
          ...(isMap(record['outputs']) ? record['outputs'] : {}),
          ready: record['ready'] === true,
          message: record['message'] ?? '',
        };
      }
      recorded[provider] = byName;
    }
    for (const [provider, results] of Object.entries(supplied.providers ?? {})) {
      const previous = own(recorded, provider);
      const byName: Json = isMap(previous) ? previous : nullProtoMap();
      for (const [declName, result] of Object.entries(results)) {
        byName[declName] = {
          ...(result.outputs ?? {}),
          ready: result.ready ?? true,
          message: result.message ?? '',
        };
      }
      recorded[provider] = byName;
    }
    context = { ...context, providers: recorded };

    // 13–15. Desired children: forEach, gates, registry resolve.
    stage = 'children';
    collectChildren();

    // 16. Providers.
    stage = 'providers';
    let pending: string | undefined;
    for (const [provider, declarations] of Object.entries(box.providers)) {
      for (const [index, declaration] of declarations.entries()) {
        const declContext = { ...context, providers: { ...recorded, ...freshProviders } };
        if (!passes(declaration, declContext)) continue;
        const path = `${entryName}.operatorBox.providers.${provider}[${index}].${declaration.kind}`;
        const spec = compileValue(declaration.spec, { path, engine }).render(declContext);
        const given = own(own(supplied.providers, provider), declaration.name) as
          ProviderResultInput | undefined;
        const ready = given?.ready ?? given != null;
        const message =
          given?.message ??
          (given == null ? 'no result in the render context (ork render does not call providers)' : '');
        const outputs = given?.outputs ?? {};
        if (given == null)
          notes.push(
            `providers.${provider}.${declaration.name}: no result in the context; rendered as pending`,
          );
        const recordedBefore = own(providerRecords, provider);
        const records = isMap(recordedBefore) ? recordedBefore : nullProtoMap();
        records[declaration.name] = {
          kind: declaration.kind,
          ready,
          message,
          outputs,
          spec,
          specHash: specHash(spec),
          ...(ready ? { lastSuccessTime: now.toISOString().replace(/\.\d{3}Z$/, 'Z') } : {}),
        };
        providerRecords[provider] = records;
        const freshBefore = own(freshProviders, provider);
        const fresh = isMap(freshBefore) ? freshBefore : nullProtoMap();
        fresh[declaration.name] = { ...outputs, ready, message };
        freshProviders[provider] = fresh;
        if (!ready && pending == null)
          pending = `provider ${provider} declaration ${declaration.name}: ${message}`;
      }
    }
    if (pending != null) throw new ReconcileFailure(ConditionReason.ProviderPending, pending);
  } catch (error) {
    failure = failureOf(error);
    if (stage === 'namespace' || stage === 'normalize' || stage === 'mutation') warnings = [];
  }

  // 17. Status.
  const status = buildStatus();
  return {
    entryName,
    apiVersion: owner.apiVersion,
    kind: owner.kind,
    name,
    namespace,
    children,
    status,
    failure: failure == null ? undefined : { reason: failure.reason, message: failure.message },
    failedStage: failure == null ? undefined : stage,
    mutatedSpec,
    notes,
  };

  function collectChildren(): void {
    interface Pending {
      readonly group: 'onCreate' | 'onReconcile';
      readonly listKey: KindListKey;
      readonly index: number;
      readonly rendered: Json;
      readonly declared: Json;
    }
    const pendingChildren: Pending[] = [];
    let workloadEntries = 0;
    let workloadForEach = false;
    for (const groupName of ['onCreate', 'onReconcile'] as const) {
      const group = box[groupName] as ResourceGroup;
      for (const info of RESOURCE_KINDS) {
        if (info.listKey !== 'deployments' && info.listKey !== 'statefulSets') continue;
        const list = (group as unknown as Record<string, readonly Json[]>)[info.listKey] ?? [];
        workloadEntries += list.length;
        if (list.some((e) => e['forEach'] != null)) workloadForEach = true;
      }
    }
    for (const groupName of ['onCreate', 'onReconcile'] as const) {
      const group = box[groupName] as ResourceGroup;
      if (!passes(group, context)) continue;
      for (const info of RESOURCE_KINDS) {
        const list = (group as unknown as Record<string, readonly Json[]>)[info.listKey] ?? [];
        list.forEach((declared, index) => {
          const path = `${entryName}.operatorBox.${groupName}.${info.listKey}[${index}]`;
          const compiled = compileEntry(declared, { path, engine });
          const copies = compiled.expand(context, {
            include: (ctx, gate) => passes(gate as Parameters<typeof passes>[0], ctx),
          });
          for (const copy of copies) {
            pendingChildren.push({
              group: groupName,
              listKey: info.listKey as KindListKey,
              index,
              rendered: copy.entry,
              declared,
            });
          }
        });
      }
    }

    const nameOrDefault = (p: Pending): string => {
      const given = p.rendered['name'];
      if (typeof given === 'string' && given !== '') return given;
      const info = RESOURCE_KINDS.find((k) => k.listKey === p.listKey);
      const suffix =
        p.listKey === 'secrets' && p.rendered['tls'] != null
          ? SECRET_TLS_DEFAULT_NAME_SUFFIX
          : (info?.defaultNameSuffix ?? '');
      return `${name}${suffix}`;
    };
    const workloads = pendingChildren.filter(
      (p) => p.listKey === 'deployments' || p.listKey === 'statefulSets',
    );
    const first = workloads[0];
    const defaultWorkload =
      workloadEntries === 1 && !workloadForEach && first != null
        ? {
            kind: first.listKey === 'deployments' ? ('Deployment' as const) : ('StatefulSet' as const),
            name: nameOrDefault(first),
          }
        : undefined;
    const services = pendingChildren.filter((p) => p.listKey === 'services');
    const onlyService = services.length === 1 ? services[0] : undefined;
    let defaultService: ResolveHints['defaultService'];
    if (onlyService != null) {
      const ports = onlyService.rendered['ports'];
      const port =
        onlyService.rendered['port'] ??
        (Array.isArray(ports) && isMap(ports[0]) ? ports[0]['port'] : undefined);
      if (typeof port === 'number' || typeof port === 'string')
        defaultService = { name: nameOrDefault(onlyService), port };
    }
    const hpaTargets = new Set(
      pendingChildren
        .filter((p) => p.listKey === 'hpa')
        .map((p) => {
          const ref = p.rendered['scaleTargetRef'];
          return isMap(ref) && typeof ref['name'] === 'string' ? ref['name'] : defaultWorkload?.name;
        }),
    );

    const seen = new Map<string, string>();
    let namespaceFailure: ReconcileFailure | undefined;
    for (const p of pendingChildren) {
      const source = `${p.group}.${p.listKey}[${p.index}]`;
      let rendered = p.rendered;
      const isTls = p.listKey === 'secrets' && rendered['tls'] != null;
      if (isTls) {
        const { tls: _tls, once: _once, rotateAfter: _rotate, ...rest } = rendered;
        rendered = { ...rest, name: nameOrDefault(p), type: 'kubernetes.io/tls' };
      }
      const hints: ResolveHints = {
        ...(defaultWorkload == null ? {} : { defaultWorkload }),
        ...(defaultService == null ? {} : { defaultService }),
        ...((p.listKey === 'deployments' || p.listKey === 'statefulSets') && hpaTargets.has(nameOrDefault(p))
          ? { hpaTargeted: true }
          : {}),
        ...(p.listKey === 'custom' ? { namespaced: rendered['namespaced'] !== false } : {}),
      };
      const module = kinds[p.listKey];
      const resolved = module.resolve({ entry: rendered, path: source }, owner, hints);
      let manifest = resolved.manifest;
      const childNamespace = manifest.metadata.namespace;
      const guarded = manifest.kind === 'Namespace' ? manifest.metadata.name : childNamespace;
      if (guarded != null && isBlockedNamespace(guarded, guard)) {
        namespaceFailure ??= new ReconcileFailure(
          ConditionReason.NamespaceRestricted,
          `${source}: namespace ${guarded} is blocked by the restrictedNamespaces/allowedNamespaces of ${entryName}`,
        );
        continue;
      }
      const identity = `${manifest.apiVersion}/${manifest.kind}/${childNamespace ?? ''}/${manifest.metadata.name}`;
      const previous = seen.get(identity);
      if (previous != null) {
        throw new ReconcileFailure(
          ConditionReason.DuplicateChild,
          `${source} renders ${manifest.kind} ${childNamespace == null ? '' : `${childNamespace}/`}${manifest.metadata.name}, which ${previous} renders too`,
        );
      }
      seen.set(identity, source);
      const rotateAfter = p.rendered['rotateAfter'];
      if (isTls || rotateAfter != null) {
        const stamp = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
        const tls = isMap(p.rendered['tls']) ? p.rendered['tls'] : undefined;
        manifest = {
          ...manifest,
          metadata: {
            ...manifest.metadata,
            annotations: {
              ...manifest.metadata.annotations,
              [OrkestraAnnotation.GeneratedAt]: stamp,
              ...(rotateAfter == null ? {} : { [OrkestraAnnotation.RotateAfter]: stringForm(rotateAfter) }),
            },
          },
          ...(isTls ? { data: { 'ca.crt': '', 'tls.crt': '', 'tls.key': '' } } : {}),
        };
        if (isTls) {
          notes.push(
            `${source}: TLS Secret ${manifest.metadata.name} is shown with empty data; the runtime generates the CA and certificate${tls?.['validFor'] == null ? '' : ` (valid ${stringForm(tls['validFor'])})`}`,
          );
        }
      }
      const createMode =
        resolved.createOnly || isTls || (p.group === 'onCreate' && p.declared['reconcile'] !== true);
      if (!createMode) manifest = withAppliedHash(manifest);
      children.push({
        manifest,
        mode: createMode ? 'create' : 'apply',
        source,
        prune: p.declared['prune'] !== false,
      });
    }
    if (namespaceFailure != null) throw namespaceFailure;
  }

  function buildStatus(): Json {
    const previous: Json = isMap(stored['status']) ? structuredClone(stored['status'] as Json) : {};
    const status: Json = { ...previous };
    const oldConditions = Array.isArray(previous['conditions']) ? (previous['conditions'] as Json[]) : [];
    const stamp = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
    const conditionFor = (type: string, state: string, reason: string, message: string): Json => {
      const old = oldConditions.find((c) => isMap(c) && c['type'] === type);
      return {
        type,
        status: state,
        reason,
        message,
        observedGeneration: generation,
        lastTransitionTime:
          old != null && old['status'] === state && typeof old['lastTransitionTime'] === 'string'
            ? old['lastTransitionTime']
            : stamp,
      };
    };
    const conditions: Json[] = oldConditions.filter(
      (c) => isMap(c) && c['type'] !== ConditionType.Ready && c['type'] !== ConditionType.ValidationWarning,
    );
    conditions.unshift(
      failure == null
        ? conditionFor(ConditionType.Ready, ConditionStatus.True, ConditionReason.ReconcileSucceeded, '')
        : conditionFor(ConditionType.Ready, ConditionStatus.False, failure.reason, failure.message),
    );
    if (hasWarnRules) {
      conditions.splice(
        1,
        0,
        warnings.length > 0
          ? conditionFor(
              ConditionType.ValidationWarning,
              ConditionStatus.True,
              ConditionReason.ValidationWarning,
              warnings.join('; '),
            )
          : conditionFor(
              ConditionType.ValidationWarning,
              ConditionStatus.False,
              ConditionReason.NoWarnings,
              '',
            ),
      );
    }
    status['observedGeneration'] = generation;
    status['conditions'] = conditions;
    status['inventory'] = children.map((c) => ({
      apiVersion: c.manifest.apiVersion,
      kind: c.manifest.kind,
      ...(c.manifest.metadata.namespace == null ? {} : { namespace: c.manifest.metadata.namespace }),
      name: c.manifest.metadata.name,
      mode: c.mode,
      source: c.source,
      ...(c.prune ? {} : { prune: false }),
    }));
    if (Object.keys(providerRecords).length > 0) status['providers'] = providerRecords;
    else delete status['providers'];

    // Declared fields (katalog.md §13.2): after a failure only gated fields are evaluated.
    const fieldContext: Json = {
      ...crContext(stored),
      ...context,
      status: previous,
      providers: {
        ...(isMap(context['providers']) ? (context['providers'] as Json) : {}),
        ...freshProviders,
      },
      children: supplied.children ?? {},
    };
    box.status.fields.forEach((field, index) => {
      const gated = field.when.length > 0 || field.anyOf.length > 0;
      if (failure != null && !gated) return;
      const path = `${entryName}.operatorBox.status.fields[${index}]`;
      try {
        if (!passes(field, fieldContext)) {
          if (field.clearOnFalse) setPath(status, field.path, undefined);
          return;
        }
        const raw = compileValue(field.value, { path: `${path}.value`, engine }).render(fieldContext);
        setPath(status, field.path, convertStatusValue(raw, field.type, `${path}.value`));
      } catch (error) {
        notes.push(`StatusFieldError: ${toOrkestraError(error).message}`);
      }
    });
    return status;
  }
}

/**
 * Load-time compilation of a Katalog for the runtime: every template of every entry is compiled
 * once, so a reconcile only evaluates (docs/reference/runtime.md §1, style.md "compile once").
 */
import { kindFor } from '@orkestra/registry';
import { compileEntry, compileNormalize, compileValue, getDefaultEngine } from '@orkestra/template';
import type { CompiledEntry, CompiledNormalize, CompiledValue, TemplateEngine } from '@orkestra/template';
import { RESOURCE_KINDS, admissionOnlyReason, katalogPathOf } from '@orkestra/types';
import { compileStatusFields } from '../status/status-fields.js';
import { compileHooks } from './compile-hooks.js';
import { managedKindRefs } from '../hooks/remote/answer.js';
import type { RemoteChild } from '../hooks/remote/answer.js';
import type { CompiledHooks } from './compile-hooks.js';
import type { CompiledStatusField } from '../status/status-fields.js';
import type {
  ApiTypes,
  Condition,
  CrdEntry,
  DeleteGroup,
  Katalog,
  MutationRule,
  ResourceGroup,
  ResourceListKey,
  ValidationRule,
} from '@orkestra/types';

/** GroupName is a lifecycle group that writes children. */
export type GroupName = 'onCreate' | 'onReconcile';

/** CompiledResourceEntry is one resource entry of onCreate/onReconcile, compiled. */
export interface CompiledResourceEntry {
  readonly group: GroupName;
  readonly listKey: ResourceListKey;
  /** Position within its list: the declaration order used for error reporting. */
  readonly index: number;
  /** Path relative to the CRD entry, e.g. `onReconcile.deployments[0]` (the child's source annotation). */
  readonly source: string;
  /** Full Katalog path, e.g. `website.operatorBox.onReconcile.deployments[0]`. */
  readonly katalogPath: string;
  /** The entry as loaded (defaults applied). */
  readonly raw: Readonly<Record<string, unknown>>;
  readonly compiled: CompiledEntry;
  /** Apply mode: onReconcile, or onCreate with `reconcile: true`. */
  readonly applyMode: boolean;
  readonly prune: boolean;
  readonly forceConflict: boolean;
  /**
   * The `data` of a `once` Secret (also with `rotateAfter` or `tls`), compiled apart from the rest:
   * rendered only when the Secret is created or rotated (docs/reference/runtime.md §9.2). `compiled` leaves it out.
   */
  readonly deferredData?: CompiledValue;
  /** The entry's `id`, used by other entries' `waitFor` (docs/adr/0009-synced-ready.md). */
  readonly id?: string;
  /** Conditions over the child's own object that decide its readiness (kept unrendered; docs/adr/0009-synced-ready.md). */
  readonly readyWhen: readonly Condition[];
  /** Ids of entries that must be ready before this one is applied (docs/adr/0009-synced-ready.md). */
  readonly waitFor: readonly string[];
}

/** CompiledGroup is onCreate or onReconcile: its gate and entries in kind order, then declaration order. */
export interface CompiledGroup {
  readonly name: GroupName;
  readonly gate: { readonly when: readonly unknown[]; readonly anyOf: readonly unknown[] };
  readonly entries: readonly CompiledResourceEntry[];
}

/** CompiledMutationRule is a mutation rule with its value template compiled. */
export interface CompiledMutationRule {
  readonly rule: MutationRule;
  readonly katalogPath: string;
  readonly value: CompiledValue;
  readonly mode: 'default' | 'override';
  /**
   * False for a rule applied at admission only (upstream's `fires.reconcile: false`, or it reads a
   * `mutation.external` call's result; ADR 0112): the reconcile skips it.
   */
  readonly atReconcile: boolean;
}

/** CompiledValidationRule is a validation rule with its message compiled. */
export interface CompiledValidationRule {
  readonly rule: ValidationRule;
  /** The rule's index in the entry's `validation.rules`. */
  readonly index: number;
  readonly katalogPath: string;
  readonly message: CompiledValue;
  /**
   * False for a rule judged at admission only (upstream's `fires.reconcile: false`, or it reads an
   * admission-only call's result; ADR 0104): the reconcile skips it.
   */
  readonly atReconcile: boolean;
}

/** CompiledDeleteGroup is one ordered onDelete group with its name templates compiled. */
export interface CompiledDeleteGroup {
  readonly group: DeleteGroup;
  readonly katalogPath: string;
  readonly refs: readonly {
    readonly listKey: ResourceListKey;
    readonly index: number;
    readonly value: CompiledValue;
  }[];
}

/** CompiledCrd is one enabled CRD entry, compiled. */
export interface CompiledCrd {
  readonly name: string;
  readonly entry: CrdEntry;
  readonly apiTypes: ApiTypes;
  /** `group/version`. */
  readonly apiVersion: string;
  readonly katalogPath: string;
  readonly normalize: CompiledNormalize | undefined;
  readonly mutation: readonly CompiledMutationRule[];
  readonly validation: readonly CompiledValidationRule[];
  readonly groups: readonly [CompiledGroup, CompiledGroup];
  /**
   * `rollback.onRollback` (docs/reference/katalog.md §20.4): children applied, in apply mode, while
   * a CR is rolled back, rendered with `.previous`. Their sources start with `rollback.onRollback.`.
   */
  readonly onRollback?: CompiledGroup | undefined;
  readonly onDeleteJobs: readonly CompiledResourceEntry[];
  readonly onDeleteGroups: readonly CompiledDeleteGroup[];
  readonly statusFields: readonly CompiledStatusField[];
  /** Finalizers added to every CR: the runtime's plus `operatorBox.finalizers` and `spec.finalizers`. */
  readonly extraFinalizers: readonly string[];
  /**
   * The Katalog's `allowedSourceNamespaces`: namespaces whose Secrets a copy the CR chose may read
   * without a grant on the source (docs/reference/katalog.md §7.2).
   */
  readonly allowedSourceNamespaces: readonly string[];
  /**
   * What Ready means (docs/adr/0009-synced-ready.md): `children` (Synced and every child ready) or `reconciled` (Ready =
   * Synced, upstream's meaning; the loader sets it for upstream dialects).
   */
  readonly readiness: 'children' | 'reconciled';
  /** Child kinds this entry may write or delete, as `apiVersion` + `kind` (custom kinds included). */
  readonly childKinds: readonly { readonly apiVersion: string; readonly kind: string }[];
  /** Hook and provider declarations (steps 9–12 and 16), compiled. */
  readonly hooks: CompiledHooks;
  /** The entry's `labels` and `annotations` for the CR itself (step 18), when it declares any. */
  readonly crMetadata: CompiledValue | undefined;
}

/** CompiledKatalog is a Katalog whose templates are all compiled. */
export interface CompiledKatalog {
  readonly katalog: Katalog;
  /** Enabled entries in `dependsOn`-independent declaration order. */
  readonly crds: ReadonlyMap<string, CompiledCrd>;
}

/** CompileKatalogOptions configures compileKatalog. */
export interface CompileKatalogOptions {
  /** Engine with the clock and random source helpers use. Default: the shared engine. */
  readonly engine?: TemplateEngine;
}

/**
 * compileKatalog compiles every template of every enabled CRD entry once (normalize, mutation,
 * validation messages, resource entries with their forEach, onDelete jobs and groups, status
 * fields). A template error throws a `TemplateError` naming the Katalog path and column.
 *
 * @example
 * const compiled = compileKatalog(loadKatalogOrThrow({ text }));
 * compiled.crds.get('website')?.groups[1].entries.length;
 */
export function compileKatalog(katalog: Katalog, options: CompileKatalogOptions = {}): CompiledKatalog {
  const engine = options.engine ?? getDefaultEngine();
  const crds = new Map<string, CompiledCrd>();
  for (const [name, entry] of Object.entries(katalog.spec.crds)) {
    if (!entry.enabled) continue;
    crds.set(name, compileCrd(name, entry, katalog, engine));
  }
  return { katalog, crds };
}

function pathOf(node: object, fallback: string): string {
  return katalogPathOf(node) ?? fallback;
}

function compileCrd(name: string, entry: CrdEntry, katalog: Katalog, engine: TemplateEngine): CompiledCrd {
  const base = pathOf(entry, name);
  const box = entry.operatorBox;
  const normalize =
    entry.normalize == null
      ? undefined
      : compileNormalize(entry.normalize, { path: `${base}.normalize`, engine });
  const mutation = (entry.mutation?.rules ?? []).map((rule, i): CompiledMutationRule => {
    const katalogPath = pathOf(rule, `${base}.mutation.rules[${i}]`);
    const mode = rule.override === undefined ? 'default' : 'override';
    return {
      rule,
      katalogPath,
      mode,
      atReconcile: admissionOnlyReason(rule, entry.mutation) === undefined,
      value: compileValue(mode === 'override' ? rule.override : rule.default, {
        path: `${katalogPath}.${mode}`,
        engine,
      }),
    };
  });
  // A rule scoped to another served version judges that version's requests at admission only:
  // the runtime reads objects at apiTypes.version (docs/reference/katalog.md §12, ADR 0069).
  const validation = (entry.validation?.rules ?? []).flatMap((rule, i): CompiledValidationRule[] => {
    if (rule.version != null && rule.version !== entry.apiTypes.version) return [];
    const katalogPath = pathOf(rule, `${base}.validation.rules[${i}]`);
    return [
      {
        rule,
        index: i,
        katalogPath,
        message: compileValue(rule.message, { path: `${katalogPath}.message`, engine }),
        atReconcile: admissionOnlyReason(rule, entry.validation) === undefined,
      },
    ];
  });
  const onReconcile = compileGroup('onReconcile', box.onReconcile, base, entry, engine);
  const groups: [CompiledGroup, CompiledGroup] = [
    compileGroup('onCreate', box.onCreate, base, entry, engine),
    box.remote == null
      ? onReconcile
      : { ...onReconcile, entries: [...onReconcile.entries, ...remoteEntries(base, entry, engine)] },
  ];
  const onRollback =
    entry.rollback?.onRollback == null
      ? undefined
      : compileRollbackGroup(entry.rollback.onRollback, base, entry, engine);
  const onDelete = box.onDelete;
  const onDeleteJobs = (onDelete?.jobs ?? []).map((job, index) =>
    compileResource('onCreate', 'jobs', index, job as object, `onDelete.jobs[${index}]`, base, entry, engine),
  );
  const onDeleteGroups = (onDelete?.groups ?? []).map((group, gi): CompiledDeleteGroup => {
    const katalogPath = pathOf(group, `${base}.operatorBox.onDelete.groups[${gi}]`);
    const refs: CompiledDeleteGroup['refs'][number][] = [];
    for (const info of RESOURCE_KINDS) {
      const list = (group as unknown as Record<string, unknown>)[info.listKey];
      if (!Array.isArray(list)) continue;
      list.forEach((ref: unknown, index) => {
        refs.push({
          listKey: info.listKey,
          index,
          value: compileValue(ref, { path: `${katalogPath}.${info.listKey}[${index}]`, engine }),
        });
      });
    }
    return { group, katalogPath, refs };
  });
  const statusFields = compileStatusFields(box.status.fields, {
    katalogPath: `${base}.operatorBox.status.fields`,
    engine,
  });
  const childKinds = new Map<string, { apiVersion: string; kind: string }>();
  const addKind = (apiVersion: string | null | undefined, kind: string | null | undefined): void => {
    if (apiVersion == null || kind == null) return;
    childKinds.set(`${apiVersion}/${kind}`, { apiVersion, kind });
  };
  const addKindOf = (listKey: string): void => {
    const info = RESOURCE_KINDS.find((k) => k.listKey === listKey);
    addKind(info?.apiVersion, info?.kind);
  };
  for (const group of onRollback == null ? groups : [...groups, onRollback]) {
    for (const e of group.entries) {
      if (e.listKey === 'custom') addKind(e.raw['apiVersion'] as string, e.raw['kind'] as string);
      else addKindOf(e.listKey);
    }
  }
  for (const job of onDeleteJobs) addKindOf(job.listKey);
  for (const ref of managedKindRefs(box.remote?.managedResources ?? [])) addKind(ref.apiVersion, ref.kind);
  return {
    name,
    entry,
    apiTypes: entry.apiTypes,
    apiVersion: `${entry.apiTypes.group}/${entry.apiTypes.version}`,
    katalogPath: base,
    normalize,
    mutation,
    validation,
    groups,
    ...(onRollback == null ? {} : { onRollback }),
    onDeleteJobs,
    onDeleteGroups,
    statusFields,
    extraFinalizers: [...new Set([...box.finalizers, ...katalog.spec.finalizers])],
    allowedSourceNamespaces: katalog.spec.allowedSourceNamespaces ?? [],
    readiness: (entry as { readiness?: 'children' | 'reconciled' }).readiness ?? 'children',
    childKinds: [...childKinds.values()],
    hooks: compileHooks(entry, base, engine),
    crMetadata:
      entry.labels == null && entry.annotations == null
        ? undefined
        : compileValue(
            { labels: entry.labels ?? {}, annotations: entry.annotations ?? {} },
            { path: base, engine },
          ),
  };
}

function compileGroup(
  name: GroupName,
  group: ResourceGroup,
  base: string,
  crd: CrdEntry,
  engine: TemplateEngine,
): CompiledGroup {
  const entries: CompiledResourceEntry[] = [];
  for (const info of RESOURCE_KINDS) {
    const list = (group as unknown as Record<string, unknown>)[info.listKey];
    if (!Array.isArray(list)) continue;
    list.forEach((raw: object, index) => {
      entries.push(
        compileResource(
          name,
          info.listKey,
          index,
          raw,
          `${name}.${info.listKey}[${index}]`,
          base,
          crd,
          engine,
        ),
      );
    });
  }
  const gate = group as unknown as { when?: unknown[]; anyOf?: unknown[] };
  return { name, gate: { when: gate.when ?? [], anyOf: gate.anyOf ?? [] }, entries };
}

/**
 * compileRollbackGroup compiles `rollback.onRollback` as an onReconcile group (apply mode, pruned
 * like any child once the CR reconciles normally again) whose sources and paths name the rollback.
 */
function compileRollbackGroup(
  group: ResourceGroup,
  base: string,
  crd: CrdEntry,
  engine: TemplateEngine,
): CompiledGroup {
  const entries: CompiledResourceEntry[] = [];
  for (const info of RESOURCE_KINDS) {
    const list = (group as unknown as Record<string, unknown>)[info.listKey];
    if (!Array.isArray(list)) continue;
    list.forEach((raw: object, index) => {
      const source = `rollback.onRollback.${info.listKey}[${index}]`;
      const entry = compileResource('onReconcile', info.listKey, index, raw, source, base, crd, engine);
      entries.push({ ...entry, katalogPath: pathOf(raw, `${base}.${source}`), applyMode: true });
    });
  }
  const gate = group as unknown as { when?: unknown[]; anyOf?: unknown[] };
  return { name: 'onReconcile', gate: { when: gate.when ?? [], anyOf: gate.anyOf ?? [] }, entries };
}

/**
 * remoteEntries are the children a remote reconciler returns (docs/reference/katalog.md §15.3): one
 * onReconcile entry per list, `remote.<list>`, whose copies are the answer's resources of that list
 * (the `remote` context value), applied, pruned and inventoried like any other child.
 */
function remoteEntries(base: string, crd: CrdEntry, engine: TemplateEngine): CompiledResourceEntry[] {
  const katalogPath = `${base}.operatorBox.remote`;
  const body = compileValue({}, { path: katalogPath, engine });
  return RESOURCE_KINDS.map((info, index): CompiledResourceEntry => {
    const compiled: CompiledEntry = {
      forEach: undefined,
      gate: {},
      body,
      expand: (context) =>
        remoteResources(context)
          .filter((r) => r.listKey === info.listKey)
          .map((r) => ({ entry: structuredClone(r.entry) as Record<string, unknown>, context, gate: {} })),
    };
    return {
      group: 'onReconcile',
      listKey: info.listKey,
      index,
      source: `remote.${info.listKey}`,
      katalogPath,
      raw: {},
      compiled,
      applyMode: true,
      prune: true,
      forceConflict: crd.forceConflict,
      readyWhen: [],
      waitFor: [],
    };
  });
}

/** remoteResources reads the answer's resources from the `remote` context value. */
function remoteResources(context: Readonly<Record<string, unknown>>): readonly RemoteChild[] {
  const remote = context['remote'] as { resources?: unknown } | undefined;
  return Array.isArray(remote?.resources) ? (remote.resources as RemoteChild[]) : [];
}

function compileResource(
  group: GroupName,
  listKey: ResourceListKey,
  index: number,
  raw: object,
  source: string,
  base: string,
  crd: CrdEntry,
  engine: TemplateEngine,
): CompiledResourceEntry {
  const katalogPath = pathOf(raw, `${base}.operatorBox.${source}`);
  const record = raw as Readonly<Record<string, unknown>>;
  // A child created once renders its data only when it is created (docs/reference/katalog.md §7.2).
  const deferData = kindFor(listKey)?.createdOnce?.(record) === true && record['data'] != null;
  // id, readyWhen and waitFor configure the runtime (docs/adr/0009-synced-ready.md); readyWhen stays unrendered.
  const { id, readyWhen, waitFor, ...forTemplates } = record;
  const { data: deferredSource, ...withoutData } = forTemplates;
  const compiled = compileEntry(deferData ? withoutData : forTemplates, { path: katalogPath, engine });
  const deferredData = deferData
    ? compileValue(deferredSource, { path: `${katalogPath}.data`, engine })
    : undefined;
  return {
    group,
    listKey,
    index,
    source,
    katalogPath,
    raw: record,
    compiled,
    applyMode: group === 'onReconcile' || record['reconcile'] === true,
    prune: record['prune'] !== false,
    forceConflict: typeof record['forceConflict'] === 'boolean' ? record['forceConflict'] : crd.forceConflict,
    ...(deferredData == null ? {} : { deferredData }),
    ...(typeof id === 'string' ? { id } : {}),
    readyWhen: Array.isArray(readyWhen) ? (readyWhen as Condition[]) : [],
    waitFor: Array.isArray(waitFor) ? (waitFor as string[]) : [],
  };
}

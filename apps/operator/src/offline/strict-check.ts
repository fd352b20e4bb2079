import { LineCounter, isMap, isScalar, isSeq, parseDocument } from 'yaml';
import type { Node as YamlNode } from 'yaml';
import {
  PROTOCOL_ROOT,
  hookRoots,
  protocolResults,
  resultPathProblem,
  visibleRoots,
} from '@orkestra/reconciler/offline';
import type { HelperParameter, HookRoot, ProtocolResult } from '@orkestra/reconciler/offline';
import { RESOURCE_KINDS, RESOURCE_LIST_KEYS, formatPath, guessPlural, parseDuration } from '@orkestra/types';
import type { CrdEntry, ExternalCall, Katalog, KatalogIssue, PathSegment } from '@orkestra/types';
import { createTemplateEngine } from '@orkestra/template';
import type { HelperCall, TemplateEngine } from '@orkestra/template';
import { didYouMean } from '../did-you-mean.js';
import { untypedProperties } from '../generate/generate-crds.js';
import { schemaProperty, walkSchema } from './schema-walk.js';
import type { JsonSchema } from './schema-walk.js';

/** StrictCheckResult lists the errors and warnings of the static template check. */
export interface StrictCheckResult {
  readonly errors: readonly KatalogIssue[];
  readonly warnings: readonly KatalogIssue[];
}

/** StrictCheckOptions configures strictCheck. */
export interface StrictCheckOptions {
  /** Engine templates are compiled with; default a fresh engine. */
  readonly engine?: TemplateEngine;
}

/** Context roots and who sees them (docs/reference/katalog.md §17.2): the hook roots of the hook table, `children`, `metrics`, `item`. */
type Root = string;

/** The hook table's roots by key, and the roots every entry place sees (each hook's). */
const HOOKS: ReadonlyMap<string, HookRoot> = new Map(hookRoots.map((root) => [root.key, root]));
const HOOK_ROOTS = visibleRoots({ phase: 'after-writes' });
/** The hook whose calls are hoisted and counted in order (external calls before this one are visible). */
const ORDERED_CALLS = hookRoots.find((r) => r.results === 'by-name' && r.ordered && r.hoisted);

const CR_ROOTS = ['apiVersion', 'kind', 'metadata', 'spec', 'status'] as const;
// A by-provider hook records its results in the status under its key (docs/reference/katalog.md §13.1).
const RESERVED_STATUS = [
  'conditions',
  'observedGeneration',
  'inventory',
  ...hookRoots.filter((r) => r.results === 'by-provider').map((r) => r.key),
];
const METADATA_KEYS = [
  'name',
  'namespace',
  'uid',
  'labels',
  'annotations',
  'generation',
  'resourceVersion',
  'creationTimestamp',
  'deletionTimestamp',
  'finalizers',
  'ownerReferences',
  'generateName',
];
const METRICS_KEYS = [
  'queueDepth',
  'workers',
  'workersBusyPercent',
  'workersIdlePercent',
  'errorRatePercent',
  'reconcileDurationP95Ms',
  'autoscaleActive',
];
const LIST_KEYS: ReadonlySet<string> = new Set([...RESOURCE_LIST_KEYS, 'pvcs']);
/** The external protocols by name, and the helpers that read a protocol's result (from the protocol units). */
const PROTOCOLS: ReadonlyMap<string, ProtocolResult> = new Map(protocolResults.map((p) => [p.name, p]));
const PROTOCOL_HELPERS: ReadonlyMap<string, { protocol: string; parameters: readonly HelperParameter[] }> =
  new Map(
    protocolResults.flatMap((p) =>
      Object.entries(p.helpers).map(
        ([helper, parameters]) => [helper, { protocol: p.name, parameters }] as const,
      ),
    ),
  );

/** Where a template sits decides what it can see. */
interface Place {
  readonly name: string;
  readonly roots: ReadonlySet<Root>;
  /** For external calls: how many hoisted calls run before this one (its visible `external` names). */
  readonly externalBefore?: number;
  /** The `external` names visible here instead of the entry's step 8 and 11 calls: `mutation.external`'s (ADR 0112). */
  readonly externalNames?: readonly string[];
  /** For resource entries with forEach. */
  readonly forEach?: ForEachScope;
  /** For resource entries: the entry (volatile-helper and providers notes). */
  readonly resource?: {
    readonly group: string;
    readonly listKey: string;
    readonly entry: Readonly<Record<string, unknown>>;
  };
}

interface ForEachScope {
  readonly as: string | undefined;
  readonly itemSchema: JsonSchema | undefined;
  readonly valueSchema: JsonSchema | undefined;
}

interface EntryScope {
  readonly name: string;
  readonly entry: CrdEntry;
  readonly specSchema: JsonSchema | undefined;
  readonly statusSchema: JsonSchema | undefined;
  readonly hasSchema: boolean;
  readonly declaredStatus: ReadonlySet<string>;
  readonly cross: ReadonlyMap<string, CrdEntry | undefined>;
  /** Cross reads whose answer keys are not the CR's (a `protocol` other than `cr`, or a `url`). */
  readonly freeCross: ReadonlySet<string>;
  readonly external: readonly string[];
  /** The protocol of each external call by name. */
  readonly externalProtocols: ReadonlyMap<string, string>;
  /** Each external call by name (a call's declaration may close its result: a SQL select list). */
  readonly externalCalls: ReadonlyMap<string, ExternalCall>;
  readonly externalCounts: {
    /** The `mutation.external` calls made at reconcile (ADR 0114): the validation rules and later see them. */
    readonly mutation: number;
    readonly validation: number;
    readonly onReconcile: number;
    readonly onCreate: number;
  };
  readonly providers: ReadonlyMap<string, readonly string[]>;
  readonly children: ReadonlySet<string>;
}

const roots = (...names: Root[]): ReadonlySet<Root> => new Set(names);

/**
 * strictCheck is `ork validate --strict` (docs/reference/katalog.md §17.5): it finds every template and every
 * literal condition `field` path of each CRD entry and checks the paths they read against what is
 * declared: `spec.*`/`status.*` against the entry's openAPIV3Schema, `cross.<as>` against the target
 * entry's schema, `external`/`providers`/`children`/forEach names against their declarations, and
 * each context key against where it is visible (katalog.md §17.2). It also warns about volatile helpers in
 * apply-mode fields and notes resource templates that read `providers`.
 */
export function strictCheck(
  file: string,
  text: string,
  katalog: Katalog,
  options: StrictCheckOptions = {},
): StrictCheckResult {
  const engine = options.engine ?? createTemplateEngine();
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter });
  const errors: KatalogIssue[] = [];
  const warnings: KatalogIssue[] = [];
  const issue = (
    node: YamlNode | null | undefined,
    path: readonly PathSegment[],
    message: string,
  ): KatalogIssue => {
    const offset = node?.range?.[0] ?? 0;
    const pos = lineCounter.linePos(offset);
    return { file, line: pos.line, column: pos.col, path: formatPath(path), message };
  };

  const crdsNode = doc.getIn(['spec', 'crds'], true) as YamlNode | undefined;
  const entries: { name: string; node: YamlNode; path: PathSegment[] }[] = [];
  if (isMap(crdsNode)) {
    for (const pair of crdsNode.items) {
      if (isScalar(pair.key) && pair.value != null)
        entries.push({
          name: String(pair.key.value),
          node: pair.value as YamlNode,
          path: ['spec', 'crds', String(pair.key.value)],
        });
    }
  } else if (isSeq(crdsNode)) {
    crdsNode.items.forEach((item, index) => {
      if (isMap(item)) {
        const name = item.get('name');
        if (typeof name === 'string')
          entries.push({ name, node: item as YamlNode, path: ['spec', 'crds', index] });
      }
    });
  }

  for (const { name, node, path } of entries) {
    const entry = katalog.spec.crds[name];
    if (entry == null) continue;
    const scope = entryScope(name, entry, katalog, node);
    for (const untyped of untypedProperties(entry.schema?.openAPIV3Schema)) {
      const segments = [
        'schema',
        'openAPIV3Schema',
        ...untyped.split('.').flatMap((s) => (s === '*' ? ['items'] : ['properties', s])),
      ];
      const at = isMap(node) ? (node.getIn(segments, true) as YamlNode | undefined) : undefined;
      warnings.push(
        issue(
          at ?? node,
          [...path, ...segments],
          `schema field ${untyped} has no type: the API server rejects it in a CRD, so ork generate crd leaves it out and lets its parent keep unknown fields`,
        ),
      );
    }
    // Upstream Katalogs use resyncs of 5-15 s; the loader accepts >= 1 s, --strict warns (ADR 0004).
    const resync = parseDuration(entry.resync);
    if (resync !== 0 && resync < 30_000) {
      const at = isMap(node) ? (node.get('resync', true) as YamlNode | undefined) : undefined;
      warnings.push(
        issue(
          at ?? node,
          [...path, 'resync'],
          `resync ${entry.resync} re-lists every CR that often; below 30s it mostly adds load (changes are watched, not polled)`,
        ),
      );
    }
    if (!scope.hasSchema) {
      warnings.push(
        issue(node, path, `entry ${name} has no schema: spec.* and status.* paths are not checked`),
      );
    }
    visit(node, path, []);

    function visit(current: unknown, docPath: PathSegment[], rel: PathSegment[]): void {
      if (isMap(current)) {
        for (const pair of current.items) {
          if (!isScalar(pair.key)) continue;
          const key = String(pair.key.value);
          const value = pair.value as YamlNode | null;
          const childRel = [...rel, key];
          if (
            key === 'field' &&
            isScalar(value) &&
            typeof value.value === 'string' &&
            !value.value.includes('{{')
          ) {
            checkOne(value, [...docPath, key], childRel, [value.value.replace(/^\./, '')], 'condition field');
            continue;
          }
          if (rel.length === 2 && rel[0] === 'normalize' && rel[1] === 'spec' && isScalar(pair.key)) {
            checkOne(
              pair.key as YamlNode,
              [...docPath, key],
              childRel,
              [`spec.${key.replace(/^\./, '')}`],
              'normalize path',
            );
          }
          visit(value, [...docPath, key], childRel);
        }
      } else if (isSeq(current)) {
        current.items.forEach((item, index) => visit(item, [...docPath, index], [...rel, index]));
      } else if (isScalar(current) && typeof current.value === 'string' && current.value.includes('{{')) {
        let compiled: ReturnType<TemplateEngine['compileTemplate']>;
        try {
          compiled = engine.compileTemplate(current.value);
        } catch {
          return; // reported by the loader
        }
        const paths = compiled.referencedPaths;
        const volatile = compiled.isVolatile;
        const place = checkOne(current, docPath, rel, paths, 'template');
        if (place != null)
          for (const message of helperProblems(compiled.helperCalls, scope))
            errors.push(issue(current, docPath, message));
        if (place?.resource != null) resourceNotes(current, docPath, place, volatile, paths);
      }
    }

    function checkOne(
      node: YamlNode,
      docPath: PathSegment[],
      rel: PathSegment[],
      paths: readonly string[],
      what: string,
    ): Place | undefined {
      const place = placeOf(rel, scope, katalog);
      if (place == null) return undefined;
      for (const p of paths) {
        const message = checkPath(p, place, scope);
        if (message != null) errors.push(issue(node, docPath, `${what} path \`${p}\`: ${message}`));
      }
      return place;
    }

    function resourceNotes(
      node: YamlNode,
      docPath: PathSegment[],
      place: Place,
      volatile: boolean,
      paths: readonly string[],
    ): void {
      const resource = place.resource;
      if (resource == null) return;
      const flag = (key: string): unknown => resource.entry[key];
      const createMode =
        resource.listKey === 'jobs' ||
        (resource.group === 'onCreate' && flag('reconcile') !== true) ||
        (resource.listKey === 'secrets' &&
          (flag('once') === true || flag('rotateAfter') != null || flag('tls') != null));
      if (volatile && !createMode) {
        warnings.push(
          issue(
            node,
            docPath,
            'now, uuid and the random helpers give a new value on every reconcile, so this apply-mode child is rewritten each time; use a once Secret or an onCreate entry',
          ),
        );
      }
      const late = hookRoots.filter((r) => r.afterWrites).map((r) => r.key);
      if (paths.some((p) => late.some((r) => p === r || p.startsWith(`${r}.`)))) {
        warnings.push(
          issue(
            node,
            docPath,
            'resource templates see the provider outputs recorded by the previous reconcile; on a first reconcile they are empty',
          ),
        );
      }
    }
  }
  return { errors, warnings };
}

function entryScope(name: string, entry: CrdEntry, katalog: Katalog, node: YamlNode): EntryScope {
  const root = entry.schema?.openAPIV3Schema as JsonSchema | undefined;
  const box = entry.operatorBox;
  const reconcileMutationCalls = (entry.mutation?.external ?? []).filter((c) => c.fires?.reconcile !== false);
  const cross = new Map<string, CrdEntry | undefined>();
  // Reads of a Live API answer or a whole URL have keys of their own (`metrics`, `state`, …; ADR 0043).
  const freeCross = new Set<string>();
  for (const read of box.cross) {
    cross.set(
      read.as ?? read.crd,
      read.endpoint == null && read.url == null ? katalog.spec.crds[read.crd] : undefined,
    );
    // A `strategy: all` read is a list (`cross.<as>.0.status…`).
    if ((read.protocol != null && read.protocol !== 'cr') || read.url != null || read.strategy === 'all')
      freeCross.add(read.as ?? read.crd);
  }
  const providers = new Map<string, string[]>();
  for (const [provider, list] of Object.entries(box.providers))
    providers.set(
      provider,
      list.map((d) => d.name),
    );
  const children = new Set<string>();
  for (const group of [box.onCreate, box.onReconcile]) {
    for (const info of RESOURCE_KINDS) {
      const list =
        (group as unknown as Record<string, readonly Record<string, unknown>[]>)[info.listKey] ?? [];
      if (list.length === 0) continue;
      children.add(info.childrenKeys.singular).add(info.childrenKeys.plural);
      if (info.listKey === 'custom') {
        for (const custom of list) {
          const kind = String(custom['kind'] ?? '').toLowerCase();
          if (kind !== '') children.add(kind).add(guessPlural(kind));
        }
      }
    }
  }
  const countExternal = (group: string): number => {
    const n =
      isMap(node) && ORDERED_CALLS != null
        ? node.getIn(['operatorBox', group, ORDERED_CALLS.key], true)
        : undefined;
    return isSeq(n) ? n.items.length : 0;
  };
  return {
    name,
    entry,
    specSchema: schemaProperty(root, 'spec'),
    statusSchema: schemaProperty(root, 'status'),
    hasSchema: root != null,
    declaredStatus: new Set(box.status.fields.map((f) => f.path.replace(/^\./, '').split('.')[0] ?? '')),
    cross,
    freeCross,
    // The reconcile-time mutation.external calls run first (before step 7, ADR 0114), then
    // validation.external (step 8), then the hoisted operatorBox calls (step 11).
    external: [...reconcileMutationCalls, ...(entry.validation?.external ?? []), ...box.external].map(
      (call) => call.name,
    ),
    externalProtocols: new Map(
      [...(entry.mutation?.external ?? []), ...(entry.validation?.external ?? []), ...box.external].map(
        (call) => [call.name, call.protocol],
      ),
    ),
    externalCalls: new Map(
      [...(entry.mutation?.external ?? []), ...(entry.validation?.external ?? []), ...box.external].map(
        (call) => [call.name, call],
      ),
    ),
    externalCounts: {
      mutation: reconcileMutationCalls.length,
      validation: entry.validation?.external.length ?? 0,
      onReconcile: countExternal('onReconcile'),
      onCreate: countExternal('onCreate'),
    },
    providers,
    children,
  };
}

/** placeOf classifies a location inside a CRD entry by what its templates may see (docs/reference/katalog.md §17.2). */
function placeOf(rel: readonly PathSegment[], scope: EntryScope, katalog: Katalog): Place | undefined {
  const [first, second, third, fourth] = rel;
  if (first === 'mutation') {
    // `mutation.external` is made first (by the mutating webhook, and at reconcile those not marked
    // `fires.reconcile: false`, ADR 0112, ADR 0114); the rules read their answers.
    const calls = (scope.entry.mutation?.external ?? []).map((c) => c.name);
    if (calls.length === 0) return { name: first, roots: roots() };
    const mutationRoots = visibleRoots({ phase: 'mutation' });
    const isCall = typeof second === 'string' && mutationRoots.includes(second);
    const index = isCall && typeof third === 'number' ? third : calls.length;
    return {
      name: isCall ? 'mutation calls' : first,
      roots: roots(...mutationRoots),
      externalNames: calls.slice(0, index),
    };
  }
  if (first === 'normalize') return { name: first, roots: roots() };
  if (first === 'validation') {
    // A validation call sees the calls before it; the rules see every validation call.
    const calls = scope.externalCounts.mutation + scope.externalCounts.validation;
    const validationRoots = visibleRoots({ phase: 'validation' });
    const isCall = typeof second === 'string' && validationRoots.includes(second);
    const index = isCall && typeof third === 'number' ? scope.externalCounts.mutation + third : calls;
    return {
      name: isCall ? 'validation calls' : 'validation',
      roots: roots(...validationRoots),
      externalBefore: index,
    };
  }
  if (first === 'autoscale') return { name: 'autoscale rules', roots: roots('metrics') };
  if (first !== 'operatorBox') return undefined;
  const hookPlace = (
    hook: string,
    index: number | undefined,
    group: string | undefined,
  ): Place | undefined => {
    const unit = HOOKS.get(hook);
    if (unit == null) return undefined;
    const seen = roots(...visibleRoots({ hook }));
    if (!unit.ordered) return { name: unit.label.place, roots: seen };
    if (typeof index !== 'number' || unit !== ORDERED_CALLS) return undefined;
    const counts = scope.externalCounts;
    const offset =
      counts.mutation +
      counts.validation +
      (group === 'onReconcile'
        ? 0
        : group === 'onCreate'
          ? counts.onReconcile
          : counts.onReconcile + counts.onCreate);
    return { name: unit.label.place, roots: seen, externalBefore: offset + index };
  };
  const hook = typeof second === 'string' ? HOOKS.get(second) : undefined;
  if (hook != null) {
    if (hook.hoisted) return hookPlace(hook.key, typeof third === 'number' ? third : undefined, undefined);
    return { name: hook.label.place, roots: roots(...visibleRoots({ hook: hook.key })) };
  }
  switch (second) {
    case 'status':
      return { name: 'status fields', roots: roots(...HOOK_ROOTS, 'children') };
    case 'onDelete':
      return { name: 'onDelete', roots: roots(...HOOK_ROOTS) };
    case 'onCreate':
    case 'onReconcile': {
      if (typeof third === 'string' && HOOKS.get(third)?.hoisted === true) {
        return hookPlace(third, typeof fourth === 'number' ? fourth : undefined, second);
      }
      const entryRoots = roots(...HOOK_ROOTS);
      if (typeof third === 'string' && LIST_KEYS.has(third) && typeof fourth === 'number') {
        const listKey = third === 'pvcs' ? 'persistentVolumeClaims' : third;
        const group = scope.entry.operatorBox[second] as unknown as Record<
          string,
          readonly Record<string, unknown>[]
        >;
        const loaded = group[listKey]?.[fourth];
        const forEach = loaded?.['forEach'] as { field: string; as?: string } | undefined;
        const rel5 = rel[4];
        const inForEachBlock = rel5 === 'forEach';
        const place: Place = {
          name: `${second} entries`,
          roots: forEach != null && !inForEachBlock ? new Set<Root>([...entryRoots, 'item']) : entryRoots,
          ...(forEach != null && !inForEachBlock ? { forEach: forEachScope(forEach, scope, katalog) } : {}),
          resource: { group: second, listKey, entry: loaded ?? {} },
        };
        return place;
      }
      return { name: `the ${second} gate`, roots: entryRoots };
    }
    default:
      return undefined;
  }
}

function forEachScope(
  forEach: { field: string; as?: string },
  scope: EntryScope,
  _katalog: Katalog,
): ForEachScope {
  let itemSchema: JsonSchema | undefined;
  let valueSchema: JsonSchema | undefined;
  const field = forEach.field.replace(/^\./, '');
  if (!field.includes('{{') && field.startsWith('spec.') && scope.specSchema != null) {
    const walked = walkSchema(scope.specSchema, field.split('.').slice(1), 'spec');
    if (walked.ok && walked.schema != null) {
      const target = walked.schema;
      if (target['type'] === 'array') {
        const items = target['items'];
        if (items != null && typeof items === 'object') itemSchema = items as JsonSchema;
      } else {
        const additional = target['additionalProperties'];
        itemSchema = { type: 'string' };
        if (additional != null && typeof additional === 'object') valueSchema = additional as JsonSchema;
      }
    }
  }
  return { as: forEach.as, itemSchema, valueSchema };
}

function visibleRootNames(place: Place, scope: EntryScope): string[] {
  const names: string[] = [...CR_ROOTS];
  for (const root of place.roots) {
    if (root === 'item') {
      names.push('item', 'index', 'value');
      if (place.forEach?.as != null) names.push(place.forEach.as);
    } else names.push(root);
  }
  void scope;
  return names;
}

/** WHERE_VISIBLE says where each root is visible: a hook root in the hooks after it, the resource entries and the status fields. */
const WHERE_VISIBLE: Readonly<Record<Root, string>> = {
  ...Object.fromEntries(hookRoots.map((root) => [root.key, whereVisible(root)])),
  children: 'status fields only',
  metrics: 'autoscale rules only',
  item: 'resource entries with forEach',
};

function whereVisible(root: HookRoot): string {
  const at = hookRoots.indexOf(root);
  const readers: string[] = [];
  let entries = false;
  for (const later of [...hookRoots.slice(root.ordered ? at : at + 1)]) {
    if (later.afterWrites && !entries) {
      readers.push('resource entries');
      entries = true;
    }
    readers.push(later === root ? `later ${later.label.place}` : later.label.reader);
  }
  if (!entries) readers.push('resource entries');
  return `${readers.join(', ')} and status fields`;
}

/** checkHookPath checks a path under a hook root by the shape of its results (docs/reference/katalog.md §17.2). */
function checkHookPath(
  hook: HookRoot,
  rest: readonly string[],
  place: Place,
  scope: EntryScope,
  key: (candidates: readonly string[], what: string, index?: number) => string | undefined,
): string | undefined {
  const root = hook.key;
  const resultKey = (index: number): string | undefined =>
    hook.resultKeys == null ? undefined : key(hook.resultKeys, `${root} result key`, index);
  if (hook.results === 'one') {
    if ((scope.entry.operatorBox as unknown as Record<string, unknown>)[root] == null)
      return `entry ${scope.name} declares no \`${root}\` block`;
    return resultKey(0);
  }
  const name = rest[0];
  if (name == null || name === '*') return undefined;
  if (hook.results === 'by-provider') {
    const names = scope.providers.get(name);
    if (names == null)
      return `entry ${scope.name} declares nothing for provider \`${name}\`${didYouMean(name, scope.providers.keys())}`;
    const declaration = rest[1];
    if (declaration == null || declaration === '*' || names.includes(declaration)) return undefined;
    return `provider ${name} has no declaration named \`${declaration}\`${didYouMean(declaration, names)}`;
  }
  if (root === 'hooks') {
    // Module hooks (docs/reference/katalog.md §14.5): named by `name`; their outputs are free-form.
    const names = scope.entry.operatorBox.hooks.map((h) => h.name);
    return names.includes(name) ? undefined : `no module hook is named \`${name}\`${didYouMean(name, names)}`;
  }
  if (hook.ordered) {
    const all =
      place.externalNames == null
        ? scope.external
        : (scope.entry.mutation?.external ?? []).map((c) => c.name);
    const visible =
      place.externalNames ??
      (place.externalBefore == null ? scope.external : scope.external.slice(0, place.externalBefore));
    if (!visible.includes(name)) {
      return all.includes(name)
        ? `external call \`${name}\` runs after this one`
        : `no external call is named \`${name}\`${didYouMean(name, all)}`;
    }
    const protocol = PROTOCOLS.get(scope.externalProtocols.get(name) ?? 'http');
    if (protocol == null) return resultKey(1);
    const at = `${root}.${name}`;
    const call = scope.externalCalls.get(name);
    const result = call == null ? protocol.result : protocol.resultOf(call);
    // The first key alone first: an unknown one there may be upstream's short form of a JSON field.
    const top = resultPathProblem(protocol.name, result, rest.slice(1, 2), at);
    const problem = top ?? resultPathProblem(protocol.name, result, rest.slice(1), at);
    if (problem == null) return undefined;
    const field = problem.unknown?.key;
    const message = `${problem.message}${field == null ? '' : didYouMean(field, problem.unknown?.candidates ?? [])}`;
    // A JSON object's fields are also readable directly (upstream's form); strict mode asks
    // for the canonical `json.` path, which `ork migrate` writes.
    const json = protocol.result['json'];
    const jsonObject = json === 'any' || (typeof json === 'object' && 'fields' in json);
    return top == null || field == null || !jsonObject
      ? message
      : `${message}; a field of the JSON answer is \`${at}.json.${field}\` (the shorter form works at run time, but is not checked)`;
  }
  if (!scope.cross.has(name))
    return `no cross read is named \`${name}\`${didYouMean(name, scope.cross.keys())}`;
  if (scope.freeCross.has(name)) return undefined;
  const bad = resultKey(1);
  if (bad != null) return bad;
  const target = scope.cross.get(name);
  const part = rest[1];
  if (target?.schema != null && (part === 'spec' || part === 'status')) {
    const sub = schemaProperty(target.schema.openAPIV3Schema as JsonSchema, part);
    if (sub != null) return failed(walkSchema(sub, rest.slice(2), `${root}.${name}.${part}`));
  }
  return undefined;
}

/**
 * helperProblems checks the arguments of the helpers that read a protocol's result (`promValue`,
 * …) against their protocol unit's declaration: a `result` argument is the whole
 * `external.<name>` of a call of that protocol, a `number` one is not non-numeric text. The
 * argument count is the template engine's (a load error).
 */
function helperProblems(calls: readonly HelperCall[], scope: EntryScope): string[] {
  const problems: string[] = [];
  for (const call of calls) {
    const declared = PROTOCOL_HELPERS.get(call.helper);
    if (declared == null) continue;
    const { protocol, parameters } = declared;
    const own = [...scope.externalProtocols].filter(([, p]) => p === protocol).map(([n]) => n);
    const calls =
      own.length === 0 ? `no call here is a ${protocol} call` : `${protocol} calls here: ${own.join(', ')}`;
    call.args.forEach((arg, i) => {
      const parameter = parameters[i];
      const which = `argument ${i + 1} of \`${call.helper}\``;
      if (parameter === 'result') {
        if (arg.kind === 'call' || (arg.kind === 'path' && arg.path == null)) return;
        const path = arg.kind === 'path' ? (arg.path ?? '') : '';
        const [root, name, ...deeper] = path.split('.');
        if (arg.kind !== 'path' || root !== PROTOCOL_ROOT || name == null) {
          const written =
            arg.kind === 'path'
              ? `\`${path}\``
              : arg.kind === 'string'
                ? JSON.stringify(arg.value)
                : `a ${arg.kind}`;
          problems.push(
            `${which} is ${written}; it reads the result of a ${protocol} call: pass \`external.<name>\` (${calls})`,
          );
          return;
        }
        const actual = scope.externalProtocols.get(name);
        if (actual == null || name === '*') return; // an unknown name is reported as a path
        if (actual !== protocol) {
          problems.push(
            `${which}: \`external.${name}\` is a ${actual} call; \`${call.helper}\` reads the result of a ${protocol} call (${calls})`,
          );
          return;
        }
        if (deeper.length > 0)
          problems.push(
            `${which} is \`${path}\`; pass the whole result \`external.${name}\` (the helper reads its fields)`,
          );
      } else if (parameter === 'number') {
        const numeric = (text: string): boolean =>
          /^\s*[+-]?(?:\d+\.?\d*(?:e[+-]?\d+)?|\.\d+(?:e[+-]?\d+)?|inf)\s*$/i.test(text);
        if ((arg.kind === 'string' && !numeric(arg.value)) || arg.kind === 'boolean' || arg.kind === 'null')
          problems.push(
            `${which} must be a number, not ${arg.kind === 'string' ? JSON.stringify(arg.value) : arg.kind === 'boolean' ? String(arg.value) : 'null'}`,
          );
      }
    });
  }
  return problems;
}

/** checkPath returns why a context path is wrong at a place, or undefined when it is fine. */
function checkPath(path: string, place: Place, scope: EntryScope): string | undefined {
  const segments = path.split('.');
  const [root = '', ...rest] = segments;
  const notVisible = (r: Root): string | undefined =>
    place.roots.has(r)
      ? undefined
      : `\`${root}\` is not visible in ${place.name}; it is visible in ${WHERE_VISIBLE[r]}`;
  const key = (candidates: readonly string[], what: string, index = 0): string | undefined => {
    const k = rest[index];
    if (k == null || k === '*' || candidates.includes(k)) return undefined;
    return `unknown ${what} \`${k}\`${didYouMean(k, candidates)}`;
  };
  if (place.roots.has('item') && place.forEach != null) {
    if (root === 'item' || (place.forEach.as != null && root === place.forEach.as)) {
      return place.forEach.itemSchema == null
        ? undefined
        : failed(walkSchema(place.forEach.itemSchema, rest, root));
    }
    if (root === 'value') {
      return place.forEach.valueSchema == null
        ? undefined
        : failed(walkSchema(place.forEach.valueSchema, rest, root));
    }
    if (root === 'index') return undefined;
  }
  const hook = HOOKS.get(root);
  if (hook != null) return notVisible(root) ?? checkHookPath(hook, rest, place, scope, key);
  switch (root) {
    case 'apiVersion':
    case 'kind':
      return rest.length === 0 ? undefined : `\`${root}\` is a string`;
    case 'metadata':
      return ['labels', 'annotations'].includes(rest[0] ?? '')
        ? undefined
        : key(METADATA_KEYS, 'metadata field');
    case 'spec':
      if (scope.specSchema == null) {
        return scope.hasSchema && rest.length > 0
          ? `the schema of ${scope.name} declares no \`spec\``
          : undefined;
      }
      return failed(walkSchema(scope.specSchema, rest, 'spec'));
    case 'status': {
      const top = rest[0];
      if (top == null || top === '*' || RESERVED_STATUS.includes(top) || scope.declaredStatus.has(top))
        return undefined;
      if (!scope.hasSchema) return undefined;
      if (scope.statusSchema != null) return failed(walkSchema(scope.statusSchema, rest, 'status'));
      return `unknown status field \`${top}\`: not in the schema and not written by a status field${didYouMean(top, [...RESERVED_STATUS, ...scope.declaredStatus])}`;
    }
    case 'children': {
      const hidden = notVisible('children');
      if (hidden != null) return hidden;
      const k = rest[0];
      if (k == null || k === '*' || scope.children.has(k)) return undefined;
      return `no declared child kind gives \`children.${k}\`${didYouMean(k, scope.children)}`;
    }
    case 'metrics': {
      const hidden = notVisible('metrics');
      return hidden ?? key(METRICS_KEYS, 'metric');
    }
    case 'item':
    case 'index':
    case 'value':
      return `\`${root}\` is only visible in resource entries with forEach`;
    default:
      return `unknown context key \`${root}\`${didYouMean(root, visibleRootNames(place, scope))}`;
  }
}

function failed(walk: ReturnType<typeof walkSchema>): string | undefined {
  return walk.ok ? undefined : walk.message;
}

import { readFileSync } from 'node:fs';
import { checkYamlText } from './yaml-input.js';
import { isAbsolute, join, resolve } from 'node:path';
import {
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter as LineCounterClass,
  parseDocument,
  Pair,
  Scalar,
  YAMLMap,
  YAMLSeq,
} from 'yaml';
import type { Document, LineCounter, Node as YamlNode } from 'yaml';
import { expandAliases } from './yaml-aliases.js';
import { katalogInConfigMap } from './configmap-katalog.js';
import { expandNoteCalls, isNoteName, prepareNotes } from './note-calls.js';
import { KATALOG_API_VERSION, UPSTREAM_API_VERSIONS } from './metadata.js';
import { gateShape } from './schema/condition.js';
import { commonShape } from './schema/resources.js';

/**
 * Upstream dialects (issue 14): the loader accepts Katalogs written for upstream Orkestra and maps
 * them onto the canonical model before the schema sees them. The mapping works on the YAML
 * document's nodes, moving them rather than copying values, so every node keeps its source range:
 * an error in a moved block still points at the user's file:line:col, and `ork migrate` prints the
 * same document (comments and key order kept) in the canonical form.
 */

export { UPSTREAM_API_VERSIONS } from './metadata.js';

/** DialectChange is one rewrite done by upgradeDialect, positioned at the node it rewrote. */
export interface DialectChange {
  /** Dot path of the rewritten key in the document as written. */
  readonly path: string;
  /** The included file the key was written in; undefined for the Katalog itself. */
  readonly file?: string | undefined;
  readonly line: number;
  readonly column: number;
  /** What was rewritten, e.g. "moved reconciler.onCreate to operatorBox.onCreate". */
  readonly message: string;
}

/** DialectProblem is an upstream key that cannot be mapped (a file that cannot be read, a Go reconciler). */
export interface DialectProblem {
  readonly path: string;
  /** The included file the key was written in; undefined for the Katalog itself. */
  readonly file?: string | undefined;
  readonly line: number;
  readonly column: number;
  readonly message: string;
}

/** UpgradeDialectOptions locate the document's neighbours (`crdFile`). */
export interface UpgradeDialectOptions {
  /** Maps offsets to line and column for positions. */
  readonly lineCounter: LineCounter;
  /** Directory `crdFile` paths are resolved against. Default: `crdFile` is not read. */
  readonly baseDir?: string | undefined;
  /** Reads a neighbouring file; default `readFileSync(path, 'utf8')`. */
  readonly readFile?: (path: string) => string;
}

/**
 * IncludedFile is a file read by `include:` or a motif import. Its nodes' ranges are shifted by
 * `base` so a position found in the merged document can be traced back to the file it came from.
 */
export interface IncludedFile {
  readonly base: number;
  readonly file: string;
  readonly lineCounter: LineCounter;
}

/** INCLUDE_OFFSET is the range shift of the first included file; the n-th is shifted n times as far. */
const INCLUDE_OFFSET = 1e12;

/** positionIn maps a (possibly shifted) offset to the file, line and column it was written at. */
export function positionIn(
  offset: number,
  file: string,
  lineCounter: LineCounter,
  included: readonly IncludedFile[],
): { file: string; line: number; column: number } {
  const source = offset >= INCLUDE_OFFSET ? included[Math.floor(offset / INCLUDE_OFFSET) - 1] : undefined;
  if (source == null) {
    const { line, col } = lineCounter.linePos(offset);
    return { file, line, column: col };
  }
  const { line, col } = source.lineCounter.linePos(offset - source.base);
  return { file: source.file, line, column: col };
}

/** UpgradeDialectResult lists what upgradeDialect rewrote and what it could not. */
export interface UpgradeDialectResult {
  /** Files read by `include:` and motif imports, in the order they were read. */
  readonly included: readonly IncludedFile[];
  /** The upstream generation detected (`G1`, `G2`, `G3`), or undefined for a canonical document. */
  readonly generation: 'G1' | 'G2' | 'G3' | undefined;
  readonly changes: readonly DialectChange[];
  readonly problems: readonly DialectProblem[];
}

type Path = readonly (string | number)[];

const RESOURCE_GROUPS = ['onCreate', 'onReconcile'] as const;

function keyOf(pair: Pair): string | undefined {
  return isScalar(pair.key) ? String(pair.key.value) : undefined;
}

function pairOf(map: YAMLMap, key: string): Pair | undefined {
  return map.items.find((pair): pair is Pair => isPair(pair) && keyOf(pair as Pair) === key) as
    Pair | undefined;
}

function mapAt(map: YAMLMap | undefined, key: string): YAMLMap | undefined {
  const value = map == null ? undefined : pairOf(map, key)?.value;
  return isMap(value) ? (value as YAMLMap) : undefined;
}

function rangeOf(node: unknown): [number, number, number] | undefined {
  const range = (node as YamlNode | null)?.range;
  return range == null ? undefined : [range[0], range[1], range[2]];
}

/** born gives a created node (and its created children) the range of the node it replaces. */
function born<T extends YamlNode>(node: T, from: unknown): T {
  const range = rangeOf(from);
  if (range == null) return node;
  const visit = (n: unknown): void => {
    if (n == null || typeof n !== 'object') return;
    const yamlNode = n as YamlNode;
    if (yamlNode.range == null) yamlNode.range = range;
    if (isMap(n) || isSeq(n))
      for (const item of (n as YAMLMap | YAMLSeq).items) {
        if (isPair(item)) {
          visit((item as Pair).key);
          visit((item as Pair).value);
        } else visit(item);
      }
  };
  visit(node);
  return node;
}

/**
 * place puts a pair into a map: at `index` when given, else before the `operatorBox` key (entry-level
 * keys read best above the box), else at the end.
 */
function place(map: YAMLMap, pair: Pair, index?: number): void {
  const box = map.items.findIndex((item) => keyOf(item as Pair) === 'operatorBox');
  const at = index ?? (box >= 0 && keyOf(pair) !== 'operatorBox' ? box : map.items.length);
  map.items.splice(at, 0, pair);
}

/** takeOut removes a pair from its map; a comment above the map's first key travels with the pair. */
function takeOut(map: YAMLMap, pair: Pair): number {
  const index = map.items.indexOf(pair);
  if (index === 0 && map.commentBefore != null) {
    const key = pair.key as YamlNode | null;
    if (key != null)
      key.commentBefore =
        key.commentBefore == null ? map.commentBefore : `${map.commentBefore}\n${key.commentBefore}`;
    map.commentBefore = null;
  }
  map.items.splice(index, 1);
  return index;
}

/** keepComment moves the comment above a removed pair onto the pair that now takes its place. */
function keepComment(map: YAMLMap, index: number, removed: Pair): void {
  const comment = (removed.key as YamlNode | null)?.commentBefore;
  if (comment == null) return;
  const heir = map.items[index] as Pair | undefined;
  const heirKey = heir?.key as YamlNode | undefined;
  if (heirKey != null)
    heirKey.commentBefore = heirKey.commentBefore == null ? comment : `${comment}\n${heirKey.commentBefore}`;
}

function scalar(value: unknown, from: unknown): Scalar {
  return born(new Scalar(value), from);
}

class Upgrader {
  readonly changes: DialectChange[] = [];
  readonly problems: DialectProblem[] = [];
  readonly included: IncludedFile[] = [];
  generation: 'G1' | 'G2' | 'G3' | undefined;
  /** The document states an upstream apiVersion (some rewrites apply only then). */
  upstream = false;
  /** Upstream's user-defined presets (`profiles.resourceQuotas` / `profiles.limitRanges`) by class and name. */
  readonly profiles = new Map<'resourceQuotas' | 'limitRanges', Map<string, YAMLMap>>();
  /** Upstream's user-defined template functions (`notes`), by name: the expression and where it was declared. */
  readonly notes = new Map<string, { expression: string; node: unknown; path: Path }>();
  readonly #options: UpgradeDialectOptions;

  constructor(options: UpgradeDialectOptions) {
    this.#options = options;
  }

  #where(node: unknown): { file?: string; line: number; column: number } {
    const offset = rangeOf(node)?.[0] ?? 0;
    const at = positionIn(offset, '', this.#options.lineCounter, this.included);
    return at.file === '' ? { line: at.line, column: at.column } : at;
  }

  /**
   * readYaml reads a neighbouring YAML file (an `include:` or a motif) and returns its root map,
   * with every node's range shifted so positions trace back to that file.
   */
  readYaml(relative: string, path: Path, near: unknown, what: string): YAMLMap | undefined {
    if (this.#options.baseDir == null) {
      this.problem(
        path,
        near,
        `${what} ${relative} cannot be read: the Katalog was given as text, with no directory`,
      );
      return undefined;
    }
    const full = isAbsolute(relative) ? relative : resolve(this.#options.baseDir, relative);
    let text: string;
    try {
      text = (this.#options.readFile ?? ((p: string) => readFileSync(p, 'utf8')))(full);
    } catch (error) {
      this.problem(
        path,
        near,
        `cannot read ${what} ${relative}: ${error instanceof Error ? error.message : String(error)}`,
      );
      return undefined;
    }
    const checked = checkYamlText(text);
    if (!checked.ok) {
      const { line, column, message } = checked.problem;
      this.problems.push({ path: '', file: relative, line, column, message });
      return undefined;
    }
    const lineCounter = new LineCounterClass();
    const doc = parseDocument(text, { lineCounter, uniqueKeys: true });
    const base = (this.included.length + 1) * INCLUDE_OFFSET;
    // Shown the way the Katalog's own path is (the base directory is the Katalog's, as given).
    const shown = isAbsolute(relative) ? relative : join(this.#options.baseDir, relative);
    this.included.push({ base, file: shown, lineCounter });
    if (doc.errors.length > 0) {
      const error = doc.errors[0];
      const pos = error?.linePos?.[0];
      this.problems.push({
        path: '',
        file: shown,
        line: pos?.line ?? 1,
        column: pos?.col ?? 1,
        message: `YAML syntax error: ${error?.message.split('\n')[0] ?? ''}`,
      });
      return undefined;
    }
    shift(doc.contents, base);
    if (!isMap(doc.contents)) {
      this.problem(path, near, `${what} ${relative} does not hold a YAML map`);
      return undefined;
    }
    return doc.contents as YAMLMap;
  }

  change(path: Path, node: unknown, message: string): void {
    this.changes.push({ path: formatPath(path), ...this.#where(node), message });
  }

  problem(path: Path, node: unknown, message: string): void {
    this.problems.push({ path: formatPath(path), ...this.#where(node), message });
  }

  mark(generation: 'G1' | 'G2' | 'G3'): void {
    // The newest generation seen wins: G3 > G1 > G2 (G2 is today's flat layout).
    const rank = { G2: 0, G1: 1, G3: 2 } as const;
    if (this.generation == null || rank[generation] > rank[this.generation]) this.generation = generation;
  }

  /** ensureMap returns `map[key]`, creating an empty block (positioned at `near`) when absent. */
  ensureMap(map: YAMLMap, key: string, near: unknown): YAMLMap {
    const existing = mapAt(map, key);
    if (existing != null) return existing;
    const created = born(new YAMLMap(), near);
    place(map, new Pair(scalar(key, near), created));
    return created;
  }

  /**
   * move takes `from[key]` and puts it at `to[newKey]`; a key already present at the target is
   * merged when both are maps (the target's own keys win) and otherwise left to the schema, which
   * reports the duplicate at the moved key.
   */
  move(from: YAMLMap, key: string, to: YAMLMap, newKey: string, path: Path, target: string): void {
    const pair = pairOf(from, key);
    if (pair == null) return;
    takeOut(from, pair);
    const existing = pairOf(to, newKey);
    if (existing != null && isMap(existing.value) && isMap(pair.value)) {
      const into = existing.value as YAMLMap;
      for (const item of (pair.value as YAMLMap).items) {
        const k = keyOf(item as Pair);
        if (k != null && pairOf(into, k) == null) into.items.push(item);
      }
    } else if (existing != null) {
      this.problem(path, pair.key, `${target} is written twice (here and at the canonical place); keep one`);
      return;
    } else {
      if (newKey !== key) pair.key = scalar(newKey, pair.key);
      place(to, pair);
    }
    this.change(path, pair.key, `moved to ${target}`);
  }

  drop(map: YAMLMap, key: string, path: Path, why: string): void {
    const pair = pairOf(map, key);
    if (pair == null) return;
    const index = takeOut(map, pair);
    keepComment(map, index, pair);
    this.change(path, pair.key, `removed: ${why}`);
  }

  /** reconcilerDefault handles `default:` of a reconciler block: true is today's only reconciler. */
  reconcilerDefault(map: YAMLMap, path: Path): void {
    const pair = pairOf(map, 'default');
    if (pair == null) return;
    const value = isScalar(pair.value) ? pair.value.value : undefined;
    if (value === false || value === 'false') {
      this.problem(
        [...path, 'default'],
        pair.value,
        '`default: false` selects a custom Go reconciler, which Orkestra does not run; declare the children in onCreate/onReconcile instead',
      );
      takeOut(map, pair);
      return;
    }
    this.drop(
      map,
      'default',
      [...path, 'default'],
      'the declarative reconciler is the only one (default: true)',
    );
  }

  goHooks(map: YAMLMap, path: Path): void {
    for (const key of ['hooks', 'constructor', 'remote']) {
      const pair = pairOf(map, key);
      if (pair == null) continue;
      this.problem(
        [...path, key],
        pair.key,
        `\`${key}\` names Go code or a remote reconciler, which Orkestra does not run; declare the children in onCreate/onReconcile, or call a service with \`external\``,
      );
      takeOut(map, pair);
    }
  }

  /** refuse reports every key left in an upstream block that has no counterpart, with the reason, and removes it. */
  refuse(map: YAMLMap, path: Path, reasons: Readonly<Record<string, string>>): void {
    for (const item of [...map.items]) {
      const key = keyOf(item as Pair);
      if (key == null) continue;
      const reason = Object.hasOwn(reasons, key) ? reasons[key] : undefined;
      this.problem(
        [...path, key],
        (item as Pair).key,
        `upstream key \`${key}\` has no counterpart in Orkestra${reason === undefined ? '' : `: ${reason}`}`,
      );
      takeOut(map, item as Pair);
    }
  }
}

/** REFUSED names the upstream keys the loader cannot map and why (reported by `ork validate`). */
const REFUSED: Readonly<Record<string, string>> = {
  events: 'declared events are not emitted; the runtime records its own events and the Ready condition',
  requeue: 'timed requeues are not supported; `resync` re-evaluates every CR',
  cleanup: 'deleting a CR after a terminal state is not supported',
  deletionProtection: 'deletion protection is not supported; use RBAC to prevent deletes',
  removeFinalizers: 'finalizers are always removed after deletion completes',
  ignoreStatusPatch: 'the status is always written (skipped when unchanged)',
  ignoreObservedGeneration: 'observedGeneration is always written',
  conversion: 'CRD conversion webhooks are not supported; serve one version',
  observe: 'watching unrelated objects is not supported; children and cross targets are watched',
  watch:
    'watching objects other than children and cross targets is not supported; a change to them reaches the CR at its next resync',
  preReconcile: 'there is no pre-reconcile gate; gate groups and children with `when`/`anyOf`',
  rollback: 'rollback is not supported',
  rollBackOnError: 'rollback is not supported',
  profile: 'tuning profiles are not supported; set workers, resync and queue',
  sentinels: 'event sentinels are not supported; reconciles are level-based',
};

/** shift moves every range of a parsed tree by `base` (see IncludedFile). */
function shift(node: unknown, base: number): void {
  if (node == null || typeof node !== 'object') return;
  const yamlNode = node as YamlNode;
  if (yamlNode.range != null)
    yamlNode.range = [yamlNode.range[0] + base, yamlNode.range[1] + base, yamlNode.range[2] + base];
  if (isMap(node) || isSeq(node))
    for (const item of (node as YAMLMap | YAMLSeq).items) {
      if (isPair(item)) {
        shift((item as Pair).key, base);
        shift((item as Pair).value, base);
      } else shift(item, base);
    }
}

function formatPath(path: Path): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out === '' ? segment : `.${segment}`;
  }
  return out;
}

/**
 * upgradeDialect rewrites an upstream Katalog document in place into the canonical layout and
 * reports each rewrite. A canonical document comes back unchanged with no changes. Keys it does not
 * know are left where they are, so the schema reports them at their own position.
 */
export function upgradeDialect(doc: Document, options: UpgradeDialectOptions): UpgradeDialectResult {
  const up = new Upgrader(options);
  const root = doc.contents;
  if (!isMap(root)) return { generation: undefined, changes: [], problems: [], included: [] };
  const apiVersion = pairOf(root, 'apiVersion');
  const upstream =
    apiVersion != null &&
    isScalar(apiVersion.value) &&
    (UPSTREAM_API_VERSIONS as readonly unknown[]).includes(apiVersion.value.value);
  // Merge keys are applied for every Katalog; an upstream `anchors:` block (it only holds anchors)
  // is removed after its aliases are replaced by copies.
  up.upstream = upstream;
  const anchors = upstream ? pairOf(root, 'anchors') : undefined;
  const expanded = expandAliases(doc, { aliases: anchors != null });
  for (const problem of expanded.problems) up.problem([], at(problem.offset), problem.message);
  if (upstream && expanded.merges > 0)
    up.change([], at(expanded.firstMergeOffset ?? 0), `${expanded.merges} YAML merge keys (<<) applied`);
  if (anchors != null)
    up.drop(root, 'anchors', ['anchors'], 'it only holds YAML anchors; each alias now holds a copy');
  if (upstream && apiVersion != null) {
    up.change(
      ['apiVersion'],
      apiVersion.value,
      `${String((apiVersion.value as Scalar).value)} → ${KATALOG_API_VERSION}`,
    );
    apiVersion.value = scalar(KATALOG_API_VERSION, apiVersion.value);
    upgradeSecurity(up, root);
    katalogImports(up, root);
    readProfiles(up, root);
    readNotes(up, root, root, []);
    up.drop(
      root,
      'gateway',
      ['gateway'],
      'upstream’s gateway (an HTTP intake for CRs) is a separate component, not part of Orkestra; reconciling is unchanged',
    );
  }
  upgradeMetadata(up, mapAt(root, 'metadata'));
  const spec = mapAt(root, 'spec');
  const crds = spec == null ? undefined : pairOf(spec, 'crds')?.value;
  if (isMap(crds) && up.upstream) dropDisabledBuiltins(up, crds as YAMLMap);
  if (isMap(crds)) {
    for (const pair of (crds as YAMLMap).items) {
      const name = keyOf(pair as Pair);
      const entry = (pair as Pair).value;
      if (name != null && isMap(entry)) upgradeEntry(up, entry as YAMLMap, ['spec', 'crds', name], options);
    }
  } else if (isSeq(crds)) {
    (crds as YAMLSeq).items.forEach((entry, i) => {
      if (isMap(entry)) upgradeEntry(up, entry as YAMLMap, ['spec', 'crds', i], options);
    });
  }
  if (up.notes.size > 0 && spec != null) expandNotes(up, spec);
  if (up.changes.length > 0 && up.generation == null) up.mark('G2');
  // Upstream's Ready means "reconciled"; an upstream Katalog keeps that meaning unless it opts in
  // to child readiness by stating `readiness` itself (docs/reference/katalog.md, issue 18).
  if (up.generation != null) {
    const entries = isMap(crds)
      ? (crds as YAMLMap).items.map((pair) => [keyOf(pair as Pair), (pair as Pair).value] as const)
      : isSeq(crds)
        ? (crds as YAMLSeq).items.map((entry, i) => [i, entry] as const)
        : [];
    for (const [key, entry] of entries) {
      if (key == null || !isMap(entry) || pairOf(entry as YAMLMap, 'readiness') != null) continue;
      const value = scalar('reconciled', entry);
      up.change(
        ['spec', 'crds', key, 'readiness'],
        value,
        'readiness: reconciled (upstream meaning of Ready)',
      );
      (entry as YAMLMap).set('readiness', value);
    }
  }
  return { generation: up.generation, changes: up.changes, problems: up.problems, included: up.included };
}

/** at is a stand-in node for a position known only by its offset. */
function at(offset: number): { range: [number, number, number] } {
  return { range: [offset, offset, offset] };
}

/** SECURITY_REFUSED names upstream `security` blocks that would change behaviour when enabled. */
const SECURITY_REFUSED: Readonly<Record<string, string>> = {
  deletionProtection:
    'no webhook blocks deletes of CRDs or of the operator; use RBAC (and `kubectl` policy) to prevent deletes',
  conversion: 'CRD conversion webhooks are not supported; serve one version',
};

/** SECURITY_DROPPED names upstream `security` blocks whose job Orkestra does elsewhere. */
const SECURITY_DROPPED: Readonly<Record<string, string>> = {
  namespaceProtection:
    'namespace rules (allowedNamespaces/restrictedNamespaces) are enforced by the runtime, which does not reconcile a CR outside them and says why in its status, not by an admission webhook',
  webhooks: 'admission webhooks are configured by the deployment (the Helm chart), not by the Katalog',
  rbac: 'RBAC comes from `ork generate rbac` and the Helm chart, not from the running operator',
};

/**
 * upgradeSecurity maps upstream's top-level `security` block: a disabled block (`enabled: false`)
 * and the blocks whose job is done elsewhere are removed with a note; deletion protection and
 * conversion, when enabled, are refused with the reason; any other key is refused.
 */
function upgradeSecurity(up: Upgrader, root: YAMLMap): void {
  const pair = pairOf(root, 'security');
  if (pair == null) return;
  const security = isMap(pair.value) ? (pair.value as YAMLMap) : undefined;
  for (const item of [...(security?.items ?? [])]) {
    const key = keyOf(item as Pair);
    if (key == null || security == null) continue;
    const block = (item as Pair).value;
    const enabled = isMap(block) ? pairOf(block as YAMLMap, 'enabled')?.value : undefined;
    const off = isScalar(enabled) && (enabled.value === false || enabled.value === 'false');
    const path = ['security', key];
    if (off) up.drop(security, key, path, 'disabled (enabled: false)');
    else if (Object.hasOwn(SECURITY_DROPPED, key)) up.drop(security, key, path, SECURITY_DROPPED[key] ?? '');
    else {
      const reason = Object.hasOwn(SECURITY_REFUSED, key) ? `: ${SECURITY_REFUSED[key] ?? ''}` : '';
      up.problem(
        path,
        (item as Pair).key,
        `upstream key \`security.${key}\` has no counterpart in Orkestra${reason}`,
      );
      takeOut(security, item as Pair);
    }
  }
  if (security == null || security.items.length === 0) {
    takeOut(root, pair);
    up.change(['security'], pair.key, 'removed: nothing in it applies to Orkestra');
  }
}

function upgradeMetadata(up: Upgrader, metadata: YAMLMap | undefined): void {
  if (metadata == null) return;
  for (const key of ['author', 'tags', 'createdBy'] as const) {
    const pair = pairOf(metadata, key);
    if (pair == null) continue;
    const value = isSeq(pair.value)
      ? (pair.value as YAMLSeq).items.map((item) => (isScalar(item) ? String(item.value) : '')).join(',')
      : isScalar(pair.value)
        ? String(pair.value.value)
        : '';
    metadata.items.splice(metadata.items.indexOf(pair), 1);
    const annotations = up.ensureMap(metadata, 'annotations', pair.key);
    const annotation = key;
    annotations.items.push(new Pair(scalar(annotation, pair.key), scalar(value, pair.value)));
    up.change(['metadata', key], pair.key, `moved to metadata.annotations["${annotation}"]`);
  }
}

/** Keys of a G1 `reconciler:` / G3 `reconcile:` block that belong to the operatorBox. */
const BOX_KEYS = ['finalizers', 'onCreate', 'onReconcile', 'onDelete', 'status', 'providers'] as const;
/** Keys of a G2 `operatorBox.reconciler` / G3 `reconcile`/`runtime` block that belong to the entry. */
const ENTRY_KEYS = [
  'workers',
  'resync',
  'queue',
  'normalize',
  'forceConflict',
  'autoscale',
  'restrictedNamespaces',
  'allowedNamespaces',
] as const;

/** BUILTIN_GROUPS are the API groups of Kubernetes' own kinds; an entry cannot define a CRD in them. */
const BUILTIN_GROUPS: ReadonlySet<string> = new Set([
  '',
  'core',
  'apps',
  'batch',
  'autoscaling',
  'policy',
  'networking.k8s.io',
  'rbac.authorization.k8s.io',
  'storage.k8s.io',
  'coordination.k8s.io',
  'discovery.k8s.io',
  'scheduling.k8s.io',
  'node.k8s.io',
  'admissionregistration.k8s.io',
  'apiextensions.k8s.io',
  'certificates.k8s.io',
  'events.k8s.io',
]);

/** BUILTIN_KINDS are Kubernetes' own kinds, recognised when an upstream entry gives no group. */
const BUILTIN_KINDS: ReadonlySet<string> = new Set([
  'Pod',
  'ConfigMap',
  'Secret',
  'Service',
  'ServiceAccount',
  'Namespace',
  'Node',
  'Event',
  'PersistentVolume',
  'PersistentVolumeClaim',
  'Deployment',
  'StatefulSet',
  'DaemonSet',
  'ReplicaSet',
  'Job',
  'CronJob',
  'Ingress',
  'NetworkPolicy',
  'HorizontalPodAutoscaler',
  'PodDisruptionBudget',
  'Role',
  'RoleBinding',
  'ClusterRole',
  'ClusterRoleBinding',
]);

/**
 * builtinKindEntry refuses an entry whose apiTypes name one of Kubernetes' own kinds (upstream lets
 * an entry watch e.g. ConfigMaps with a `labelSelector`): an Orkestra entry defines its own CRD and
 * reconciles its CRs (docs/reference/katalog.md §24). Returns whether it refused.
 */
function builtinKindEntry(up: Upgrader, entry: YAMLMap, base: Path): boolean {
  const found = builtinApiTypes(entry);
  if (found == null) return false;
  const { group, kind, groupPair, kindPair } = found;
  const where = group == null ? kindPair : groupPair;
  const named = `${kind === '' ? 'a kind' : kind} of ${group == null || group === '' ? 'the core group' : `group ${group}`}`;
  up.problem(
    [...base, 'apiTypes', group == null ? 'kind' : 'group'],
    where?.value,
    `this entry names ${named}, one of Kubernetes' own kinds; an Orkestra entry defines its own CRD and reconciles its CRs, so it cannot watch built-in objects. Give the entry its own group and kind (e.g. group: example.org) and declare the ${kind === '' ? 'built-in objects' : `${kind}s`} it should manage as children (docs/reference/katalog.md §24)`,
  );
  return true;
}

/** builtinApiTypes is the entry's apiTypes when they name one of Kubernetes' own kinds, else undefined. */
function builtinApiTypes(
  entry: YAMLMap,
): { group: string | undefined; kind: string; groupPair?: Pair; kindPair?: Pair } | undefined {
  const apiTypes = mapAt(entry, 'apiTypes');
  if (apiTypes == null) return undefined;
  const groupPair = pairOf(apiTypes, 'group');
  const kindPair = pairOf(apiTypes, 'kind');
  const group =
    groupPair != null && isScalar(groupPair.value) ? String(groupPair.value.value ?? '') : undefined;
  const kind = kindPair != null && isScalar(kindPair.value) ? String(kindPair.value.value ?? '') : '';
  const builtin = group == null ? BUILTIN_KINDS.has(kind) : BUILTIN_GROUPS.has(group);
  if (!builtin) return undefined;
  return {
    group,
    kind,
    ...(groupPair == null ? {} : { groupPair }),
    ...(kindPair == null ? {} : { kindPair }),
  };
}

/**
 * dropDisabledBuiltins removes, in an upstream Katalog, the entries with `enabled: false` whose
 * apiTypes name a built-in kind: upstream skips a disabled entry entirely, and Orkestra has no
 * entry for built-in kinds, so there is nothing to keep (an enabled one is refused, §24).
 */
function dropDisabledBuiltins(up: Upgrader, crds: YAMLMap): void {
  for (const pair of [...crds.items]) {
    const name = keyOf(pair as Pair);
    const entry = (pair as Pair).value;
    if (name == null || !isMap(entry)) continue;
    const enabled = pairOf(entry as YAMLMap, 'enabled')?.value;
    if (!isScalar(enabled) || enabled.value !== false) continue;
    const found = builtinApiTypes(entry as YAMLMap);
    if (found == null) continue;
    const index = takeOut(crds, pair as Pair);
    keepComment(crds, index, pair as Pair);
    up.change(
      ['spec', 'crds', name],
      (pair as Pair).key,
      `removed: a disabled entry (enabled: false) of the built-in kind ${found.kind || 'named by its group'}, which upstream skips and Orkestra has no entry for`,
    );
  }
}

/** GO_TYPE_KEYS are upstream `apiTypes` keys that name generated Go types (typed mode only). */
const GO_TYPE_KEYS = ['object', 'objectList', 'list', 'location', 'alias'] as const;

function upgradeEntry(up: Upgrader, entry: YAMLMap, base: Path, options: UpgradeDialectOptions): void {
  const builtin = builtinKindEntry(up, entry, base);
  const apiTypes = mapAt(entry, 'apiTypes');
  if (apiTypes != null)
    for (const key of GO_TYPE_KEYS)
      up.drop(
        apiTypes,
        key,
        [...base, 'apiTypes', key],
        'it names a generated Go type for upstream’s typed mode; Orkestra reads CRs as plain objects',
      );
  // The oldest generation's `apiPath` (`/apis`, or `/api` for core types) and `critical`.
  const apiPath = apiTypes == null ? undefined : pairOf(apiTypes, 'apiPath');
  if (apiTypes != null && apiPath != null) {
    if (scalarText(apiPath.value) === '/apis')
      up.drop(
        apiTypes,
        'apiPath',
        [...base, 'apiTypes', 'apiPath'],
        'the API path of every CRD kind (/apis)',
      );
    else {
      up.problem(
        [...base, 'apiTypes', 'apiPath'],
        apiPath.value,
        'an entry defines its own CRD, served under /apis; another apiPath (upstream’s /api for core types) names a built-in kind, which an entry cannot be',
      );
      takeOut(apiTypes, apiPath);
    }
  }
  up.drop(
    entry,
    'critical',
    [...base, 'critical'],
    'every entry counts toward the operator’s readiness (its informers must sync before /readyz is ok)',
  );
  for (const key of ['labelSelector', 'fieldSelector']) {
    const pair = pairOf(entry, key);
    if (pair == null) continue;
    if (!builtin)
      up.problem(
        [...base, key],
        pair.key,
        `upstream key \`${key}\` has no counterpart in Orkestra: every CR of the entry's kind is reconciled; narrow it with \`allowedNamespaces\` or gate children with \`when\``,
      );
    takeOut(entry, pair);
  }
  expandIncludes(up, entry, base);
  const imports = takeImports(up, entry, base);
  // G1: the entry's `reconciler:` block holds the lifecycle.
  const g1 = mapAt(entry, 'reconciler');
  if (g1 != null) {
    up.mark('G1');
    const box = up.ensureMap(entry, 'operatorBox', pairOf(entry, 'reconciler')?.key);
    const path = [...base, 'reconciler'];
    up.reconcilerDefault(g1, path);
    up.goHooks(g1, path);
    for (const key of BOX_KEYS) up.move(g1, key, box, key, [...path, key], 'operatorBox.' + key);
    for (const key of ENTRY_KEYS) up.move(g1, key, entry, key, [...path, key], key);
    up.refuse(g1, path, REFUSED);
    up.drop(entry, 'reconciler', path, 'its keys moved');
  }
  const box = mapAt(entry, 'operatorBox');
  const boxPath = [...base, 'operatorBox'];
  if (box != null) {
    if (pairOf(box, 'default') != null) up.mark('G2');
    up.reconcilerDefault(box, boxPath);
    // G2: operatorBox.reconciler holds the queue tuning; it belongs to the entry.
    const g2 = mapAt(box, 'reconciler');
    if (g2 != null) {
      up.mark('G2');
      const path = [...boxPath, 'reconciler'];
      up.reconcilerDefault(g2, path);
      up.goHooks(g2, path);
      for (const key of ENTRY_KEYS) up.move(g2, key, entry, key, [...path, key], key);
      up.refuse(g2, path, REFUSED);
      up.drop(box, 'reconciler', path, 'its keys moved to the entry');
    }
    up.move(box, 'autoscale', entry, 'autoscale', [...boxPath, 'autoscale'], 'autoscale');
    // G3: reconcile / runtime / emit sub-blocks.
    const reconcile = mapAt(box, 'reconcile');
    if (reconcile != null) {
      up.mark('G3');
      const path = [...boxPath, 'reconcile'];
      up.reconcilerDefault(reconcile, path);
      up.goHooks(reconcile, path);
      for (const key of BOX_KEYS) up.move(reconcile, key, box, key, [...path, key], 'operatorBox.' + key);
      for (const key of ENTRY_KEYS) up.move(reconcile, key, entry, key, [...path, key], key);
      up.refuse(reconcile, path, REFUSED);
      up.drop(box, 'reconcile', path, 'its keys moved');
    }
    const runtime = mapAt(box, 'runtime');
    if (runtime != null) {
      up.mark('G3');
      const path = [...boxPath, 'runtime'];
      up.move(runtime, 'finalizers', box, 'finalizers', [...path, 'finalizers'], 'operatorBox.finalizers');
      for (const key of ENTRY_KEYS) up.move(runtime, key, entry, key, [...path, key], key);
      up.refuse(runtime, path, REFUSED);
      up.drop(box, 'runtime', path, 'its keys moved');
    }
    const emit = mapAt(box, 'emit');
    if (emit != null) {
      up.mark('G3');
      const path = [...boxPath, 'emit'];
      up.move(emit, 'status', box, 'status', [...path, 'status'], 'operatorBox.status');
      up.refuse(emit, path, REFUSED);
      up.drop(box, 'emit', path, 'its keys moved');
    }
  }
  // G3: entry-level admission.{validation, mutation}.
  const admission = mapAt(entry, 'admission');
  if (admission != null) {
    up.mark('G3');
    const path = [...base, 'admission'];
    up.move(admission, 'validation', entry, 'validation', [...path, 'validation'], 'validation');
    up.move(admission, 'mutation', entry, 'mutation', [...path, 'mutation'], 'mutation');
    up.drop(
      admission,
      'webhooks',
      [...path, 'webhooks'],
      'admission webhooks are configured by the deployment, not per entry',
    );
    up.refuse(admission, path, REFUSED);
    up.drop(entry, 'admission', path, 'its keys moved');
  }
  up.drop(entry, 'webhooks', [...base, 'webhooks'], 'admission webhooks are configured by the deployment');
  up.drop(
    entry,
    'mode',
    [...base, 'mode'],
    'typed/dynamic selects upstream’s Go implementation; Orkestra has one',
  );
  up.drop(
    entry,
    'serve',
    [...base, 'serve'],
    'the gateway’s self-service form is not part of Orkestra; reconciling is unchanged',
  );
  upgradeEntryNamespace(up, entry, base);
  // Upstream's entry labels (and annotations) are kept on the CRs themselves (katalog.md §3.3).
  labelsList(up, entry, base, 'labels');
  labelsList(up, entry, base, 'annotations');
  entryRefusals(up, entry, base);
  up.drop(entry, 'endpoints', [...base, 'endpoints'], 'the operator serves one fixed set of endpoints');
  up.drop(entry, 'crFiles', [...base, 'crFiles'], 'sample CRs are passed to `ork render`/`ork dev` instead');
  up.drop(
    entry,
    'setup',
    [...base, 'setup'],
    'prerequisites are applied before `ork dev`, not by the Katalog',
  );
  upgradeWatch(up, entry, base);
  upgradePreReconcile(up, entry, base);
  for (const key of ['observe', 'watch', 'preReconcile', 'rollback', 'rollBackOnError']) {
    const boxNow = mapAt(entry, 'operatorBox');
    const pair = boxNow == null ? undefined : pairOf(boxNow, key);
    if (boxNow == null || pair == null) continue;
    up.mark('G3');
    const holder = new YAMLMap();
    holder.items.push(pair);
    up.refuse(holder, boxPath, REFUSED);
    takeOut(boxNow, pair);
  }
  upgradeCrdFile(up, entry, base, options);
  upgradeQueue(up, entry, base);
  const mutation = mapAt(entry, 'mutation');
  if (mutation != null)
    up.drop(
      mutation,
      'mutateFirst',
      [...base, 'mutation', 'mutateFirst'],
      'mutation always runs before validation',
    );
  if (up.upstream) mutationMetadata(up, entry, base);
  upgradeValidation(up, entry, base);
  if (imports.length > 0) applyImports(up, entry, imports, boxPath);
  const finalBox = mapAt(entry, 'operatorBox');
  if (finalBox != null) upgradeBox(up, finalBox, boxPath);
  if (up.upstream) externalJsonPaths(up, entry, base);
}

// ---- watch: and preReconcile: (G3) ------------------------------------------------------------

/** WATCH_REFUSED names the keys of an upstream watch item or `observe` block that have no counterpart, and why. */
const WATCH_REFUSED: Readonly<Record<string, string>> = {
  enqueueGate:
    'gates on watch events are not supported; a watched change re-queues the CR, whose reconcile is level-based and writes nothing when nothing changed',
  include: 'write the watch items inline',
  events:
    'Kubernetes Events are not watched as triggers; watch the object the Event is about (`watch: [{apiVersion, kind}]`)',
};

/**
 * upgradeWatch moves upstream's `operatorBox.watch` and `operatorBox.observe.watch` lists to the
 * entry's `watch` (docs/reference/katalog.md §3.2) and maps each item: `index` (field indexers for
 * upstream's Go client) is dropped; `enqueueGate` and `include` are refused with their reason.
 */
function upgradeWatch(up: Upgrader, entry: YAMLMap, base: Path): void {
  const box = mapAt(entry, 'operatorBox');
  const boxPath = [...base, 'operatorBox'];
  if (box == null) return;
  const observe = mapAt(box, 'observe');
  if (observe != null) {
    up.mark('G3');
    const path = [...boxPath, 'observe'];
    if (isSeq(pairOf(observe, 'watch')?.value))
      up.move(observe, 'watch', entry, 'watch', [...path, 'watch'], 'watch');
    up.refuse(observe, path, WATCH_REFUSED);
    up.drop(box, 'observe', path, 'its watch list moved to the entry');
  }
  if (isSeq(pairOf(box, 'watch')?.value)) {
    up.mark('G3');
    up.move(box, 'watch', entry, 'watch', [...boxPath, 'watch'], 'watch');
  }
  const list = pairOf(entry, 'watch')?.value;
  if (!isSeq(list)) return;
  (list as YAMLSeq).items.forEach((item, index) => {
    if (!isMap(item)) return;
    const path = [...base, 'watch', index];
    up.drop(
      item as YAMLMap,
      'index',
      [...path, 'index'],
      'field indexers serve the lists of upstream’s Go client code; Orkestra runs none',
    );
    for (const key of ['enqueueGate', 'include']) {
      const pair = pairOf(item as YAMLMap, key);
      if (pair == null) continue;
      up.problem(
        [...path, key],
        pair.key,
        `upstream key \`${key}\` has no counterpart in Orkestra: ${WATCH_REFUSED[key] ?? ''}`,
      );
      takeOut(item as YAMLMap, pair);
    }
  });
}

/**
 * upgradePreReconcile drops a `preReconcile` block that only declares `sentinels`: upstream computes
 * sentinels for its enqueue and reconcile gates, so with no gate they change nothing. Gates
 * (`enqueueGate`, `reconcileGate`) and gate `external` calls are refused with the reason.
 */
function upgradePreReconcile(up: Upgrader, entry: YAMLMap, base: Path): void {
  const box = mapAt(entry, 'operatorBox');
  const pre = box == null ? undefined : mapAt(box, 'preReconcile');
  if (box == null || pre == null) return;
  up.mark('G3');
  const path = [...base, 'operatorBox', 'preReconcile'];
  up.drop(
    pre,
    'sentinels',
    [...path, 'sentinels'],
    'sentinels only feed preReconcile gates; reconciles are level-based and skip writes when nothing changed',
  );
  up.refuse(pre, path, PRE_RECONCILE_REFUSED);
  up.drop(box, 'preReconcile', path, 'nothing in it is needed');
}

const PRE_RECONCILE_REFUSED: Readonly<Record<string, string>> = {
  enqueueGate:
    'there is no pre-reconcile gate; gate groups and children with `when`/`anyOf`, or narrow the CRs with `allowedNamespaces`',
  reconcileGate: 'there is no pre-reconcile gate; gate groups and children with `when`/`anyOf`',
  external: 'gate calls are not supported; call the service from `external` and gate children on its result',
};

/** EXTERNAL_RESULT_KEYS are the keys of an external call's result (docs/reference/katalog.md §15.1). */
export const EXTERNAL_RESULT_KEYS: readonly string[] = [
  'called',
  'ok',
  'status',
  'body',
  'json',
  'headers',
  'error',
  'durationMs',
];
const EXTERNAL_FIELD = new RegExp(
  `(^|[^\\w.])(\\.?external\\.[A-Za-z_][\\w-]*\\.)(?!(?:${EXTERNAL_RESULT_KEYS.join('|')})\\b)([A-Za-z_]\\w*)`,
  'g',
);

/**
 * externalJsonPaths rewrites upstream's `external.<name>.<field>` (a field of the JSON answer) to
 * the canonical `external.<name>.json.<field>` in templates and condition fields. The runtime reads
 * both; strict validation checks only the canonical path.
 */
function externalJsonPaths(up: Upgrader, entry: YAMLMap, base: Path): void {
  walkScalars(entry, (node) => {
    if (typeof node.value !== 'string' || !node.value.includes('external.')) return;
    // Upstream's result also has `statusCode` (our `status`) and `durationSeconds` (left alone:
    // ours is `durationMs`, and strict validation names it).
    const rewritten = node.value.replace(
      EXTERNAL_FIELD,
      (all, lead: string, prefix: string, field: string) =>
        field === 'statusCode'
          ? `${lead}${prefix}status`
          : field === 'durationSeconds'
            ? all
            : `${lead}${prefix}json.${field}`,
    );
    if (rewritten === node.value) return;
    node.value = rewritten;
    up.change(
      base,
      node,
      'external.<name>.<field> (a field of the JSON answer) is written external.<name>.json.<field>, statusCode is status',
    );
  });
}

// ---- include: and motif imports -------------------------------------------------------------------------

/** includeList prepends the `listKey` list of an included file to the block's own list (upstream's order). */
function includeList(up: Upgrader, map: YAMLMap | undefined, path: Path, listKey: string): void {
  const pair = map == null ? undefined : pairOf(map, 'include');
  if (map == null || pair == null || !isScalar(pair.value)) return;
  const file = String(pair.value.value);
  takeOut(map, pair);
  const root = up.readYaml(file, [...path, 'include'], pair.value, 'include');
  if (root == null) return;
  const included = pairOf(root, listKey)?.value;
  const own = pairOf(map, listKey);
  const merged = born(new YAMLSeq(), pair.value);
  if (isSeq(included)) merged.items.push(...(included as YAMLSeq).items);
  if (own != null && isSeq(own.value)) merged.items.push(...(own.value as YAMLSeq).items);
  if (own != null) own.value = merged;
  else map.items.push(new Pair(scalar(listKey, pair.key), merged));
  up.change([...path, 'include'], pair.key, `inlined ${merged.items.length} ${listKey} from ${file}`);
}

/** includeBlock merges the `blockKey` block of an included file under the block itself (inline keys win). */
function includeBlock(up: Upgrader, map: YAMLMap | undefined, path: Path, blockKey: string): void {
  const pair = map == null ? undefined : pairOf(map, 'include');
  if (map == null || pair == null || !isScalar(pair.value)) return;
  const file = String(pair.value.value);
  takeOut(map, pair);
  const root = up.readYaml(file, [...path, 'include'], pair.value, 'include');
  const block = root == null ? undefined : mapAt(root, blockKey);
  if (block == null) {
    if (root != null)
      up.problem([...path, 'include'], pair.value, `include ${file} has no \`${blockKey}:\` block`);
    return;
  }
  for (const item of block.items) {
    const key = keyOf(item as Pair);
    if (key != null && pairOf(map, key) == null) map.items.push(item);
  }
  up.change([...path, 'include'], pair.key, `merged ${blockKey}: from ${file}`);
}

function expandIncludes(up: Upgrader, entry: YAMLMap, base: Path): void {
  const admission = mapAt(entry, 'admission');
  const box = mapAt(entry, 'operatorBox');
  includeList(up, mapAt(entry, 'validation'), [...base, 'validation'], 'rules');
  includeList(up, mapAt(entry, 'mutation'), [...base, 'mutation'], 'rules');
  includeList(up, mapAt(admission, 'validation'), [...base, 'admission', 'validation'], 'rules');
  includeList(up, mapAt(admission, 'mutation'), [...base, 'admission', 'mutation'], 'rules');
  includeList(up, mapAt(box, 'status'), [...base, 'operatorBox', 'status'], 'fields');
  includeList(up, mapAt(mapAt(box, 'emit'), 'status'), [...base, 'operatorBox', 'emit', 'status'], 'fields');
  includeBlock(up, mapAt(entry, 'reconciler'), [...base, 'reconciler'], 'reconciler');
  includeBlock(up, mapAt(box, 'reconciler'), [...base, 'operatorBox', 'reconciler'], 'reconciler');
  includeBlock(up, mapAt(box, 'reconcile'), [...base, 'operatorBox', 'reconcile'], 'reconcile');
}

interface MotifImport {
  readonly item: YAMLMap;
  readonly path: Path;
}

/** takeImports removes every `imports:` list (entry, G1 reconciler, G3 reconcile) and returns its items. */
function takeImports(up: Upgrader, entry: YAMLMap, base: Path): MotifImport[] {
  const out: MotifImport[] = [];
  const holders: [YAMLMap | undefined, Path][] = [
    [entry, base],
    [mapAt(entry, 'reconciler'), [...base, 'reconciler']],
    [mapAt(entry, 'operatorBox'), [...base, 'operatorBox']],
    [mapAt(mapAt(entry, 'operatorBox'), 'reconcile'), [...base, 'operatorBox', 'reconcile']],
    [mapAt(mapAt(entry, 'operatorBox'), 'reconciler'), [...base, 'operatorBox', 'reconciler']],
  ];
  for (const [holder, path] of holders) {
    const pair = holder == null ? undefined : pairOf(holder, 'imports');
    if (holder == null || pair == null) continue;
    takeOut(holder, pair);
    if (!isSeq(pair.value)) {
      up.problem([...path, 'imports'], pair.value, 'imports is a list of {motif, with} items');
      continue;
    }
    (pair.value as YAMLSeq).items.forEach((item, i) => {
      if (isMap(item)) out.push({ item: item as YAMLMap, path: [...path, 'imports', i] });
      else
        up.problem(
          [...path, 'imports', i],
          item,
          'an import is a map with `motif` (a file path) and `with` (inputs)',
        );
    });
  }
  return out;
}

function applyImports(up: Upgrader, entry: YAMLMap, imports: readonly MotifImport[], boxPath: Path): void {
  for (const { item, path } of imports) {
    const ref = pairOf(item, 'motif') ?? pairOf(item, 'path') ?? pairOf(item, 'ref');
    const file = ref != null && isScalar(ref.value) ? String(ref.value.value) : undefined;
    if (file == null) {
      up.problem(path, item, 'an import needs `motif: <file>`');
      continue;
    }
    if (/^(oci|https?):\/\//.test(file)) {
      up.problem(
        [...path, 'motif'],
        ref?.value,
        `motif ${file} is remote; only motif files next to the Katalog are read`,
      );
      continue;
    }
    const motif = up.readYaml(file, [...path, 'motif'], ref?.value, 'motif');
    if (motif == null) continue;
    const values = new Map<string, MotifInput>();
    const given = mapAt(item, 'with');
    for (const pair of given?.items ?? []) {
      const key = keyOf(pair as Pair);
      const node = (pair as Pair).value;
      if (key != null && node != null && !isScalar(node))
        up.problem(
          [...path, 'with', key],
          node,
          `motif input \`${key}\` must be a string, number or boolean (a template is a string); lists and maps are not inputs`,
        );
      if (key != null) values.set(key, { value: isScalar(node) ? node.value : undefined, node });
    }
    const inputs = pairOf(motif, 'inputs')?.value;
    let missing = false;
    for (const input of isSeq(inputs) ? (inputs as YAMLSeq).items : []) {
      if (!isMap(input)) continue;
      const name = pairOf(input as YAMLMap, 'name')?.value;
      const key = isScalar(name) ? String(name.value) : undefined;
      if (key == null || values.has(key)) continue;
      const fallback = pairOf(input as YAMLMap, 'default')?.value;
      const required = pairOf(input as YAMLMap, 'required')?.value;
      if (fallback != null && isScalar(fallback)) values.set(key, { value: fallback.value, node: fallback });
      else if (isScalar(required) && required.value === true) {
        up.problem(
          [...path, 'with'],
          given ?? item,
          `motif ${file} needs input \`${key}\` (required); give it under \`with:\``,
        );
        missing = true;
      }
    }
    if (missing) continue;
    const box = up.ensureMap(entry, 'operatorBox', item);
    const counts = new Map<string, number>();
    const mergeList = (groupKey: string, pair: Pair): void => {
      const listKey = keyOf(pair);
      if (listKey == null) return;
      substituteInputs(up, pair.value, values, [...path, 'with']);
      const group = up.ensureMap(box, groupKey, item);
      const target = pairOf(group, listKey);
      if (target != null && isSeq(target.value) && isSeq(pair.value))
        (target.value as YAMLSeq).items.push(...(pair.value as YAMLSeq).items);
      else group.items.push(pair);
      counts.set(
        groupKey,
        (counts.get(groupKey) ?? 0) + (isSeq(pair.value) ? (pair.value as YAMLSeq).items.length : 1),
      );
    };
    // A motif's `resources` holds kind lists (imported into onReconcile) or the lifecycle groups
    // `onCreate` / `onReconcile` of kind lists (imported into the same group). Anything else is
    // refused at its key — nothing is dropped silently (docs/reference/katalog.md §24, ADR 0004).
    const resources = mapAt(motif, 'resources');
    for (const pair of resources?.items ?? []) {
      const key = keyOf(pair as Pair);
      const value = (pair as Pair).value;
      const at = [...path, 'motif', 'resources', key ?? '?'];
      if (key === 'onCreate' || key === 'onReconcile') {
        if (!isMap(value)) {
          up.problem(at, (pair as Pair).key, `a motif's \`resources.${key}\` is a map of kind lists`);
          continue;
        }
        for (const inner of (value as YAMLMap).items) mergeList(key, inner as Pair);
      } else if (key === 'onDelete') {
        up.problem(
          at,
          (pair as Pair).key,
          "a motif's `resources.onDelete` is not imported: deletion steps are the entry's own; write them under the entry's `operatorBox.onDelete` (docs/reference/katalog.md §5.6)",
        );
      } else if (key != null && isSeq(value)) mergeList('onReconcile', pair as Pair);
      else
        up.problem(
          at,
          (pair as Pair).key,
          `a motif's \`resources.${key ?? '?'}\` must be a kind list (such as \`deployments: [...]\`) or a lifecycle group \`onCreate\` / \`onReconcile\``,
        );
    }
    const motifNotes = pairOf(motif, 'notes');
    if (motifNotes != null)
      up.change(
        [...path, 'motif', 'notes'],
        motifNotes.key,
        'not imported: an entry-level import lends no notes (as upstream); import the motif under spec.imports',
      );
    const fields = pairOf(mapAt(motif, 'status') ?? new YAMLMap(), 'fields')?.value;
    if (isSeq(fields)) {
      substituteInputs(up, fields, values, [...path, 'with']);
      const status = up.ensureMap(box, 'status', item);
      const own = pairOf(status, 'fields');
      if (own != null && isSeq(own.value)) (own.value as YAMLSeq).items.push(...(fields as YAMLSeq).items);
      else status.items.push(new Pair(scalar('fields', item), fields));
    }
    const total = [...counts.values()].reduce((a, b) => a + b, 0);
    const into = counts.size === 0 ? ['onReconcile'] : [...counts.keys()];
    up.change(
      path,
      item,
      `imported ${total} ${total === 1 ? 'child' : 'children'} from motif ${file} into ${into
        .map((group) => formatPath([...boxPath.slice(-1), group]))
        .join(' and ')}`,
    );
  }
}

/** MotifInput is one value given to a motif (`with:` or the input's `default`), with its node. */
interface MotifInput {
  readonly value: unknown;
  readonly node: unknown;
}

const INPUT_REF = /index\s+\.inputs\s+"([^"]+)"|\.inputs\.([A-Za-z_][A-Za-z0-9_]*)/g;
const ONLY_REF = /^\{\{-?\s*(?:index\s+\.inputs\s+"([^"]+)"|\.inputs\.([A-Za-z_][A-Za-z0-9_]*))\s*-?\}\}$/;
const ONE_ACTION = /^\{\{-?\s*([^{}]*?)\s*-?\}\}$/;

/**
 * substituteInputs writes a motif's input values into its templates (`.inputs.x`,
 * `index .inputs "x"`). A literal value is written as a constant. A value that is itself a
 * template (`"{{ .spec.replicas }}"`) is evaluated against the CR, as upstream does. A field that
 * is only the input takes the value as written — a template stays a template, a literal stays a
 * literal of its own type — and the value's position, so errors point at the `with:` line. An
 * input used inside a larger expression takes a template's expression in parentheses. A template with text around it cannot be spliced into an expression and is
 * refused at the `with:` value (docs/reference/katalog.md §24).
 */
function substituteInputs(
  up: Upgrader,
  node: unknown,
  values: ReadonlyMap<string, MotifInput>,
  withPath: Path,
): void {
  const template = (input: MotifInput | undefined): string | undefined =>
    typeof input?.value === 'string' && input.value.includes('{{') ? input.value : undefined;
  const expression = (key: string): string => {
    const input = values.get(key);
    const text = template(input);
    if (text == null) {
      const value = input?.value;
      return typeof value === 'number' || typeof value === 'boolean'
        ? String(value)
        : JSON.stringify(value == null ? '' : String(value));
    }
    const action = ONE_ACTION.exec(text.trim());
    if (action?.[1] != null) return `(${action[1]})`;
    up.problem(
      [...withPath, key],
      input?.node,
      `motif input \`${key}\` is a template with text around it, and the motif uses it inside an expression; give a single \`{{ … }}\` action, or text without a template`,
    );
    return '""';
  };
  walkScalars(node, (scalarNode) => {
    if (typeof scalarNode.value !== 'string' || !scalarNode.value.includes('.inputs')) return;
    const only = ONLY_REF.exec(scalarNode.value.trim());
    const key = only?.[1] ?? only?.[2];
    const input = key == null ? undefined : values.get(key);
    if (input != null && (input.value == null || typeof input.value !== 'object')) {
      // The field is the input alone: it takes the value as written (a template stays a template,
      // a literal stays a literal of its own type) and the value's position.
      scalarNode.value = input.value ?? '';
      const range = rangeOf(input.node);
      if (range != null) scalarNode.range = [...range];
      return;
    }
    scalarNode.value = scalarNode.value.replace(/\{\{[\s\S]*?\}\}/g, (action) =>
      action
        .replace(INPUT_REF, (_m, a: string | undefined, b: string | undefined) => expression(a ?? b ?? ''))
        .replace(
          /\.inputs\b/g,
          () => `(dict ${[...values.keys()].map((k) => `${JSON.stringify(k)} ${expression(k)}`).join(' ')})`,
        ),
    );
  });
}

function walkScalars(node: unknown, visit: (node: Scalar) => void): void {
  if (isScalar(node)) visit(node);
  else if (isMap(node)) for (const pair of (node as YAMLMap).items) walkScalars((pair as Pair).value, visit);
  else if (isSeq(node)) for (const item of (node as YAMLSeq).items) walkScalars(item, visit);
}

/** ENTRY_REFUSED names entry-level upstream keys without a counterpart, and why (reported at the key). */
const ENTRY_REFUSED: Readonly<Record<string, string>> = {
  conversion:
    'it serves a CRD conversion webhook (`storageVersion` and `paths` between versions), which Orkestra does not run; give each version its own entry or serve one version',
  enrich: 'pods and events are not added to the template context; read children through `status` fields',
  ignoreStatusPatch: REFUSED['ignoreStatusPatch'] ?? '',
  ignoreObservedGeneration: REFUSED['ignoreObservedGeneration'] ?? '',
  removeFinalizers: REFUSED['removeFinalizers'] ?? '',
};

/**
 * upgradeEntryNamespace maps upstream's entry `namespace: X` (its informer watches X only) onto
 * `allowedNamespaces: [X]`, whose one exact name scopes the informers and RBAC the same way (§19);
 * children bound for other namespaces are held to it too. A templated or non-text value, or an
 * `allowedNamespaces` that already excludes X, is refused at the key.
 */
function upgradeEntryNamespace(up: Upgrader, entry: YAMLMap, base: Path): void {
  const pair = pairOf(entry, 'namespace');
  if (pair == null) return;
  const path = [...base, 'namespace'];
  const value = isScalar(pair.value) ? (pair.value as Scalar).value : undefined;
  if (typeof value !== 'string' || value === '' || value.includes('{{')) {
    up.problem(
      path,
      pair.key,
      'upstream key `namespace` must be one literal namespace name to map onto `allowedNamespaces`',
    );
    takeOut(entry, pair);
    return;
  }
  const allowed = pairOf(entry, 'allowedNamespaces');
  if (allowed == null) {
    const at = takeOut(entry, pair);
    entry.items.splice(at, 0, new Pair(scalar('allowedNamespaces', pair.key), flowList([value], pair.value)));
    up.change(
      path,
      pair.key,
      `mapped to allowedNamespaces: [${value}] (informers, RBAC and children scoped to it)`,
    );
    return;
  }
  const names = isSeq(allowed.value) ? (allowed.value as YAMLSeq).items.map(scalarText) : [];
  if (names.includes(value)) {
    takeOut(entry, pair);
    up.change(path, pair.key, `removed: allowedNamespaces already lists ${value}`);
    return;
  }
  up.problem(
    path,
    pair.key,
    `upstream key \`namespace: ${value}\` conflicts with allowedNamespaces, which does not list it; keep one of them`,
  );
  takeOut(entry, pair);
}

function entryRefusals(up: Upgrader, entry: YAMLMap, base: Path): void {
  for (const [key, reason] of Object.entries(ENTRY_REFUSED)) {
    const pair = pairOf(entry, key);
    if (pair == null) continue;
    up.problem([...base, key], pair.key, `upstream key \`${key}\` has no counterpart in Orkestra: ${reason}`);
    takeOut(entry, pair);
  }
}

function upgradeQueue(up: Upgrader, entry: YAMLMap, base: Path): void {
  const queue = mapAt(entry, 'queue');
  if (queue == null) return;
  const path = [...base, 'queue'];
  const depth = pairOf(queue, 'maxQueueDepth');
  if (depth != null) {
    if (pairOf(queue, 'maxDepth') == null) {
      depth.key = scalar('maxDepth', depth.key);
      up.change([...path, 'maxQueueDepth'], depth.key, 'renamed to queue.maxDepth');
    }
  }
  up.drop(queue, 'shared', [...path, 'shared'], 'every entry has its own work queue');
  for (const key of ['default', 'failureThreshold', 'behaviour', 'behavior'])
    up.drop(
      queue,
      key,
      [...path, key],
      'a full queue drops new keys (the only behaviour); they are seen again at resync',
    );
}

/**
 * mutationMetadata maps upstream's mutation rules on the CR's own labels and annotations
 * (`field: metadata.labels.<key>` with `override`) onto the entry's `labels`/`annotations`
 * (docs/reference/katalog.md §3.3), which keep those keys on every CR; mutation writes `spec` only.
 * A `default` (set only when absent) or a gated rule has no counterpart and is refused at the rule.
 */
function mutationMetadata(up: Upgrader, entry: YAMLMap, base: Path): void {
  const rules = pairOf(mapAt(entry, 'mutation') ?? new YAMLMap(), 'rules')?.value;
  if (!isSeq(rules)) return;
  const items = (rules as YAMLSeq).items;
  [...items].forEach((rule, i) => {
    if (!isMap(rule)) return;
    const map = rule as YAMLMap;
    const field = scalarText(pairOf(map, 'field')?.value);
    const target = field == null ? null : /^\.?metadata\.(labels|annotations)\.(.+)$/.exec(field);
    if (target == null) return;
    const [, kind = 'labels', key = ''] = target;
    const at = [...base, 'mutation', 'rules', i];
    items.splice(items.indexOf(rule), 1);
    const override = pairOf(map, 'override');
    if (override == null || ['when', 'anyOf', 'or'].some((gate) => pairOf(map, gate) != null)) {
      up.problem(
        at,
        rule,
        `a mutation of the CR's ${kind} maps onto the entry's \`${kind}\` (kept on every CR, docs/reference/katalog.md §3.3), which always set the key: write it with \`override\` and no gate, or under \`${kind}\` yourself`,
      );
      return;
    }
    const holder = up.ensureMap(entry, kind, rule);
    if (pairOf(holder, key) != null) {
      up.problem(
        at,
        rule,
        `${kind}.${key} is written twice (here and under the entry's \`${kind}\`); keep one`,
      );
      return;
    }
    holder.items.push(new Pair(scalar(key, pairOf(map, 'field')?.value), override.value));
    up.change(at, rule, `moved to ${kind}.${key} (the entry's ${kind} are kept on every CR)`);
  });
}

function upgradeValidation(up: Upgrader, entry: YAMLMap, base: Path): void {
  const validation = mapAt(entry, 'validation');
  if (validation != null) externalProtocols(up, validation, [...base, 'validation']);
  const rules = validation == null ? undefined : pairOf(validation, 'rules')?.value;
  if (!isSeq(rules)) return;
  (rules as YAMLSeq).items.forEach((rule, i) => {
    // Upstream's validation never reads `valueType` (it types mutation values): numeric operators
    // compare numbers and the others strings, whatever it says — as here (§12).
    if (isMap(rule) && up.upstream)
      up.drop(
        rule as YAMLMap,
        'valueType',
        [...base, 'validation', 'rules', i, 'valueType'],
        'upstream’s validation does not read it (numeric operators compare numbers, the others strings)',
      );
    if (!isMap(rule) || pairOf(rule as YAMLMap, 'message') != null) return;
    const map = rule as YAMLMap;
    const field = pairOf(map, 'field')?.value;
    const fieldText = isScalar(field)
      ? String(field.value).replace(/^\{\{\s*\.?|\s*\}\}$/g, '')
      : `rule ${i}`;
    const operators = map.items
      .map((pair) => keyOf(pair as Pair))
      .filter(
        (key): key is string => key != null && !['field', 'action', 'when', 'or', 'anyOf'].includes(key),
      );
    const message = `validation rule ${i} failed: ${fieldText}${operators.length > 0 ? ` ${operators.join(', ')}` : ' exists'}`;
    map.items.push(new Pair(scalar('message', rule), scalar(message, rule)));
    up.change([...base, 'validation', 'rules', i], rule, `added message ${JSON.stringify(message)}`);
  });
}

function upgradeCrdFile(up: Upgrader, entry: YAMLMap, base: Path, options: UpgradeDialectOptions): void {
  const pair = pairOf(entry, 'crdFile');
  if (pair == null) return;
  const path = [...base, 'crdFile'];
  const file = isScalar(pair.value) ? String(pair.value.value) : '';
  const at = entry.items.indexOf(pair);
  entry.items.splice(at, 1);
  keepComment(entry, at, pair);
  if (/^https?:\/\//.test(file)) {
    up.change(
      path,
      pair.key,
      'removed: a remote CRD file is not fetched; declare apiTypes and schema inline',
    );
    return;
  }
  if (options.baseDir == null) {
    up.change(path, pair.key, 'removed: no directory to read it from (inline text)');
    return;
  }
  const full = isAbsolute(file) ? file : resolve(options.baseDir, file);
  let crd: unknown;
  try {
    const text = (options.readFile ?? ((p: string) => readFileSync(p, 'utf8')))(full);
    const checked = checkYamlText(text);
    if (!checked.ok) throw new Error(checked.problem.message);
    crd = parseDocument(text).toJS();
  } catch (error) {
    up.problem(
      path,
      pair.value,
      `cannot read crdFile ${file}: ${error instanceof Error ? error.message : String(error)}`,
    );
    return;
  }
  const crdSpec = (crd as { spec?: Record<string, unknown> } | null)?.spec;
  if (crdSpec == null) {
    up.problem(path, pair.value, `crdFile ${file} holds no CustomResourceDefinition spec`);
    return;
  }
  const names = (crdSpec['names'] ?? {}) as Record<string, unknown>;
  const versions = Array.isArray(crdSpec['versions'])
    ? (crdSpec['versions'] as Record<string, unknown>[])
    : [];
  const version = versions.find((v) => v['storage'] === true) ?? versions[0];
  let apiTypes = mapAt(entry, 'apiTypes');
  if (apiTypes == null) {
    apiTypes = born(new YAMLMap(), pair.value);
    entry.items.splice(at, 0, new Pair(scalar('apiTypes', pair.key), apiTypes));
  }
  const target = apiTypes;
  const filled: string[] = [];
  const fill = (key: string, value: unknown): void => {
    if (value == null || pairOf(target, key) != null) return;
    target.items.push(new Pair(scalar(key, pair.key), scalarOrNode(value, pair.value)));
    filled.push(`apiTypes.${key}`);
  };
  fill('group', crdSpec['group']);
  fill('version', version?.['name']);
  fill('kind', names['kind']);
  fill('plural', names['plural']);
  fill('singular', names['singular']);
  fill('shortNames', names['shortNames']);
  const schema = (version?.['schema'] as Record<string, unknown> | undefined)?.['openAPIV3Schema'];
  if (schema != null && pairOf(entry, 'schema') == null) {
    const node = born(new YAMLMap(), pair.value);
    node.items.push(new Pair(scalar('openAPIV3Schema', pair.key), scalarOrNode(schema, pair.value)));
    entry.items.splice(
      entry.items.indexOf(pairOf(entry, 'apiTypes') as Pair) + 1,
      0,
      new Pair(scalar('schema', pair.key), node),
    );
    filled.push('schema');
  }
  if (crdSpec['scope'] === 'Cluster' && pairOf(entry, 'namespaced') == null) {
    place(entry, new Pair(scalar('namespaced', pair.key), scalar(false, pair.value)));
    filled.push('namespaced: false');
  }
  up.change(path, pair.key, `read ${file} into ${filled.length > 0 ? filled.join(', ') : 'nothing new'}`);
}

/** scalarOrNode builds a YAML node for a plain JS value, positioned at `from`. */
function scalarOrNode(value: unknown, from: unknown): YamlNode {
  if (Array.isArray(value)) {
    const seq = born(new YAMLSeq(), from);
    for (const item of value) seq.items.push(scalarOrNode(item, from));
    return seq;
  }
  if (value !== null && typeof value === 'object') {
    const map = born(new YAMLMap(), from);
    for (const [k, v] of Object.entries(value))
      map.items.push(new Pair(scalar(k, from), scalarOrNode(v, from)));
    return map;
  }
  return scalar(value, from);
}

// ---- inside the operatorBox ---------------------------------------------------------------------------

/** eachGroup calls `visit` for a lifecycle group and for each of its nested `groups[]`. */
function eachGroup(group: YAMLMap, path: Path, visit: (map: YAMLMap, path: Path) => void): void {
  visit(group, path);
  const nested = pairOf(group, 'groups')?.value;
  if (isSeq(nested))
    (nested as YAMLSeq).items.forEach((item, i) => {
      if (isMap(item)) visit(item as YAMLMap, [...path, 'groups', i]);
    });
}

function upgradeBox(up: Upgrader, box: YAMLMap, boxPath: Path): void {
  externalProtocols(up, box, boxPath);
  if (up.upstream) groupLists(up, box, boxPath);
  for (const group of RESOURCE_GROUPS) {
    const groupMap = mapAt(box, group);
    if (groupMap == null) continue;
    eachGroup(groupMap, [...boxPath, group], (map, path) => {
      upgradeGroup(up, map, path);
      externalProtocols(up, map, path);
    });
  }
  const onDelete = mapAt(box, 'onDelete');
  if (onDelete != null) {
    eachGroup(onDelete, [...boxPath, 'onDelete'], (map, path) => renameListKeys(up, map, path));
    if (up.upstream) upgradeDeleteGroups(up, onDelete, [...boxPath, 'onDelete']);
  }
  const cross = pairOf(box, 'cross')?.value;
  if (isSeq(cross)) {
    // A refused read is taken out whole, so its other keys are not reported a second time.
    const refusedReads: unknown[] = [];
    (cross as YAMLSeq).items.forEach((item, i) => {
      if (!isMap(item)) return;
      const source = pairOf(item as YAMLMap, 'source');
      if (source != null && isMap(source.value)) {
        up.problem(
          [...boxPath, 'cross', i, 'source'],
          source.key,
          'upstream key `source` (a map) has no counterpart in Orkestra: it reads another operator through upstream’s own HTTP paths (`host` + `protocol` → /katalog/<crd>/…) and answer shapes, which Orkestra neither serves nor calls. Between Orkestra operators write `endpoint: <base URL of the other operator>` with a `selector.name`; for any other JSON service use `external`',
        );
        refusedReads.push(item);
        return;
      }
      if (source != null && pairOf(item as YAMLMap, 'endpoint') == null) {
        source.key = scalar('endpoint', source.key);
        up.change([...boxPath, 'cross', i, 'source'], source.key, 'renamed to endpoint');
      }
    });
    const items = (cross as YAMLSeq).items;
    for (const item of refusedReads) items.splice(items.indexOf(item), 1);
  }
}

/** DELETE_BLOCK_KEYS are the keys of `onDelete` itself; any other key there is a kind list. */
const DELETE_BLOCK_KEYS: ReadonlySet<string> = new Set([
  'timeout',
  'jobs',
  'ordered',
  'groups',
  'when',
  'anyOf',
  'or',
]);

/**
 * upgradeDeleteGroups maps upstream's ordered deletion onto §5.6. Upstream's stage is a whole
 * resource block of which only each item's `name` and `namespace` are read; a stage has no name
 * (upstream counts them), so each gets `stage-<n>`; a kind written with no items (`- deployments:`)
 * deletes nothing, as upstream, and is removed; the cluster-scoped lists become `custom`
 * references. With `ordered: true` and no `groups`, upstream's flat kind lists are the one stage;
 * without `ordered` upstream only runs `jobs`, so flat kind lists are removed with a note.
 */
function upgradeDeleteGroups(up: Upgrader, onDelete: YAMLMap, path: Path): void {
  const ordered = pairOf(onDelete, 'ordered')?.value;
  const isOrdered = isScalar(ordered) && (ordered.value === true || ordered.value === 'true');
  const flat = onDelete.items.filter((pair) => !DELETE_BLOCK_KEYS.has(keyOf(pair as Pair) ?? ''));
  if (flat.length > 0 && isOrdered && pairOf(onDelete, 'groups') == null) {
    const stage = born(new YAMLMap(), (flat[0] as Pair).key);
    for (const pair of flat) {
      takeOut(onDelete, pair as Pair);
      stage.items.push(pair);
    }
    const groups = born(new YAMLSeq(), (flat[0] as Pair).key);
    groups.items.push(stage);
    onDelete.items.push(new Pair(scalar('groups', (flat[0] as Pair).key), groups));
    up.change(
      path,
      (flat[0] as Pair).key,
      'the kind lists of an ordered onDelete became its one stage (groups[0])',
    );
  } else if (!isOrdered) {
    // (Beside `groups` they are left to the schema, which reports them.)
    for (const pair of flat) {
      const key = keyOf(pair as Pair) ?? '';
      up.drop(
        onDelete,
        key,
        [...path, key],
        'without `ordered: true` upstream deletes nothing by name (it runs `jobs`; children go by garbage collection)',
      );
    }
  }
  const groups = pairOf(onDelete, 'groups')?.value;
  if (!isSeq(groups)) return;
  const taken = new Set(
    (groups as YAMLSeq).items.map((g) =>
      isMap(g) ? scalarText(pairOf(g as YAMLMap, 'name')?.value) : undefined,
    ),
  );
  (groups as YAMLSeq).items.forEach((group, i) => {
    if (!isMap(group)) return;
    const map = group as YAMLMap;
    const at = [...path, 'groups', i];
    if (pairOf(map, 'name') == null) {
      let name = `stage-${i + 1}`;
      for (let n = 2; taken.has(name); n++) name = `stage-${i + 1}-${n}`;
      taken.add(name);
      map.items.unshift(new Pair(scalar('name', group), scalar(name, group)));
      up.change(at, group, `named ${name} (upstream's stages have no name)`);
    }
    for (const key of ['timeout', 'ordered']) {
      if (pairOf(map, key) != null)
        up.drop(map, key, [...at, key], `upstream reads \`${key}\` of onDelete only, not of a stage`);
    }
    for (const pair of [...map.items]) {
      const key = keyOf(pair as Pair);
      if (key == null || ['name', 'propagation', 'when', 'anyOf', 'or'].includes(key)) continue;
      const value = (pair as Pair).value;
      if (value == null || (isScalar(value) && value.value == null)) {
        up.drop(map, key, [...at, key], 'a kind with no items deletes nothing (as upstream)');
        continue;
      }
      if (!isSeq(value)) continue;
      const cluster = Object.hasOwn(CLUSTER_LISTS, key) ? CLUSTER_LISTS[key] : undefined;
      (value as YAMLSeq).items.forEach((item, j) => {
        if (!isMap(item)) return;
        for (const inner of [...(item as YAMLMap).items]) {
          const innerKey = keyOf(inner as Pair);
          if (innerKey === 'name' || (innerKey === 'namespace' && cluster == null)) continue;
          takeOut(item as YAMLMap, inner as Pair);
          up.change(
            [...at, key, j, innerKey ?? '?'],
            (inner as Pair).key,
            'removed: a deletion stage selects by `name` and `namespace` only (as upstream)',
          );
        }
      });
      if (cluster == null) continue;
      takeOut(map, pair as Pair);
      let custom = pairOf(map, 'custom')?.value;
      if (!isSeq(custom)) {
        custom = born(new YAMLSeq(), (pair as Pair).key);
        map.items.push(new Pair(scalar('custom', (pair as Pair).key), custom));
      }
      for (const item of (value as YAMLSeq).items) {
        const name = isMap(item) ? pairOf(item as YAMLMap, 'name') : undefined;
        if (name == null) {
          up.problem([...at, key], item, `a ${cluster.kind} to delete needs \`name\``);
          continue;
        }
        const ref = born(new YAMLMap(), item);
        ref.items.push(new Pair(scalar('apiVersion', item), scalar(cluster.apiVersion, item)));
        ref.items.push(new Pair(scalar('kind', item), scalar(cluster.kind, item)));
        const metadata = born(new YAMLMap(), item);
        metadata.items.push(name);
        ref.items.push(new Pair(scalar('metadata', item), metadata));
        (custom as YAMLSeq).items.push(ref);
      }
      up.change([...at, key], (pair as Pair).key, `moved to custom (${cluster.kind} references)`);
    }
  });
}

/**
 * groupLists refuses a lifecycle group written as a bare list of children. Upstream's groups are
 * maps of kind lists (HookTemplates) and its own loader rejects a list there too; the reason names
 * the kind list to write, so the user does not meet a bare "expected a map".
 */
function groupLists(up: Upgrader, box: YAMLMap, boxPath: Path): void {
  for (const group of [...RESOURCE_GROUPS, 'onDelete']) {
    const pair = pairOf(box, group);
    if (pair == null || !isSeq(pair.value)) continue;
    up.problem(
      [...boxPath, group],
      pair.value,
      `upstream \`${group}\` is a map of kind lists, not a list of children (upstream's loader refuses a list here as well); put the items under their kind, e.g. \`${group}: {deployments: [...]}\``,
    );
    takeOut(box, pair);
  }
}

/**
 * externalProtocols handles upstream's `external[].protocol`: `http`/`https` is what every
 * external call is and is removed; any other protocol (upstream has `redis`, with a `query`
 * command) is refused with the reason, its `query` removed so it is reported once.
 */
function externalProtocols(up: Upgrader, holder: YAMLMap, path: Path): void {
  const list = pairOf(holder, 'external')?.value;
  if (!isSeq(list)) return;
  (list as YAMLSeq).items.forEach((item, i) => {
    if (!isMap(item)) return;
    const call = item as YAMLMap;
    const pair = pairOf(call, 'protocol');
    if (pair == null) return;
    const protocol = isScalar(pair.value) ? String(pair.value.value ?? '') : '';
    const at = [...path, 'external', i, 'protocol'];
    if (protocol === 'http' || protocol === 'https') {
      up.drop(call, 'protocol', at, 'every external call is HTTP; the scheme is in `url`');
      return;
    }
    up.problem(
      at,
      pair.value,
      `upstream \`protocol: ${protocol}\` has no counterpart in Orkestra: external calls are HTTP requests only (no ${protocol === 'redis' ? 'Redis' : protocol} client is built in); put an HTTP endpoint in front of it, or manage it through a provider (docs/reference/katalog.md §15.1)`,
    );
    takeOut(call, pair);
    const query = pairOf(call, 'query');
    if (query != null) takeOut(call, query);
  });
}

/**
 * LIST_KEY_ALIASES are list keys as upstream's documentation spells them (e.g. `replicasets:` in the
 * ReplicaSet reference) mapped to the canonical list key.
 */
const LIST_KEY_ALIASES: Readonly<Record<string, string>> = {
  replicasets: 'replicaSets',
};

/** renameListKeys renames upstream's spellings of list keys in one group (`replicasets` → `replicaSets`). */
function renameListKeys(up: Upgrader, group: YAMLMap, path: Path): void {
  for (const pair of group.items) {
    const key = keyOf(pair as Pair);
    const canonical = key == null ? undefined : LIST_KEY_ALIASES[key];
    if (key == null || canonical == null || pairOf(group, canonical) != null) continue;
    (pair as Pair).key = scalar(canonical, (pair as Pair).key);
    up.change([...path, key], (pair as Pair).key, `renamed to ${canonical}`);
  }
}

/**
 * refuseListKeys reports (and takes out), in a canonical Katalog, upstream's cluster-scoped lists,
 * which only an upstream Katalog maps (see CLUSTER_LISTS), naming the `custom` spelling.
 */
function refuseListKeys(up: Upgrader, group: YAMLMap, path: Path): void {
  for (const pair of [...group.items]) {
    const key = keyOf(pair as Pair);
    if (key == null) continue;
    const cluster = Object.hasOwn(CLUSTER_LISTS, key) ? CLUSTER_LISTS[key] : undefined;
    if (cluster != null)
      up.problem(
        [...path, key],
        (pair as Pair).key,
        `upstream list \`${key}\` is mapped only in an upstream Katalog (apiVersion ${UPSTREAM_API_VERSIONS.join(' or ')}); in this Katalog declare each item under \`custom\` with \`apiVersion: ${cluster.apiVersion}\`, \`kind: ${cluster.kind}\`, \`namespaced: false\` and \`metadata.name\` (\`ork migrate\` writes that form from an upstream Katalog)`,
      );
    else continue;
    takeOut(group, pair as Pair);
  }
}

// ---- upstream's cluster-scoped lists → custom entries ---------------------------------------------------

const RBAC_GROUP = 'rbac.authorization.k8s.io';

/**
 * CUSTOM_COMMON_KEYS are the keys a `custom` entry shares with every entry (forEach, reconcile, the
 * gate, …; the schema's commonShape without name/namespace/labels/annotations, which a custom
 * entry takes under `metadata`). A mapped item keeps them as written.
 */
const CUSTOM_COMMON_KEYS: ReadonlySet<string> = new Set(
  [...Object.keys(commonShape), ...Object.keys(gateShape)].filter(
    (key) => !['name', 'namespace', 'labels', 'annotations'].includes(key),
  ),
);

/** ClusterList is how one upstream cluster-scoped list maps onto `custom` entries. */
interface ClusterList {
  readonly apiVersion: string;
  readonly kind: string;
  /** The item's own keys, besides `name`, `labels`, `annotations` and the common keys. */
  readonly keys: readonly string[];
  /** Upstream's name for an item without `name`; undefined when `name` is required. */
  readonly defaultName?: string;
  /** body returns the manifest keys of the custom entry, reporting what cannot be mapped. */
  readonly body: (up: Upgrader, item: YAMLMap, path: Path) => Pair[];
}

/**
 * CLUSTER_LISTS are upstream's lists of cluster-scoped kinds, which an upstream Katalog's groups
 * (and a motif's `resources`) may hold: each item becomes a `custom` entry of the same group with
 * `namespaced: false` (docs/reference/katalog.md §24). Default names are upstream's.
 */
const CLUSTER_LISTS: Readonly<Record<string, ClusterList>> = {
  clusterRoles: {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'ClusterRole',
    keys: ['rules', 'aggregationRule'],
    defaultName: '{{ .metadata.name }}-cluster-role',
    body: clusterRoleBody,
  },
  clusterRoleBindings: {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'ClusterRoleBinding',
    keys: ['roleRef', 'subjects'],
    defaultName: '{{ .metadata.name }}-crb',
    body: clusterRoleBindingBody,
  },
  persistentVolumes: {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    keys: ['capacity', 'accessModes', 'hostPath', 'storageClassName', 'reclaimPolicy', 'volumeMode'],
    body: persistentVolumeBody,
  },
};

/** scalarText is a scalar node's value as a string, or undefined for anything else. */
function scalarText(node: unknown): string | undefined {
  return isScalar(node) && node.value != null ? String(node.value) : undefined;
}

/** flowList builds a one-line list of strings (`[ReadWriteOnce]`), positioned at `from`. */
function flowList(values: readonly string[], from: unknown): YAMLSeq {
  const seq = born(new YAMLSeq(), from);
  for (const value of values) seq.items.push(scalar(value, from));
  seq.flow = true;
  return seq;
}

/** unknownKeys reports every key of `map` outside `known`, at the key. */
function unknownKeys(up: Upgrader, map: YAMLMap, path: Path, known: readonly string[], what: string): void {
  for (const pair of map.items) {
    const key = keyOf(pair as Pair);
    if (key != null && !known.includes(key))
      up.problem(
        [...path, key],
        (pair as Pair).key,
        `${what} has no key \`${key}\` (it takes ${known.map((k) => `\`${k}\``).join(', ')})`,
      );
  }
}

/** clusterRoleBody keeps `rules` (each rule's `apiGroups` defaulting to `[""]`, as in `roles`) and `aggregationRule`. */
function clusterRoleBody(up: Upgrader, item: YAMLMap, path: Path): Pair[] {
  const out: Pair[] = [];
  const rules = pairOf(item, 'rules');
  if (rules != null) {
    if (!isSeq(rules.value))
      up.problem([...path, 'rules'], rules.value, '`rules` is a list of {apiGroups, resources, verbs}');
    else
      (rules.value as YAMLSeq).items.forEach((rule, j) => {
        if (!isMap(rule)) {
          up.problem([...path, 'rules', j], rule, 'a rule is a map of apiGroups, resources and verbs');
          return;
        }
        if (pairOf(rule as YAMLMap, 'apiGroups') == null)
          (rule as YAMLMap).items.unshift(new Pair(scalar('apiGroups', rule), flowList([''], rule)));
      });
    out.push(rules);
  }
  const aggregation = pairOf(item, 'aggregationRule');
  if (aggregation != null) out.push(aggregation);
  return out;
}

/**
 * clusterRoleBindingBody completes `roleRef` (apiGroup, kind ClusterRole) and each subject (kind
 * ServiceAccount by default, the RBAC apiGroup for User and Group). A ServiceAccount subject needs
 * a namespace: a ClusterRoleBinding has none to default it to.
 */
function clusterRoleBindingBody(up: Upgrader, item: YAMLMap, path: Path): Pair[] {
  const out: Pair[] = [];
  const roleRef = pairOf(item, 'roleRef');
  if (roleRef == null)
    up.problem(path, item, 'a ClusterRoleBinding needs `roleRef` (the ClusterRole it binds)');
  else if (!isMap(roleRef.value))
    up.problem([...path, 'roleRef'], roleRef.value, '`roleRef` is a map {name, kind}');
  else {
    const ref = roleRef.value as YAMLMap;
    const at = [...path, 'roleRef'];
    unknownKeys(up, ref, at, ['name', 'kind', 'apiGroup'], '`roleRef`');
    const kind = pairOf(ref, 'kind');
    if (kind != null && scalarText(kind.value) !== 'ClusterRole')
      up.problem(
        [...at, 'kind'],
        kind.value,
        `a ClusterRoleBinding can only refer to a ClusterRole, not ${scalarText(kind.value) ?? 'this'}; bind a Role with a namespaced \`roleBindings\` entry`,
      );
    const apiGroup = pairOf(ref, 'apiGroup');
    if (apiGroup != null && scalarText(apiGroup.value) !== RBAC_GROUP)
      up.problem([...at, 'apiGroup'], apiGroup.value, `\`roleRef.apiGroup\` is ${RBAC_GROUP}`);
    const name = pairOf(ref, 'name');
    if (name == null) up.problem(at, ref, '`roleRef` needs `name` (the ClusterRole to bind)');
    else {
      const completed = born(new YAMLMap(), ref);
      if (ref.flow === true) completed.flow = true;
      completed.items.push(
        apiGroup ?? new Pair(scalar('apiGroup', ref), scalar(RBAC_GROUP, ref)),
        kind ?? new Pair(scalar('kind', ref), scalar('ClusterRole', ref)),
        name,
      );
      roleRef.value = completed;
    }
    out.push(roleRef);
  }
  const subjects = pairOf(item, 'subjects');
  if (subjects != null) {
    if (!isSeq(subjects.value))
      up.problem([...path, 'subjects'], subjects.value, '`subjects` is a list of {kind, name, namespace}');
    else
      (subjects.value as YAMLSeq).items.forEach((subject, j) => {
        const at = [...path, 'subjects', j];
        if (!isMap(subject)) {
          up.problem(at, subject, 'a subject is a map {kind, name, namespace}');
          return;
        }
        const map = subject as YAMLMap;
        unknownKeys(up, map, at, ['kind', 'name', 'namespace', 'apiGroup'], 'a subject');
        const kindPair = pairOf(map, 'kind');
        const kind = kindPair == null ? 'ServiceAccount' : scalarText(kindPair.value);
        if (kind !== 'ServiceAccount' && kind !== 'User' && kind !== 'Group') {
          up.problem([...at, 'kind'], kindPair?.value, 'a subject kind is ServiceAccount, User or Group');
          return;
        }
        if (pairOf(map, 'name') == null) up.problem(at, map, 'a subject needs `name`');
        if (kind === 'ServiceAccount' && pairOf(map, 'namespace') == null)
          up.problem(at, map, 'a ServiceAccount subject of a ClusterRoleBinding needs `namespace`');
        if (kindPair == null) map.items.unshift(new Pair(scalar('kind', map), scalar(kind, map)));
        if (kind !== 'ServiceAccount' && pairOf(map, 'apiGroup') == null)
          map.items.push(new Pair(scalar('apiGroup', map), scalar(RBAC_GROUP, map)));
      });
    out.push(subjects);
  }
  return out;
}

/**
 * persistentVolumeBody builds `spec`: `capacity` (required) becomes `capacity.storage`, `hostPath`
 * (a path, or `{path, type}`; the only volume source upstream's list and this mapping know) is
 * required, `accessModes` defaults to `[ReadWriteOnce]` as upstream's does, and `reclaimPolicy` is
 * `persistentVolumeReclaimPolicy`.
 */
function persistentVolumeBody(up: Upgrader, item: YAMLMap, path: Path): Pair[] {
  const spec = born(new YAMLMap(), item);
  const capacity = pairOf(item, 'capacity');
  if (capacity == null) up.problem(path, item, 'a PersistentVolume needs `capacity` (its size, e.g. 1Gi)');
  else if (!isScalar(capacity.value))
    up.problem([...path, 'capacity'], capacity.value, '`capacity` is a size such as 1Gi');
  else {
    const storage = born(new YAMLMap(), capacity.value);
    storage.items.push(new Pair(scalar('storage', capacity.key), capacity.value));
    spec.items.push(new Pair(capacity.key, storage));
  }
  spec.items.push(
    pairOf(item, 'accessModes') ?? new Pair(scalar('accessModes', item), flowList(['ReadWriteOnce'], item)),
  );
  const hostPath = pairOf(item, 'hostPath');
  if (hostPath == null)
    up.problem(
      path,
      item,
      'a PersistentVolume needs `hostPath` (the only volume source this mapping knows); for another source declare the PersistentVolume under `custom` with its `spec`',
    );
  else if (isScalar(hostPath.value)) {
    const source = born(new YAMLMap(), hostPath.value);
    source.items.push(new Pair(scalar('path', hostPath.value), hostPath.value));
    spec.items.push(new Pair(hostPath.key, source));
  } else if (isMap(hostPath.value)) {
    const source = hostPath.value as YAMLMap;
    unknownKeys(up, source, [...path, 'hostPath'], ['path', 'type'], '`hostPath`');
    if (pairOf(source, 'path') == null) up.problem([...path, 'hostPath'], source, '`hostPath` needs `path`');
    spec.items.push(hostPath);
  } else up.problem([...path, 'hostPath'], hostPath.value, '`hostPath` is a path, or a map {path, type}');
  const storageClass = pairOf(item, 'storageClassName');
  if (storageClass != null) spec.items.push(storageClass);
  const reclaim = pairOf(item, 'reclaimPolicy');
  if (reclaim != null)
    spec.items.push(new Pair(scalar('persistentVolumeReclaimPolicy', reclaim.key), reclaim.value));
  const volumeMode = pairOf(item, 'volumeMode');
  if (volumeMode != null) spec.items.push(volumeMode);
  return [new Pair(scalar('spec', item), spec)];
}

/**
 * clusterEntry maps one item of an upstream cluster-scoped list onto a `custom` entry, or reports
 * why it cannot and returns undefined. The item's nodes are moved, not copied, so they keep their
 * source positions.
 */
function clusterEntry(
  up: Upgrader,
  list: ClusterList,
  listKey: string,
  item: YAMLMap,
  path: Path,
): YAMLMap | undefined {
  upgradeChild(up, item, path, false);
  const before = up.problems.length;
  const own = ['name', 'labels', 'annotations', ...list.keys];
  for (const pair of item.items) {
    const key = keyOf(pair as Pair);
    if (key == null || own.includes(key) || CUSTOM_COMMON_KEYS.has(key)) continue;
    up.problem(
      [...path, key],
      (pair as Pair).key,
      key === 'namespace'
        ? `a ${list.kind} is cluster-scoped: it has no \`namespace\``
        : `upstream \`${listKey}\` items have no key \`${key}\` (they take ${own.map((k) => `\`${k}\``).join(', ')} and the keys every entry takes); for anything else declare the ${list.kind} under \`custom\``,
    );
  }
  const name =
    pairOf(item, 'name') ??
    (list.defaultName == null ? undefined : new Pair(scalar('name', item), scalar(list.defaultName, item)));
  if (name == null) up.problem(path, item, `an upstream \`${listKey}\` item needs \`name\``);
  const body = list.body(up, item, path);
  if (name == null || up.problems.length > before) return undefined;
  const metadata = born(new YAMLMap(), item);
  metadata.items.push(name);
  for (const key of ['labels', 'annotations']) {
    const pair = pairOf(item, key);
    if (pair != null) metadata.items.push(pair);
  }
  const entry = born(new YAMLMap(), item);
  entry.commentBefore = item.commentBefore ?? null;
  entry.comment = item.comment ?? null;
  entry.items.push(
    new Pair(scalar('apiVersion', item), scalar(list.apiVersion, item)),
    new Pair(scalar('kind', item), scalar(list.kind, item)),
    new Pair(scalar('metadata', name.key), metadata),
    new Pair(scalar('namespaced', item), scalar(false, item)),
    ...body,
    ...item.items.filter((pair) => CUSTOM_COMMON_KEYS.has(keyOf(pair as Pair) ?? '')),
  );
  return entry;
}

/**
 * clusterLists rewrites an upstream group's `clusterRoles`, `clusterRoleBindings` and
 * `persistentVolumes` onto the group's `custom` list (appended to it when the group has one, else
 * created where the first of them was), one change per item (CLUSTER_LISTS).
 */
function clusterLists(up: Upgrader, group: YAMLMap, groupPath: Path): void {
  const existing = pairOf(group, 'custom');
  let target = existing != null && isSeq(existing.value) ? (existing.value as YAMLSeq) : undefined;
  for (const pair of [...group.items]) {
    const listKey = keyOf(pair as Pair);
    const list =
      listKey != null && Object.hasOwn(CLUSTER_LISTS, listKey) ? CLUSTER_LISTS[listKey] : undefined;
    if (listKey == null || list == null) continue;
    const at = [...groupPath, listKey];
    const value = (pair as Pair).value;
    if (
      value == null ||
      (isScalar(value) && value.value == null) ||
      (isSeq(value) && value.items.length === 0)
    ) {
      up.drop(group, listKey, at, 'an empty list');
      continue;
    }
    if (!isSeq(value) || (existing != null && target == null)) {
      up.problem(
        at,
        (pair as Pair).key,
        !isSeq(value)
          ? `\`${listKey}\` is a list of ${list.kind} items`
          : `\`${listKey}\` cannot be mapped: its items become \`custom\` entries, and \`custom\` in this group is not a list`,
      );
      takeOut(group, pair as Pair);
      continue;
    }
    const mapped: [YAMLMap, number, unknown][] = [];
    (value as YAMLSeq).items.forEach((item, i) => {
      if (!isMap(item)) {
        up.problem([...at, i], item, `an item of \`${listKey}\` is a map (a ${list.kind})`);
        return;
      }
      const entry = clusterEntry(up, list, listKey, item as YAMLMap, [...at, i]);
      if (entry != null) mapped.push([entry, i, item]);
    });
    if (target == null) {
      target = born(new YAMLSeq(), value);
      const key = scalar('custom', (pair as Pair).key);
      key.commentBefore = ((pair as Pair).key as YamlNode | null)?.commentBefore ?? null;
      group.items.splice(group.items.indexOf(pair), 1, new Pair(key, target));
    } else {
      const index = takeOut(group, pair as Pair);
      keepComment(group, index, pair as Pair);
    }
    for (const [entry, i, item] of mapped) {
      target.items.push(entry);
      up.change(
        [...at, i],
        item,
        `moved to custom[${target.items.length - 1}] (${list.apiVersion} ${list.kind}, namespaced: false)`,
      );
    }
  }
}

/** upgradeGroup rewrites the lists of one onCreate/onReconcile group (or an item of its `groups`). */
function upgradeGroup(up: Upgrader, groupMap: YAMLMap, groupPath: Path): void {
  renameListKeys(up, groupMap, groupPath);
  if (up.upstream) clusterLists(up, groupMap, groupPath);
  refuseListKeys(up, groupMap, groupPath);
  for (const pair of groupMap.items) {
    const listKey = keyOf(pair as Pair);
    const list = (pair as Pair).value;
    if (listKey == null || !isSeq(list)) continue;
    (list as YAMLSeq).items.forEach((item, i) => {
      if (!isMap(item)) return;
      const path = [...groupPath, listKey, i];
      upgradeChild(up, item as YAMLMap, path, listKey === 'custom');
      if (listKey === 'secrets') secretCopy(up, item as YAMLMap, path);
      if (up.upstream && (listKey === 'resourceQuotas' || listKey === 'limitRanges'))
        presetProfile(up, item as YAMLMap, path, listKey);
    });
    if (listKey === 'secrets') expandToNamespaces(up, list as YAMLSeq, [...groupPath, listKey]);
  }
}

/**
 * RESOURCE_QUOTA_PROFILES are upstream's built-in `resourceQuotas[].profile` presets, each the
 * `hard` map it stands for (upstream matches the name case-insensitively). Upstream has no
 * built-in LimitRange presets: a `limitRanges[].profile` names a user-defined one.
 */
const RESOURCE_QUOTA_PROFILES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  small: quota('10', '2', '4Gi', '1', '2Gi'),
  medium: quota('20', '4', '8Gi', '2', '4Gi'),
  large: quota('50', '8', '16Gi', '4', '8Gi'),
  xlarge: quota('100', '16', '32Gi', '8', '16Gi'),
};

/** quota spells one preset: limits equal the plain cpu/memory totals, requests are given. */
function quota(
  pods: string,
  cpu: string,
  memory: string,
  requestsCpu: string,
  requestsMemory: string,
): Readonly<Record<string, string>> {
  return {
    pods,
    cpu,
    memory,
    'requests.cpu': requestsCpu,
    'requests.memory': requestsMemory,
    'limits.cpu': cpu,
    'limits.memory': memory,
  };
}

/** PROFILE_FIELDS is the field each preset class holds: a quota's `hard` map, a LimitRange's `limits`. */
const PROFILE_FIELDS = { resourceQuotas: 'hard', limitRanges: 'limits' } as const;

/**
 * readProfiles takes upstream's top-level `profiles` registry out of the document: its
 * `resourceQuotas` and `limitRanges` presets (`{name, description?, hard | limits}`) are kept on the
 * Upgrader for presetProfile, which expands them where a `profile:` names them. Presets of other
 * classes are dropped with a note (a `profile:` naming one is refused where it is used); `include`
 * is refused (write the presets inline).
 */
function readProfiles(up: Upgrader, root: YAMLMap): void {
  const profiles = mapAt(root, 'profiles');
  if (profiles == null) return;
  for (const pair of [...profiles.items]) {
    const cls = keyOf(pair as Pair);
    if (cls == null) continue;
    const path = ['profiles', cls];
    if (cls !== 'resourceQuotas' && cls !== 'limitRanges') {
      if (cls === 'include')
        up.problem(
          path,
          (pair as Pair).key,
          'upstream `profiles.include` is not read: write the presets inline',
        );
      else
        up.change(
          path,
          (pair as Pair).key,
          `removed: ${cls} presets are not read (only resourceQuotas and limitRanges presets are expanded); a \`profile:\` that names one is refused where it is used`,
        );
      continue;
    }
    const byName = new Map<string, YAMLMap>();
    const list = (pair as Pair).value;
    if (!isSeq(list)) {
      up.problem(
        path,
        (pair as Pair).key,
        `profiles.${cls} must be a list of {name, ${PROFILE_FIELDS[cls]}}`,
      );
      continue;
    }
    (list as YAMLSeq).items.forEach((item, i) => {
      const name = isMap(item) ? scalarText(pairOf(item as YAMLMap, 'name')?.value) : undefined;
      const body = isMap(item) ? pairOf(item as YAMLMap, PROFILE_FIELDS[cls])?.value : undefined;
      if (name == null || name === '' || body == null) {
        up.problem([...path, i], item, `a ${cls} preset needs \`name\` and \`${PROFILE_FIELDS[cls]}\``);
        return;
      }
      if (byName.has(name)) up.problem([...path, i, 'name'], item, `preset ${name} is defined twice`);
      byName.set(name, item as YAMLMap);
    });
    up.profiles.set(cls, byName);
  }
  takeOut(root, pairOf(root, 'profiles') as Pair);
  up.change(['profiles'], profiles, 'removed: its presets are expanded where a `profile:` names them');
}

/**
 * presetProfile maps upstream's `profile:` on a `resourceQuotas` item onto the `hard` map of its
 * built-in preset (the `profile` key becomes `hard`, so errors keep its position). A profile
 * Orkestra cannot expand at load time is refused at the key with the reason: a templated one
 * (upstream picks it per CR), a name neither the Katalog's `profiles` registry (readProfiles, looked
 * up first) nor the built-ins define, and one written beside `hard` or `limits` (upstream rejects
 * the mix). `limitRanges` profiles come from the registry only (upstream has no built-in ones).
 */
function presetProfile(
  up: Upgrader,
  item: YAMLMap,
  path: Path,
  listKey: 'resourceQuotas' | 'limitRanges',
): void {
  const profile = pairOf(item, 'profile');
  if (profile == null) return;
  const at = [...path, 'profile'];
  const field = listKey === 'resourceQuotas' ? 'hard' : 'limits';
  const name = scalarText(profile.value) ?? '';
  const refuse = (reason: string): void => {
    up.problem(at, profile.key, `upstream \`profile: ${name}\` ${reason}`);
    takeOut(item, profile);
  };
  if (pairOf(item, field) != null) {
    refuse(`is given beside \`${field}\`; a profile is a whole preset (upstream refuses both): keep one`);
    return;
  }
  const user = up.profiles.get(listKey)?.get(name);
  if (user != null) {
    // A user-defined preset wins over a built-in one of the same name, as upstream resolves them.
    const body = pairOf(user, field)?.value as YamlNode;
    const key = scalar(field, profile.key);
    key.commentBefore = (profile.key as YamlNode | null)?.commentBefore ?? null;
    item.items.splice(item.items.indexOf(profile), 1, new Pair(key, body.clone()));
    up.change(at, profile.key, `the ${name} preset of profiles.${listKey} became its ${field}`);
    return;
  }
  if (listKey === 'limitRanges') {
    refuse(
      `names no preset of \`profiles.limitRanges\` (upstream has no built-in LimitRange presets): define it there or write \`limits\``,
    );
    return;
  }
  const allowed = Object.keys(RESOURCE_QUOTA_PROFILES).join(', ');
  if (name.includes('{{')) {
    refuse(
      `is chosen per CR; Orkestra expands presets at load time only: write \`hard\` (the presets are ${allowed}; docs/reference/katalog.md §24)`,
    );
    return;
  }
  const hard = RESOURCE_QUOTA_PROFILES[name.toLowerCase()];
  if (hard == null) {
    refuse(
      `is neither a preset of \`profiles.resourceQuotas\` nor one of upstream's built-in ResourceQuota presets (${allowed}): define it or write \`hard\``,
    );
    return;
  }
  const map = born(new YAMLMap(), profile.value);
  for (const [key, value] of Object.entries(hard))
    map.items.push(new Pair(scalar(key, profile.value), scalar(value, profile.value)));
  const key = scalar('hard', profile.key);
  key.commentBefore = (profile.key as YamlNode | null)?.commentBefore ?? null;
  item.items.splice(item.items.indexOf(profile), 1, new Pair(key, map));
  up.change(at, profile.key, `the ${name} preset became its hard limits`);
}

/**
 * secretCopy maps upstream's `fromSecret` / `fromNamespace` onto the canonical `copyFrom: {name,
 * namespace}` of a secrets entry (docs/reference/katalog.md §7.2).
 */
function secretCopy(up: Upgrader, entry: YAMLMap, path: Path): void {
  const from = pairOf(entry, 'fromSecret');
  const fromNamespace = pairOf(entry, 'fromNamespace');
  if (from == null) {
    if (fromNamespace != null)
      up.problem(
        [...path, 'fromNamespace'],
        fromNamespace.key,
        '`fromNamespace` needs `fromSecret` (the Secret to copy)',
      );
    return;
  }
  if (pairOf(entry, 'copyFrom') != null) {
    up.problem([...path, 'fromSecret'], from.key, '`fromSecret` and `copyFrom` are the same thing; keep one');
    return;
  }
  const at = entry.items.indexOf(from);
  const copyFrom = born(new YAMLMap(), from.key);
  entry.items.splice(at, 1);
  copyFrom.items.push(new Pair(scalar('name', from.key), from.value));
  if (fromNamespace != null) {
    entry.items.splice(entry.items.indexOf(fromNamespace), 1);
    copyFrom.items.push(new Pair(scalar('namespace', fromNamespace.key), fromNamespace.value));
  }
  entry.items.splice(at, 0, new Pair(scalar('copyFrom', from.key), copyFrom));
  up.change(
    [...path, 'fromSecret'],
    from.key,
    `moved to copyFrom.name${fromNamespace == null ? '' : ' (fromNamespace to copyFrom.namespace)'}`,
  );
}

/**
 * expandToNamespaces turns a secrets entry with upstream's `toNamespaces: [a, b]` into one entry
 * per namespace (`namespace: a`, `namespace: b`), the clones keeping the original's source ranges.
 * A templated namespace gets the gate `{field: <template>, exists: true}`, so an item that renders
 * empty is skipped, as upstream skips it. A single item that is a whole field of the CR
 * (`{{ .spec.targetNamespaces }}`) is read as the list of namespaces: `forEach` over that field.
 */
function expandToNamespaces(up: Upgrader, list: YAMLSeq, listPath: Path): void {
  for (let i = list.items.length - 1; i >= 0; i--) {
    const entry = list.items[i];
    if (!isMap(entry)) continue;
    const pair = pairOf(entry as YAMLMap, 'toNamespaces');
    if (pair == null) continue;
    const path = [...listPath, i, 'toNamespaces'];
    if (!isSeq(pair.value) || (pair.value as YAMLSeq).items.length === 0) {
      up.problem(path, pair.value, '`toNamespaces` is a non-empty list of namespaces');
      takeOut(entry as YAMLMap, pair);
      continue;
    }
    if (pairOf(entry as YAMLMap, 'namespace') != null) {
      up.problem(path, pair.key, '`toNamespaces` and `namespace` are exclusive; keep one');
      takeOut(entry as YAMLMap, pair);
      continue;
    }
    if (pairOf(entry as YAMLMap, 'forEach') != null) {
      up.problem(
        path,
        pair.key,
        '`toNamespaces` on an entry with `forEach` cannot be mapped; declare one entry per namespace',
      );
      takeOut(entry as YAMLMap, pair);
      continue;
    }
    const targets = (pair.value as YAMLSeq).items;
    const listField = targets.length === 1 ? wholePath(targets[0]) : undefined;
    if (listField != null) {
      // One item that is a whole field of the CR (`- "{{ .spec.targetNamespaces }}"`): upstream
      // copies into each namespace that field lists, so it becomes a forEach over the field.
      const target = targets[0];
      const at = takeOut(entry as YAMLMap, pair);
      const forEach = born(new YAMLMap(), target);
      forEach.flow = true;
      forEach.items.push(new Pair(scalar('field', target), scalar(listField, target)));
      (entry as YAMLMap).items.splice(
        at,
        0,
        new Pair(scalar('forEach', pair.key), forEach),
        new Pair(scalar('namespace', pair.key), scalar('{{ .item }}', target)),
      );
      up.change(path, pair.key, `became forEach over ${listField}, one copy per namespace it lists`);
      continue;
    }
    takeOut(entry as YAMLMap, pair);
    const clones = targets.map((target) => {
      const clone = (entry as YAMLMap).clone() as YAMLMap;
      clone.items.push(new Pair(scalar('namespace', pair.key), target));
      const value = isScalar(target) ? target.value : undefined;
      if (typeof value === 'string' && value.includes('{{')) {
        const gate = born(new YAMLMap(), target);
        gate.items.push(new Pair(scalar('field', target), scalar(value, target)));
        gate.items.push(new Pair(scalar('exists', target), scalar(true, target)));
        const when = pairOf(clone, 'when');
        if (when != null && isSeq(when.value)) (when.value as YAMLSeq).items.push(gate);
        else if (when == null) {
          const seq = born(new YAMLSeq(), target);
          seq.items.push(gate);
          clone.items.push(new Pair(scalar('when', pair.key), seq));
        }
      }
      return clone;
    });
    list.items.splice(i, 1, ...clones);
    up.change(
      path,
      pair.key,
      `became ${clones.length} ${clones.length === 1 ? 'entry' : 'entries'}, one per namespace`,
    );
  }
}

/** wholePath is `spec.x.y` for a scalar that is exactly `{{ .spec.x.y }}`, else undefined. */
function wholePath(node: unknown): string | undefined {
  const value = isScalar(node) ? node.value : undefined;
  if (typeof value !== 'string') return undefined;
  return /^\{\{-?\s*\.((?:spec|metadata|status)(?:\.[A-Za-z_][A-Za-z0-9_]*)+)\s*-?\}\}$/.exec(value)?.[1];
}

/** upgradeChild rewrites upstream shapes inside one child entry (and its nested containers). */
function upgradeChild(up: Upgrader, child: YAMLMap, path: Path, custom: boolean): void {
  if (custom) {
    const metadata = mapAt(child, 'metadata');
    if (metadata != null) {
      const namespaced = pairOf(metadata, 'namespaced');
      if (namespaced != null) {
        metadata.items.splice(metadata.items.indexOf(namespaced), 1);
        if (pairOf(child, 'namespaced') == null) child.items.push(namespaced);
        up.change([...path, 'metadata', 'namespaced'], namespaced.key, 'moved to namespaced');
      }
    }
    up.drop(child, 'hasStatus', [...path, 'hasStatus'], 'whether a kind has status is read from the cluster');
  }
  up.drop(
    child,
    'sleep',
    [...path, 'sleep'],
    'artificial reconcile delays (chaos testing) are not supported',
  );
  for (const block of ['resources', 'rollingUpdate', 'podSecurity']) {
    const holder = mapAt(child, block);
    const profile = holder == null ? undefined : pairOf(holder, 'profile');
    if (holder == null || profile == null) continue;
    up.problem(
      [...path, block, 'profile'],
      profile.key,
      `upstream key \`${block}.profile\` has no counterpart in Orkestra: named presets are not built in; write the values (${block === 'resources' ? '`requests`/`limits`' : block === 'rollingUpdate' ? '`maxSurge`/`maxUnavailable`' : 'the pod security fields'})`,
    );
    takeOut(holder, profile);
  }
  const forEach = mapAt(child, 'forEach');
  const as = forEach == null ? undefined : pairOf(forEach, 'as');
  if (forEach != null && as != null && isScalar(as.value) && as.value.value === 'item')
    up.drop(forEach, 'as', [...path, 'forEach', 'as'], '`item` is the default name of the element');
  walk(child, path, (map, at) => {
    labelsList(up, map, at, 'labels');
    labelsList(up, map, at, 'annotations');
    if (!custom) {
      envMap(up, map, at);
      envFromList(up, map, at);
    }
  });
}

function walk(node: unknown, path: Path, visit: (map: YAMLMap, path: Path) => void): void {
  if (isMap(node)) {
    visit(node as YAMLMap, path);
    for (const pair of (node as YAMLMap).items) {
      const key = keyOf(pair as Pair);
      if (key != null) walk((pair as Pair).value, [...path, key], visit);
    }
  } else if (isSeq(node)) {
    (node as YAMLSeq).items.forEach((item, i) => walk(item, [...path, i], visit));
  }
}

/** labelsList turns upstream's `[{key, value}]` label lists into maps. */
function labelsList(up: Upgrader, map: YAMLMap, path: Path, key: string): void {
  const pair = pairOf(map, key);
  if (pair == null || !isSeq(pair.value)) return;
  const items = (pair.value as YAMLSeq).items;
  if (!items.every((item) => isMap(item) && pairOf(item as YAMLMap, 'key') != null)) return;
  const out = born(new YAMLMap(), pair.value);
  for (const item of items) {
    const k = pairOf(item as YAMLMap, 'key')?.value;
    const v = pairOf(item as YAMLMap, 'value')?.value ?? scalar('', item);
    out.items.push(new Pair(k, v));
  }
  pair.value = out;
  up.change([...path, key], pair.key, 'a list of {key, value} became a map');
}

/** envMap turns `env: {NAME: value | secretKeyRef | configMapKeyRef}` into the list form. */
function envMap(up: Upgrader, map: YAMLMap, path: Path): void {
  const pair = pairOf(map, 'env');
  if (pair == null || !isMap(pair.value)) return;
  const out = born(new YAMLSeq(), pair.value);
  for (const item of (pair.value as YAMLMap).items) {
    const name = (item as Pair).key;
    const value = (item as Pair).value;
    const envVar = born(new YAMLMap(), name);
    envVar.items.push(new Pair(scalar('name', name), name));
    if (
      isMap(value) &&
      ['secretKeyRef', 'configMapKeyRef', 'fieldRef'].some((k) => pairOf(value as YAMLMap, k) != null)
    ) {
      envVar.items.push(new Pair(scalar('valueFrom', value), value));
    } else if (isMap(value) && pairOf(value as YAMLMap, 'valueFrom') != null) {
      envVar.items.push(pairOf(value as YAMLMap, 'valueFrom') as Pair);
    } else if (
      isMap(value) &&
      (value as YAMLMap).items.length === 1 &&
      pairOf(value as YAMLMap, 'value') != null
    ) {
      // `NAME: {value: x}` is upstream's long form of `NAME: x`.
      const inner = (pairOf(value as YAMLMap, 'value') as Pair).value;
      envVar.items.push(
        new Pair(scalar('value', inner), isScalar(inner) ? scalar(String(inner.value ?? ''), inner) : inner),
      );
    } else {
      envVar.items.push(
        new Pair(scalar('value', value), isScalar(value) ? scalar(String(value.value ?? ''), value) : value),
      );
    }
    out.items.push(envVar);
  }
  pair.value = out;
  up.change([...path, 'env'], pair.key, 'a map of NAME: value became a list of {name, value}');
}

/** envFromList turns upstream's `envFrom: [{configMapRef: name}, {secretRef: name}]` into reference lists. */
function envFromList(up: Upgrader, map: YAMLMap, path: Path): void {
  const pair = pairOf(map, 'envFrom');
  if (pair != null && isMap(pair.value)) {
    envFromNames(up, pair.value as YAMLMap, [...path, 'envFrom']);
    return;
  }
  if (pair == null || !isSeq(pair.value)) return;
  const items = (pair.value as YAMLSeq).items;
  const ok = items.every(
    (item) =>
      isMap(item) &&
      (item as YAMLMap).items.length >= 1 &&
      (item as YAMLMap).items.every((p) =>
        ['configMapRef', 'secretRef', 'prefix'].includes(keyOf(p as Pair) ?? ''),
      ),
  );
  if (!ok) return;
  const out = born(new YAMLMap(), pair.value);
  for (const item of items) {
    const prefix = pairOf(item as YAMLMap, 'prefix');
    for (const kind of ['configMapRef', 'secretRef']) {
      const ref = pairOf(item as YAMLMap, kind);
      if (ref == null) continue;
      let list = pairOf(out, kind)?.value as YAMLSeq | undefined;
      if (list == null) {
        list = born(new YAMLSeq(), ref.key);
        out.items.push(new Pair(scalar(kind, ref.key), list));
      }
      const refMap = isMap(ref.value) ? (ref.value as YAMLMap) : born(new YAMLMap(), ref.value);
      if (!isMap(ref.value)) refMap.items.push(new Pair(scalar('name', ref.value), ref.value));
      if (prefix != null && pairOf(refMap, 'prefix') == null) refMap.items.push(prefix);
      list.items.push(refMap);
    }
  }
  pair.value = out;
  up.change(
    [...path, 'envFrom'],
    pair.key,
    'a list of {configMapRef|secretRef: name} became reference lists',
  );
}

/** envFromNames turns an earlier upstream's `envFrom: {secretRef: [name, …]}` items (names, not maps) into `{name}` references. */
function envFromNames(up: Upgrader, envFrom: YAMLMap, path: Path): void {
  for (const kind of ['secretRef', 'configMapRef']) {
    const list = pairOf(envFrom, kind)?.value;
    if (!isSeq(list)) continue;
    (list as YAMLSeq).items.forEach((item, i) => {
      if (!isScalar(item)) return;
      const ref = born(new YAMLMap(), item);
      ref.items.push(new Pair(scalar('name', item), item));
      (list as YAMLSeq).items[i] = ref;
      up.change([...path, kind, i], item, 'a name became {name}');
    });
  }
}

// ---- upstream's notes (user-defined template functions) and Katalog-level imports ----------------------

/**
 * katalogImports reads upstream's Katalog-level `spec.imports` (docs/reference/katalog.md §24): each
 * motif lends its `notes` and `profiles` to the whole Katalog, in the order written (upstream reads
 * nothing else of a motif at this level, so its other keys are removed with a note). The list is
 * removed. Two motifs declaring the same note is an error, as upstream.
 */
function katalogImports(up: Upgrader, root: YAMLMap): void {
  const spec = mapAt(root, 'spec');
  const pair = spec == null ? undefined : pairOf(spec, 'imports');
  if (spec == null || pair == null) return;
  takeOut(spec, pair);
  const path = ['spec', 'imports'];
  if (!isSeq(pair.value)) {
    up.problem(path, pair.value, 'spec.imports is a list of {motif} items');
    return;
  }
  const before = up.notes.size;
  (pair.value as YAMLSeq).items.forEach((item, i) => {
    const ref = isMap(item) ? pairOf(item as YAMLMap, 'motif') : undefined;
    const file = isScalar(ref?.value) ? String((ref?.value as Scalar).value) : undefined;
    if (file == null) {
      up.problem([...path, i], item, 'an import needs `motif: <file>`');
      return;
    }
    if (/^(oci|https?):\/\/|^git@/.test(file)) {
      up.problem(
        [...path, i, 'motif'],
        ref?.value,
        `motif ${file} is remote; only motif files next to the Katalog are read`,
      );
      return;
    }
    const motif = up.readYaml(file, [...path, i, 'motif'], ref?.value, 'motif');
    if (motif == null) return;
    readNotes(up, motif, root, [...path, i]);
    readProfiles(up, motif);
    const ignored = motif.items
      .map((p) => keyOf(p as Pair))
      .filter(
        (key): key is string =>
          key != null && !['apiVersion', 'kind', 'metadata', 'inputs', 'notes', 'profiles'].includes(key),
      );
    if (ignored.length > 0)
      up.change(
        [...path, i],
        item,
        `motif ${file}: ${ignored.join(', ')} not imported (a Katalog-level import lends only notes and profiles, as upstream; import a motif's resources under an entry's \`imports\`)`,
      );
  });
  up.change(
    path,
    pair.key,
    `removed: ${up.notes.size - before} notes read from its motifs, written out where they are called`,
  );
}

/**
 * readNotes reads upstream's `notes` of the Katalog or of a motif it imports: a list of
 * `{name, description, expression, shadow}` (the first release), or `{include, functions}` whose
 * `include` names a file holding `functions: [...]`. The key is removed. A note declared in the
 * Katalog itself wins over one of the same name from a motif (upstream documents that); two in
 * the same place are an error. Each name must be a Go identifier and each expression non-empty.
 */
function readNotes(up: Upgrader, holder: YAMLMap, root: YAMLMap, at: Path): void {
  const pair = pairOf(holder, 'notes');
  if (pair == null) return;
  const local = holder === root;
  const path = [...at, 'notes'];
  takeOut(holder, pair);
  const lists: [YAMLSeq, Path][] = [];
  if (isSeq(pair.value)) lists.push([pair.value as YAMLSeq, path]);
  else if (isMap(pair.value)) {
    const block = pair.value as YAMLMap;
    const include = pairOf(block, 'include');
    if (include != null && isScalar(include.value)) {
      const file = up.readYaml(
        String(include.value.value),
        [...path, 'include'],
        include.value,
        'notes file',
      );
      const functions = file == null ? undefined : pairOf(file, 'functions')?.value;
      if (isSeq(functions)) lists.push([functions as YAMLSeq, [...path, 'include', 'functions']]);
      else if (file != null)
        up.problem([...path, 'include'], include.value, 'a notes file holds `functions: [...]`');
    }
    const functions = pairOf(block, 'functions')?.value;
    if (isSeq(functions)) lists.push([functions as YAMLSeq, [...path, 'functions']]);
    for (const key of block.items.map((p) => keyOf(p as Pair))) {
      if (key != null && key !== 'include' && key !== 'functions')
        up.problem(
          [...path, key],
          pairOf(block, key)?.key,
          `upstream \`notes.${key}\` is not known (notes take \`include\` and \`functions\`)`,
        );
    }
  } else {
    up.problem(path, pair.value, 'notes is a list of {name, expression} items (or {functions: [...]})');
    return;
  }
  const here = new Set<string>();
  let read = 0;
  for (const [list, listPath] of lists) {
    list.items.forEach((item, i) => {
      const itemPath = [...listPath, i];
      if (!isMap(item)) {
        up.problem(itemPath, item, 'a note is a map with `name` and `expression`');
        return;
      }
      const map = item as YAMLMap;
      for (const key of map.items.map((p) => keyOf(p as Pair)))
        if (key != null && !['name', 'description', 'expression', 'shadow'].includes(key))
          up.problem(
            [...itemPath, key],
            pairOf(map, key)?.key,
            `unknown key \`${key}\` in a note (known: name, description, expression, shadow)`,
          );
      const nameNode = pairOf(map, 'name')?.value;
      const name = scalarText(nameNode);
      const expressionNode = pairOf(map, 'expression')?.value;
      const expression = scalarText(expressionNode);
      if (name == null || name === '') {
        up.problem([...itemPath, 'name'], item, 'a note needs `name`');
        return;
      }
      if (!isNoteName(name)) {
        up.problem(
          [...itemPath, 'name'],
          nameNode,
          `note name ${JSON.stringify(name)} must be a Go identifier (letters, digits and _, not a keyword): it is called as \`{{ ${name} }}\``,
        );
        return;
      }
      if (expression == null || expression.trim() === '') {
        up.problem(
          [...itemPath, 'expression'],
          expressionNode ?? item,
          `note \`${name}\` needs an \`expression\` (a template)`,
        );
        return;
      }
      if (here.has(name)) {
        up.problem([...itemPath, 'name'], nameNode, `note \`${name}\` is declared twice here`);
        return;
      }
      here.add(name);
      const earlier = up.notes.get(name);
      if (earlier != null && !local) {
        up.problem(
          [...itemPath, 'name'],
          nameNode,
          `note \`${name}\` is declared by two imported motifs (first at ${formatPath(earlier.path)}); rename one, or declare it in the Katalog to override both`,
        );
        return;
      }
      up.notes.set(name, { expression, node: expressionNode, path: itemPath });
      read++;
    });
  }
  if (local)
    up.change(
      path,
      pair.key,
      `removed: ${read} ${read === 1 ? 'note' : 'notes'} written out where they are called`,
    );
}

/**
 * expandNotes writes out every note call in the templates under `spec` (docs/reference/katalog.md
 * §24, src/note-calls.ts). A note that cannot be prepared (it calls itself, an action is not
 * closed) is reported at its expression; a call that cannot be written out, at the template.
 */
function expandNotes(up: Upgrader, spec: YAMLMap): void {
  const expressions = new Map([...up.notes].map(([name, note]) => [name, note.expression]));
  const prepared = prepareNotes(expressions);
  if (!prepared.ok) {
    const note = up.notes.get(prepared.name);
    up.problem([...(note?.path ?? []), 'expression'], note?.node, prepared.message);
    return;
  }
  walk(spec, ['spec'], (map, path) => {
    for (const pair of map.items) {
      const value = (pair as Pair).value;
      const key = keyOf(pair as Pair);
      const visit = (node: unknown, at: Path) => {
        if (!isScalar(node) || typeof node.value !== 'string') return;
        const expanded = expandNoteCalls(node.value, prepared.notes);
        if (!expanded.ok) up.problem(at, node, expanded.message);
        else if (expanded.calls > 0) {
          node.value = expanded.text;
          up.change(
            at,
            node,
            `${expanded.calls} note ${expanded.calls === 1 ? 'call' : 'calls'} written out`,
          );
        }
      };
      if (key == null) continue;
      if (isSeq(value)) (value as YAMLSeq).items.forEach((item, i) => visit(item, [...path, key, i]));
      else visit(value, [...path, key]);
    }
  });
}

/** MigrateKatalogOptions locate the Katalog being migrated. */
export interface MigrateKatalogOptions {
  /** Directory `crdFile` paths are resolved against. Default: `crdFile` is not read. */
  readonly baseDir?: string | undefined;
}

/** MigrateKatalogResult is the canonical text of a Katalog with what was changed and what could not be. */
export interface MigrateKatalogResult {
  /** The canonical document; comments and key order of the original are kept. */
  readonly text: string;
  readonly generation: UpgradeDialectResult['generation'];
  readonly changes: readonly DialectChange[];
  readonly problems: readonly DialectProblem[];
}

/**
 * migrateKatalog rewrites the text of an upstream Katalog into the canonical form with the YAML
 * Document API, so comments and key order survive. A canonical Katalog comes back unchanged.
 *
 * @example
 * const { text, changes } = migrateKatalog(readFileSync('katalog.yaml', 'utf8'), { baseDir: '.' });
 */
export function migrateKatalog(source: string, options: MigrateKatalogOptions = {}): MigrateKatalogResult {
  // A Katalog deployed in a ConfigMap (upstream's way) is migrated to a Katalog file.
  const wrapped = katalogInConfigMap(source);
  const text = wrapped?.ok === true ? wrapped.text : source;
  const lineCounter = new LineCounterClass();
  const doc = parseDocument(text, { lineCounter, keepSourceTokens: true });
  if (doc.errors.length > 0) {
    const error = doc.errors[0];
    const pos = error?.linePos?.[0];
    return {
      text,
      generation: undefined,
      changes: [],
      problems: [
        {
          path: '',
          line: pos?.line ?? 1,
          column: pos?.col ?? 1,
          message: `YAML syntax error: ${error?.message.split('\n')[0] ?? ''}`,
        },
      ],
    };
  }
  const result = upgradeDialect(doc, { lineCounter, baseDir: options.baseDir });
  const changes =
    wrapped?.ok === true
      ? [
          {
            path: `data.${wrapped.key}`,
            line: lineCounter.linePos(wrapped.offset).line,
            column: lineCounter.linePos(wrapped.offset).col,
            message: `the Katalog in data key ${wrapped.key} of ConfigMap ${wrapped.configMap}, written as a Katalog file`,
          },
          ...result.changes,
        ]
      : result.changes;
  return {
    text: changes.length === 0 ? text : doc.toString({ lineWidth: 0 }),
    generation: result.generation,
    changes,
    problems: result.problems,
  };
}

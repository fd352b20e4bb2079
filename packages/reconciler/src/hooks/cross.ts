/**
 * In-process cross reads (docs/reference/katalog.md §15.2, docs/reference/runtime.md §14.2): a rendered `cross` declaration is
 * answered from the target entry's cache (no API call), and what was read is recorded so that a
 * change of the target re-queues its readers (the reverse index of docs/reference/runtime.md §4).
 */
import type { KubeObject } from '../kube-object.js';
import { labelsMatch } from '../labels.js';

/** CrossResult is `cross.<as>` in the template context. */
export interface CrossResult {
  readonly found: boolean;
  readonly name: string;
  readonly namespace: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly spec: Readonly<Record<string, unknown>>;
  readonly status: Readonly<Record<string, unknown>>;
  /** Only for HTTP reads that failed: why (docs/reference/katalog.md §15.2). */
  readonly error?: string;
}

/** CrossDeclaration is one `cross` item with its selector rendered (`CrossRead` from `@orkestra/types` fits it). */
export interface CrossDeclaration {
  /** The target CRD entry. */
  readonly crd: string;
  readonly selector: {
    readonly name?: string;
    readonly namespace?: string;
    readonly matchLabels?: Readonly<Record<string, string>>;
  };
  /** The result key. Default `crd`. */
  readonly as?: string;
}

/** CrossTargetCache is the part of ObjectCache a cross read uses. */
export interface CrossTargetCache {
  getByName(namespace: string | undefined, name: string): KubeObject | undefined;
  listByNamespace(namespace: string): readonly KubeObject[];
  list(): readonly KubeObject[];
}

/** CrossTarget is a CRD entry that can be read: its primary cache and whether it is namespaced. */
export interface CrossTarget {
  readonly namespaced: boolean;
  readonly cache: CrossTargetCache;
}

/** ReadCrossOptions gives a cross read its caches and the reading CR's namespace. */
export interface ReadCrossOptions {
  /** Finds the target entry by name; undefined when the Katalog has no such entry. */
  readonly lookup: (crd: string) => CrossTarget | undefined;
  /** The reading CR's namespace (the default `selector.namespace`); undefined for cluster-scoped readers. */
  readonly namespace: string | undefined;
}

/**
 * CrossReadRecord is what one cross read looked at, for the reverse index: the key found (if any)
 * and, for a `name` selector, the key asked for, or for `matchLabels`, the namespace and labels scanned.
 */
export interface CrossReadRecord {
  readonly crd: string;
  /** The key asked for by a `name` selector (`namespace/name` or `name`). */
  readonly key?: string;
  /** The key of the object that was returned. */
  readonly foundKey?: string;
  /** For `matchLabels`: the namespace scanned (undefined = all namespaces / cluster-scoped). */
  readonly namespace?: string;
  readonly matchLabels?: Readonly<Record<string, string>>;
  /**
   * True when the answer carried the target's children readiness (`protocol: cr` of a kind this
   * operator serves, ADR 0101): a change of a child's readiness re-queues the reader too (ADR 0108).
   */
  readonly children?: boolean;
}

/** ReadCrossResult is a cross read's result and its record for the reverse index. */
export interface ReadCrossResult {
  readonly result: CrossResult;
  readonly record: CrossReadRecord;
}

/** crossResultOf turns a cached CR into a found CrossResult. */
export function crossResultOf(object: KubeObject): CrossResult {
  return {
    found: true,
    name: object.metadata.name ?? '',
    namespace: object.metadata.namespace ?? '',
    labels: object.metadata.labels ?? {},
    annotations: object.metadata.annotations ?? {},
    spec: asMap(object['spec']),
    status: asMap(object['status']),
  };
}

/** notFoundCrossResult is the result of a read that matched nothing: `found: false`, empty maps. */
export function notFoundCrossResult(name = '', namespace = '', error?: string): CrossResult {
  return {
    found: false,
    name,
    namespace,
    labels: {},
    annotations: {},
    spec: {},
    status: {},
    ...(error == null ? {} : { error }),
  };
}

/**
 * readCross answers a rendered cross declaration from the target's cache: by key for
 * `selector.name`, by a scan of the namespace (or of everything, for cluster-scoped targets) for
 * `selector.matchLabels`, where the oldest creation time wins, then namespace/name. It never throws
 * and makes no API call; an unknown entry gives `found: false`.
 *
 * @example
 * const { result, record } = readCross(decl, { lookup: (crd) => targets.get(crd), namespace: 'shop' });
 * context.cross[decl.as ?? decl.crd] = result;
 */
export function readCross(declaration: CrossDeclaration, options: ReadCrossOptions): ReadCrossResult {
  const { crd, selector } = declaration;
  const target = options.lookup(crd);
  const namespace =
    target?.namespaced === false ? undefined : (nonEmpty(selector.namespace) ?? nonEmpty(options.namespace));
  if (selector.matchLabels == null) {
    const name = selector.name ?? '';
    const key = namespace == null ? name : `${namespace}/${name}`;
    const object = target == null || name === '' ? undefined : target.cache.getByName(namespace, name);
    if (object == null) return { result: notFoundCrossResult(name, namespace ?? ''), record: { crd, key } };
    return { result: crossResultOf(object), record: { crd, key, foundKey: key } };
  }
  const matchLabels = selector.matchLabels;
  const record = { crd, matchLabels, ...(namespace == null ? {} : { namespace }) };
  if (target == null) return { result: notFoundCrossResult('', namespace ?? ''), record };
  const candidates = namespace == null ? target.cache.list() : target.cache.listByNamespace(namespace);
  let best: KubeObject | undefined;
  for (const candidate of candidates) {
    if (!labelsMatch(candidate.metadata.labels, matchLabels)) continue;
    if (best == null || isOlder(candidate, best)) best = candidate;
  }
  if (best == null) return { result: notFoundCrossResult('', namespace ?? ''), record };
  return { result: crossResultOf(best), record: { ...record, foundKey: objectKey(best) } };
}

/**
 * failedCrossList is a `strategy: all` answer whose selector did not render (ADR 0083): an empty
 * list (no match is read) that carries `error`, so `{{ cross.<as>.error }}` names the failure.
 */
export function failedCrossList(error: string): readonly CrossResult[] & { readonly error: string } {
  return Object.assign([] as CrossResult[], { error });
}

/** ReadCrossAllResult is a `strategy: all` read's results (oldest first) and its record for the reverse index. */
export interface ReadCrossAllResult {
  readonly results: readonly CrossResult[];
  readonly record: CrossReadRecord;
}

/**
 * readCrossAll answers a rendered cross declaration with `strategy: all` (docs/reference/katalog.md
 * §15.2): every match, in the order `readCross` picks the first by (oldest creation time, then
 * namespace/name) — so `readCross`'s result is always the first item here. A `name` selector
 * matches at most one CR. No match (or an unknown entry) is an empty list; no API call is made.
 */
export function readCrossAll(declaration: CrossDeclaration, options: ReadCrossOptions): ReadCrossAllResult {
  const { crd, selector } = declaration;
  if (selector.matchLabels == null) {
    const one = readCross(declaration, options);
    return { results: one.result.found ? [one.result] : [], record: one.record };
  }
  const target = options.lookup(crd);
  const namespace =
    target?.namespaced === false ? undefined : (nonEmpty(selector.namespace) ?? nonEmpty(options.namespace));
  const matchLabels = selector.matchLabels;
  const record = { crd, matchLabels, ...(namespace == null ? {} : { namespace }) };
  if (target == null) return { results: [], record };
  const candidates = namespace == null ? target.cache.list() : target.cache.listByNamespace(namespace);
  const matches = candidates
    .filter((candidate) => labelsMatch(candidate.metadata.labels, matchLabels))
    .sort((a, b) => (isOlder(a, b) ? -1 : isOlder(b, a) ? 1 : 0));
  return { results: matches.map(crossResultOf), record };
}

/**
 * CrossReaders is the reverse index of cross reads: for each reader (an opaque key such as
 * `<entry>:<namespace>/<name>`), what its last reconcile read. `readersOf` answers which readers
 * must be re-queued when a target object changes.
 *
 * @example
 * readers.record('website:shop/web', [record]);           // after each reconcile (replaces)
 * for (const reader of readers.readersOf('database', changedObject)) enqueue(reader);
 */
export class CrossReaders {
  readonly #byReader = new Map<string, readonly CrossReadRecord[]>();
  /** crd → key → readers, for `name` reads and found objects. */
  readonly #byKey = new Map<string, Map<string, Set<string>>>();
  /** crd → readers with a `matchLabels` read. */
  readonly #selectors = new Map<string, Set<string>>();

  /** size is the number of readers with at least one record. */
  get size(): number {
    return this.#byReader.size;
  }

  /** record replaces what `reader` read (call it after each reconcile; an empty list forgets it). */
  record(reader: string, records: readonly CrossReadRecord[]): void {
    this.forget(reader);
    if (records.length === 0) return;
    this.#byReader.set(reader, records);
    for (const r of records) {
      for (const key of [r.key, r.foundKey]) {
        if (key == null) continue;
        let keys = this.#byKey.get(r.crd);
        if (keys == null) this.#byKey.set(r.crd, (keys = new Map()));
        let readers = keys.get(key);
        if (readers == null) keys.set(key, (readers = new Set()));
        readers.add(reader);
      }
      if (r.matchLabels != null) {
        let readers = this.#selectors.get(r.crd);
        if (readers == null) this.#selectors.set(r.crd, (readers = new Set()));
        readers.add(reader);
      }
    }
  }

  /** forget drops a reader (its CR was deleted). */
  forget(reader: string): void {
    const records = this.#byReader.get(reader);
    if (records == null) return;
    this.#byReader.delete(reader);
    for (const r of records) {
      for (const key of [r.key, r.foundKey]) {
        if (key == null) continue;
        const keys = this.#byKey.get(r.crd);
        const readers = keys?.get(key);
        readers?.delete(reader);
        if (readers?.size === 0) keys?.delete(key);
        if (keys?.size === 0) this.#byKey.delete(r.crd);
      }
      if (r.matchLabels != null) {
        const readers = this.#selectors.get(r.crd);
        readers?.delete(reader);
        if (readers?.size === 0) this.#selectors.delete(r.crd);
      }
    }
  }

  /** recordsOf returns what a reader read in its last reconcile. */
  recordsOf(reader: string): readonly CrossReadRecord[] {
    return this.#byReader.get(reader) ?? [];
  }

  /**
   * readersOf returns the readers to re-queue when `changed` (an object of entry `crd`) was added,
   * updated or deleted: those that asked for its key or were given it, and those whose
   * `matchLabels` read matches its labels (or its previous labels, when `previous` is given).
   */
  readersOf(crd: string, changed: KubeObject, previous?: KubeObject): string[] {
    return this.#readersOf(crd, changed, previous, () => true);
  }

  /**
   * childReadersOf returns the readers to re-queue when a child of `owner` (a CR of entry `crd`)
   * changed its readiness, was added or was deleted: those whose read of `owner` carried its
   * children readiness (`children.<kind>.ready`, ADR 0101) — by name, or by a selector that matches
   * it (ADR 0108). Readers that read only the CR itself are not re-queued.
   */
  childReadersOf(crd: string, owner: KubeObject): string[] {
    return this.#readersOf(crd, owner, undefined, (r) => r.children === true);
  }

  #readersOf(
    crd: string,
    changed: KubeObject,
    previous: KubeObject | undefined,
    counts: (record: CrossReadRecord) => boolean,
  ): string[] {
    const out = new Set<string>();
    const key = objectKey(changed);
    for (const reader of this.#byKey.get(crd)?.get(key) ?? []) {
      const records = this.#byReader.get(reader) ?? [];
      if (records.some((r) => r.crd === crd && (r.key === key || r.foundKey === key) && counts(r)))
        out.add(reader);
    }
    const namespace = nonEmpty(changed.metadata.namespace);
    for (const reader of this.#selectors.get(crd) ?? []) {
      if (out.has(reader)) continue;
      for (const r of this.#byReader.get(reader) ?? []) {
        if (r.crd !== crd || r.matchLabels == null || !counts(r)) continue;
        if (r.namespace != null && r.namespace !== namespace) continue;
        if (
          labelsMatch(changed.metadata.labels, r.matchLabels) ||
          (previous != null && labelsMatch(previous.metadata.labels, r.matchLabels))
        ) {
          out.add(reader);
          break;
        }
      }
    }
    return [...out];
  }
}

function isOlder(a: KubeObject, b: KubeObject): boolean {
  const ta = creationTime(a);
  const tb = creationTime(b);
  if (ta !== tb) return ta < tb;
  return objectKey(a) < objectKey(b);
}

function creationTime(object: KubeObject): number {
  const stamp = object.metadata['creationTimestamp'];
  const ms = typeof stamp === 'string' ? Date.parse(stamp) : NaN;
  return Number.isNaN(ms) ? Number.MAX_SAFE_INTEGER : ms;
}

function objectKey(object: KubeObject): string {
  const name = object.metadata.name ?? '';
  const namespace = nonEmpty(object.metadata.namespace);
  return namespace == null ? name : `${namespace}/${name}`;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value == null || value === '' ? undefined : value;
}

function asMap(value: unknown): Readonly<Record<string, unknown>> {
  return value != null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

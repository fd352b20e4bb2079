/**
 * The Upgrader: the state of one upstream-dialect pass (changes, problems, included files, notes
 * and presets read) and the moves every concern shares (move, drop, refuse; ADR 0036).
 */
import { isMap, isScalar, LineCounter as LineCounterClass, Pair, parseDocument, YAMLMap } from 'yaml';
import type { LineCounter } from 'yaml';
import { readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { INCLUDE_OFFSET, positionIn } from '../positions.js';
import { checkYamlText } from '../yaml-input.js';
import type { IncludedFile } from '../positions.js';
import {
  born,
  formatPath,
  keepComment,
  keyOf,
  mapAt,
  pairOf,
  place,
  rangeOf,
  scalar,
  shift,
  takeOut,
} from './nodes.js';
import type { Path } from './nodes.js';

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
  /** `ork migrate`: rewrite what loading refuses where a rewrite exists (Go hooks become module hooks, constructors module reconcilers). */
  readonly migrating?: boolean | undefined;
  /**
   * Compiles a template the dialect checks before it drops the block holding it (upstream's
   * `serve.clusters`); returns the compiler's message, or undefined. Default: not checked.
   */
  readonly checkTemplate?: ((source: string) => string | undefined) | undefined;
}

export class Upgrader {
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
  /**
   * Upstream's enabled `gateway.clusters` (read before the gateway is dropped): the declared names,
   * or `names: undefined` when an `include` holds more of them. Undefined when there are none.
   */
  gateway: { readonly names: ReadonlySet<string> | undefined } | undefined;
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

  /** templateProblem compiles `source` with the loader's checkTemplate; undefined when it compiles or nothing checks. */
  templateProblem(source: string): string | undefined {
    return this.#options.checkTemplate?.(source);
  }

  /** migrating is true in an `ork migrate` pass (rewrites instead of refusals). */
  get migrating(): boolean {
    return this.#options.migrating === true;
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
    const constructorBlock = mapAt(map, 'constructor');
    const goConstructor =
      constructorBlock != null &&
      (pairOf(constructorBlock, 'location') != null || pairOf(constructorBlock, 'function') != null);
    if ((value === false || value === 'false') && goConstructor) {
      // The constructor's own refusal (or rewrite) covers it: one refusal per entry, not two.
      if (this.#options.migrating === true)
        this.drop(
          map,
          'default',
          [...path, 'default'],
          'the Go constructor becomes a module reconciler (operatorBox.remote)',
        );
      else takeOut(map, pair);
      return;
    }
    if (value === false || value === 'false') {
      this.problem(
        [...path, 'default'],
        pair.value,
        '`default: false` selects a custom Go reconciler, which Orkestra does not run; write it in TypeScript with defineReconciler (@orkestra/provider-kit) and name it in `operatorBox.remote: {module, function}` (docs/reference/katalog.md §15.3), or declare the children in onCreate/onReconcile',
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

/**
 * The Upgrader: the state of one upstream-dialect pass (changes, problems, included files, notes
 * and presets read) and the moves every concern shares (move, drop, refuse; ADR 0036).
 */
import {
  isMap,
  isScalar,
  isSeq,
  LineCounter as LineCounterClass,
  Pair,
  parseDocument,
  YAMLMap,
  YAMLSeq,
} from 'yaml';
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
  scalarText,
  shift,
  takeOut,
} from './nodes.js';
import type { Path } from './nodes.js';
import { constructorKinds, flowKinds, KIND_LIST_KEYS, yamlText } from './constructor.js';

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

  /**
   * goHooks handles upstream's Go code: `hooks` and `constructor` blocks naming a Go package
   * (`location`, `function`). Loading refuses them at the `location` key, naming the TypeScript
   * counterpart (a module hook, docs/reference/katalog.md §14.5, ADR 0052); `ork migrate` rewrites
   * each hook into an `operatorBox.hooks` item, and a constructor into `operatorBox.remote`
   * (moduleReconciler), with a comment saying what to publish. `remote`, and
   * blocks without `location`/`function`, are refused as before.
   */
  goHooks(
    map: YAMLMap,
    path: Path,
    box?: YAMLMap,
    keys: readonly string[] = ['hooks', 'constructor', 'remote'],
  ): void {
    for (const key of keys) {
      const pair = pairOf(map, key);
      if (pair == null) continue;
      const block = isMap(pair.value) ? (pair.value as YAMLMap) : undefined;
      const location = block == null || key === 'remote' ? undefined : pairOf(block, 'location');
      const fn = block == null || key === 'remote' ? undefined : pairOf(block, 'function');
      if (block == null || (location == null && fn == null)) {
        this.problem(
          [...path, key],
          pair.key,
          `\`${key}\` names Go code or a remote reconciler, which Orkestra does not run; declare the children in onCreate/onReconcile, or call a service with \`external\``,
        );
        takeOut(map, pair);
        continue;
      }
      const goPath = scalarText(location?.value) ?? '';
      const name = goModuleToNpm(goPath);
      const fnName = scalarText(fn?.value) ?? 'default';
      // A block that lists the kinds it writes becomes a module reconciler: a module hook cannot write.
      const writes = key === 'constructor' || KIND_LIST_KEYS.some((k) => pairOf(block, k) != null);
      if (this.#options.migrating !== true) {
        this.problem(
          [...path, key, location == null ? 'function' : 'location'],
          (location ?? fn)?.key,
          `\`${key}.${location == null ? 'function' : 'location'}\` names Go code${goPath === '' ? '' : ` (${goPath})`}, which Orkestra does not run; the TypeScript counterpart is ${this.#counterpart({ key, block, path, map, box, name, fnName, writes })}`,
        );
        takeOut(map, pair);
        continue;
      }
      const version = goVersion(goPath, scalarText(pairOf(block, 'version')?.value));
      if (writes) {
        this.#moduleReconciler({ map, path, box, pair, key, block, goPath, name, fnName, version });
        continue;
      }
      const item = born(new YAMLMap(), pair.key);
      item.items.push(
        new Pair(
          scalar('module', pair.key),
          scalar(version == null ? name : `${name}@${version}`, location?.value ?? pair.key),
        ),
      );
      item.items.push(new Pair(scalar('function', pair.key), scalar(fnName, fn?.value ?? pair.key)));
      const args = pairOf(block, 'args');
      if (args != null) item.items.push(new Pair(scalar('args', args.key), args.value));
      item.commentBefore =
        ` ork migrate: ${goPath === '' ? 'this' : goPath} is Go code, which Orkestra does not run. Port ${fnName}` +
        ` to TypeScript with defineHook (@orkestra/provider-kit), publish it as ${name}` +
        `${version == null ? '' : ` ${version}`} and install it in the provider directory` +
        ' (docs/reference/katalog.md §14.5).';
      const target = box ?? map;
      const existing = pairOf(target, 'hooks');
      if (existing != null && isSeq(existing.value)) (existing.value as YAMLSeq).items.push(item);
      else {
        const seq = born(new YAMLSeq(), pair.key);
        seq.items.push(item);
        place(target, new Pair(scalar('hooks', pair.key), seq));
      }
      takeOut(map, pair);
      this.change(
        [...path, key],
        pair.key,
        `Go ${key} rewritten to the module hook ${name}#${fnName} (operatorBox.hooks); publish its TypeScript port`,
      );
      this.#goLeftovers(block, [...path, key], ['location', 'function', 'version', 'args']);
    }
  }

  /**
   * counterpart names the TypeScript counterpart of a Go block in a refusal, with a reference that
   * parses, loads and validates when pasted: the npm name quoted, `managedResources` the kinds the
   * block (or, for a constructor, the entry) declares, else an example of real kinds.
   */
  #counterpart(o: {
    key: string;
    block: YAMLMap;
    path: Path;
    map: YAMLMap;
    box: YAMLMap | undefined;
    name: string;
    fnName: string;
    writes: boolean;
  }): string {
    const { key, block, name, fnName } = o;
    const fnText = yamlText(fnName);
    if (!o.writes)
      return `a module hook: an npm package whose export ${fnName} is made with defineHook (@orkestra/provider-kit), named in \`operatorBox.hooks: [{module: ${yamlText(name)}, function: ${fnText}}]\` (docs/reference/katalog.md §14.5); \`ork migrate\` writes that reference`;
    const read = constructorKinds(
      block,
      [...o.path, key],
      key === 'constructor' ? [o.map, o.box] : [],
      fnName,
      key,
    );
    const kinds = read.ok ? flowKinds(read.kinds) : flowKinds([{ group: 'apps', plural: 'deployments' }]);
    const why =
      key === 'constructor'
        ? 'a constructor owns the loop'
        : `a hook that writes ${read.ok ? 'those kinds' : 'children'} is a reconciler: a module hook cannot write to the cluster`;
    return `a module reconciler (${why}): an npm package whose export ${fnName} is made with defineReconciler (@orkestra/provider-kit), named in \`operatorBox.remote: {module: ${yamlText(name)}, function: ${fnText}, managedResources: ${kinds}}\` (docs/reference/katalog.md §15.3; ${read.ok ? `managedResources from ${read.from}` : 'managedResources lists the kinds it returns; this one is an example'}), which \`ork migrate\` writes${key === 'constructor' ? ', dropping `default: false` with it' : ''}`;
  }

  /** goLeftovers reports, as change lines, the keys of a Go block that the rewrite did not carry over, and why. */
  #goLeftovers(block: YAMLMap, path: Path, kept: readonly string[]): void {
    for (const item of block.items) {
      const key = keyOf(item as Pair);
      if (key == null || kept.includes(key)) continue;
      const why = Object.hasOwn(GO_BLOCK_DROPS, key)
        ? GO_BLOCK_DROPS[key]
        : 'upstream key with no counterpart in a module reference';
      this.change([...path, key], (item as Pair).key, `removed: ${why}`);
    }
  }

  /**
   * moduleReconciler rewrites a Go `constructor` (`ork migrate`) into `operatorBox.remote: {module,
   * function, args?, managedResources}` (docs/reference/katalog.md §15.3, ADR 0064), the kinds read
   * by constructorKinds; when they cannot be read, or the entry already has a `remote`, it is a
   * positioned problem saying what to fill in, and nothing is written.
   */
  #moduleReconciler(o: {
    map: YAMLMap;
    path: Path;
    box: YAMLMap | undefined;
    pair: Pair;
    key: string;
    block: YAMLMap;
    goPath: string;
    name: string;
    fnName: string;
    version: string | undefined;
  }): void {
    const { map, path, pair, key, block, goPath, name, fnName, version } = o;
    const target = o.box ?? map;
    const location = pairOf(block, 'location');
    const fn = pairOf(block, 'function');
    const existing = pairOf(target, 'remote');
    if (existing != null) {
      this.problem(
        [...path, key],
        pair.key,
        `the entry already has a \`remote\` reconciler, and an entry has one: keep it or port the Go ${key} to a module reconciler, not both (docs/reference/katalog.md §15.3)`,
      );
      takeOut(map, pair);
      return;
    }
    const read = constructorKinds(
      block,
      [...path, key],
      key === 'constructor' ? [map, o.box] : [],
      fnName,
      key,
    );
    if (!read.ok) {
      this.problem(read.path, read.node ?? pair.key, read.message);
      takeOut(map, pair);
      return;
    }
    const remote = born(new YAMLMap(), pair.key);
    remote.items.push(
      new Pair(
        scalar('module', pair.key),
        scalar(version == null ? name : `${name}@${version}`, location?.value ?? pair.key),
      ),
    );
    remote.items.push(new Pair(scalar('function', pair.key), scalar(fnName, fn?.value ?? pair.key)));
    const args = pairOf(block, 'args');
    if (args != null) remote.items.push(new Pair(scalar('args', args.key), args.value));
    const listed = KIND_LIST_KEYS.map((k) => pairOf(block, k)).find((p) => p != null);
    const kinds = born(new YAMLSeq(), listed?.key ?? pair.key);
    for (const kind of read.kinds) {
      const item = born(new YAMLMap(), pair.key);
      item.flow = true;
      for (const field of ['group', 'version', 'kind', 'plural'] as const) {
        const value = kind[field];
        if (value != null) item.items.push(new Pair(scalar(field, pair.key), scalar(value, pair.key)));
      }
      kinds.items.push(item);
    }
    remote.items.push(new Pair(scalar('managedResources', pair.key), kinds));
    const remoteKey = scalar('remote', pair.key);
    const remotePair = new Pair(remoteKey, remote);
    remoteKey.commentBefore =
      ` ork migrate: ${goPath === '' ? 'this' : goPath} is Go code (a ${key} block), which Orkestra does not run. Port ${fnName}` +
      ` to TypeScript with defineReconciler (@orkestra/provider-kit), publish it as ${name}` +
      `${version == null ? '' : ` ${version}`} and install it in the provider directory.` +
      ` managedResources (the kinds its answers may hold; they drive RBAC and watches) come from ${read.from}` +
      ' (docs/reference/katalog.md §15.3).';
    place(target, remotePair);
    takeOut(map, pair);
    this.change(
      [...path, key],
      pair.key,
      `Go ${key} rewritten to the module reconciler ${name}#${fnName} (operatorBox.remote, managedResources from ${read.from}${key === 'constructor' ? '' : ': a module hook cannot write to the cluster'}); publish its TypeScript port`,
    );
    this.#goLeftovers(block, [...path, key], ['location', 'function', 'version', 'args', ...KIND_LIST_KEYS]);
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

/** Why `ork migrate` drops each key of a Go `hooks`/`constructor` block that has no place in a module reference. */
const GO_BLOCK_DROPS: Readonly<Record<string, string>> = {
  alias: 'the Go import alias of the package; a module is imported by its npm name',
  fetch: 'Go fetches the package at build time; the npm package is installed in the provider directory',
  runHooksFirst:
    'module hooks and a module reconciler already run at step 12, before the declared children are applied',
};

/**
 * goModuleToNpm suggests the npm package for a Go package path: `github.com/acme/db-operator/hooks`
 * becomes `@acme/db-operator-hooks` (the owner as the scope, the rest joined by `-`).
 */
export function goModuleToNpm(goPath: string): string {
  const clean = (text: string): string =>
    text
      .toLowerCase()
      .replace(/[^a-z0-9.~-]+/g, '-')
      .replace(/^[-._~]+|[-._~]+$/g, '');
  const parts = goPath
    .replace(/@[^/]*$/, '')
    .split('/')
    .filter((part) => part !== '');
  // The host is dropped; with an owner and a path the owner becomes the scope.
  const [, owner = '', ...rest] = parts;
  if (rest.length === 0) return clean(owner) || 'hooks';
  return `@${clean(owner)}/${clean(rest.join('-')) || 'hooks'}`;
}

/** goVersion is the exact version a Go reference pins (`…@v1.2.3` or `version: v1.2.3`), without the `v`. */
function goVersion(goPath: string, version: string | undefined): string | undefined {
  const written = version ?? /@([^/]+)$/.exec(goPath)?.[1];
  return written?.replace(/^v/, '');
}

/**
 * YAML merge keys and aliases on a parsed document's nodes (docs/reference/katalog.md §2): `<<:
 * *anchor` (or a list of aliases, or an inline map) copies the anchored map's keys into the map
 * that holds it, keys written in the map itself winning and earlier sources winning over later
 * ones, as YAML 1.1 and upstream's Go parser do. The copies are clones of the anchored nodes, so
 * an error in a merged key points at the anchor's definition. With `aliases`, every other alias is
 * replaced by a clone of its anchored node too, so the node holding the anchors can be removed.
 * A budget bounds the copies (a billion-laughs document is refused, not expanded).
 */
import { isAlias, isMap, isPair, isScalar, isSeq } from 'yaml';
import type { Alias, Document, Node as YamlNode, Pair, YAMLMap, YAMLSeq } from 'yaml';

/** ExpandAliasesOptions selects what is expanded. */
export interface ExpandAliasesOptions {
  /** Replace plain aliases (not only merge keys) by copies of their anchored nodes. */
  readonly aliases: boolean;
  /** The most nodes copied before the document is refused. Default 100 000. */
  readonly budget?: number;
}

/** AliasProblem is a merge key that cannot be applied, at its node's offset. */
export interface AliasProblem {
  readonly offset: number;
  readonly message: string;
}

/** ExpandAliasesResult counts the merges applied, with the first merge key's offset. */
export interface ExpandAliasesResult {
  readonly merges: number;
  readonly firstMergeOffset: number | undefined;
  readonly problems: readonly AliasProblem[];
}

const MERGE_KEY = '<<';

class Expander {
  merges = 0;
  firstMergeOffset: number | undefined;
  readonly problems: AliasProblem[] = [];
  #budget: number;
  readonly #doc: Document;
  readonly #aliases: boolean;
  readonly #done = new WeakSet<object>();

  constructor(doc: Document, options: ExpandAliasesOptions) {
    this.#doc = doc;
    this.#aliases = options.aliases;
    this.#budget = options.budget ?? 100_000;
  }

  /** copy clones an anchored node without its anchor (a copy must not define it a second time). */
  copy(node: YamlNode): YamlNode | undefined {
    const clone = node.clone() as YamlNode;
    let size = 0;
    const strip = (n: unknown): void => {
      if (n == null || typeof n !== 'object') return;
      size++;
      delete (n as { anchor?: string }).anchor;
      if (isPair(n)) {
        strip((n as Pair).key);
        strip((n as Pair).value);
      } else if (isMap(n) || isSeq(n)) for (const item of (n as YAMLMap | YAMLSeq).items) strip(item);
    };
    strip(clone);
    this.#budget -= size;
    return this.#budget < 0 ? undefined : clone;
  }

  resolve(alias: Alias): YamlNode | undefined {
    return alias.resolve(this.#doc) as YamlNode | undefined;
  }

  visit(node: unknown): void {
    if (node == null || typeof node !== 'object' || this.#done.has(node) || this.#budget < 0) return;
    this.#done.add(node);
    if (isMap(node)) {
      this.#mergeInto(node as YAMLMap);
      for (const item of (node as YAMLMap).items) {
        const pair = item as Pair;
        if (this.#aliases && isAlias(pair.value)) pair.value = this.#expanded(pair.value as Alias);
        this.visit(pair.value);
      }
    } else if (isSeq(node)) {
      const items = (node as YAMLSeq).items;
      for (let i = 0; i < items.length; i++) {
        if (this.#aliases && isAlias(items[i])) items[i] = this.#expanded(items[i] as Alias);
        this.visit(items[i]);
      }
    }
  }

  #expanded(alias: Alias): YamlNode | Alias {
    const target = this.resolve(alias);
    if (target == null) return alias;
    this.visit(target);
    const copy = this.copy(target);
    if (copy == null) {
      this.problems.push({
        offset: alias.range?.[0] ?? 0,
        message: 'too many alias copies (over the budget)',
      });
      return alias;
    }
    return copy;
  }

  #mergeInto(map: YAMLMap): void {
    for (let i = 0; i < map.items.length; i++) {
      const pair = map.items[i] as Pair;
      if (!isScalar(pair.key) || pair.key.value !== MERGE_KEY) continue;
      const offset = (pair.key as YamlNode).range?.[0] ?? 0;
      const sources: YamlNode[] = [];
      const values = isSeq(pair.value) ? (pair.value as YAMLSeq).items : [pair.value];
      for (const value of values) {
        const source = isAlias(value) ? this.resolve(value as Alias) : (value as YamlNode | null);
        if (source == null || !isMap(source)) {
          this.problems.push({
            offset: (value as YamlNode | null)?.range?.[0] ?? offset,
            message: 'a merge key `<<` takes an alias of a map (`<<: *name`), a list of them, or a map',
          });
          continue;
        }
        this.visit(source);
        sources.push(source);
      }
      const keyText = (p: Pair): string => (isScalar(p.key) ? String(p.key.value) : '');
      const present = new Set(map.items.filter((p) => p !== pair).map((p) => keyText(p as Pair)));
      const merged: Pair[] = [];
      for (const source of sources)
        for (const item of (source as YAMLMap).items) {
          const key = keyText(item as Pair);
          if (key === MERGE_KEY || present.has(key)) continue;
          present.add(key);
          const copy = this.copy(item as unknown as YamlNode) as unknown as Pair | undefined;
          if (copy == null) {
            this.problems.push({ offset, message: 'too many alias copies (over the budget)' });
            return;
          }
          merged.push(copy);
        }
      map.items.splice(i, 1, ...merged);
      i += merged.length - 1;
      this.merges++;
      this.firstMergeOffset ??= offset;
    }
  }
}

/**
 * expandAliases applies the merge keys of `doc` (and with `aliases` replaces every alias) in place.
 *
 * @example
 * const doc = parseDocument('base: &b {image: nginx}\nweb: {<<: *b, replicas: 2}\n');
 * expandAliases(doc, { aliases: false }); // doc.toJS().web → { image: 'nginx', replicas: 2 }
 */
export function expandAliases(doc: Document, options: ExpandAliasesOptions): ExpandAliasesResult {
  const expander = new Expander(doc, options);
  expander.visit(doc.contents);
  return {
    merges: expander.merges,
    firstMergeOffset: expander.firstMergeOffset,
    problems: expander.problems,
  };
}

import { isSeq, Pair, YAMLMap } from 'yaml';
import { born, pairOf, scalar } from './nodes.js';
import type { Path } from './nodes.js';
import type { Upgrader } from './upgrader.js';

/**
 * upgradeRuleLists reads the older upstream form of an entry's `validation` or `mutation` written
 * as the list of its rules (`validation: [{field, …}]`) as that block's `rules`
 * (docs/reference/katalog.md §24); the newer upstream form, and ours, is `{rules: [...]}`.
 */
export function upgradeRuleLists(up: Upgrader, entry: YAMLMap, base: Path): void {
  if (!up.upstream) return;
  for (const key of ['validation', 'mutation']) {
    const pair = pairOf(entry, key);
    if (pair == null || !isSeq(pair.value)) continue;
    const list = pair.value;
    const block = born(new YAMLMap(), list);
    block.items.push(new Pair(scalar('rules', list), list));
    pair.value = block;
    up.change([...base, key], list, `the list of rules is written as ${key}.rules`);
  }
}

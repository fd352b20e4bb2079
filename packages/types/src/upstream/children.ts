/**
 * Upstream shapes inside one child entry: label lists, custom entries' `metadata.namespaced`,
 * presets and `forEach.as`; env and envFrom go to env.ts.
 */
import { isMap, isScalar, isSeq, Pair, YAMLMap } from 'yaml';
import type { YAMLSeq } from 'yaml';
import { envFromList, envMap } from './env.js';
import { born, mapAt, pairOf, scalar, takeOut, walk } from './nodes.js';
import type { Path } from './nodes.js';
import { upgradeResourceProfile } from './resource-profiles.js';
import type { Upgrader } from './upgrader.js';

/** upgradeChild rewrites upstream shapes inside one child entry (and its nested containers). */
export function upgradeChild(up: Upgrader, child: YAMLMap, path: Path, custom: boolean): void {
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
    if (block === 'resources') {
      upgradeResourceProfile(up, holder, profile, path);
      continue;
    }
    up.problem(
      [...path, block, 'profile'],
      profile.key,
      `upstream key \`${block}.profile\` has no counterpart in Orkestra: named presets are not built in; write the values (${block === 'rollingUpdate' ? '`maxSurge`/`maxUnavailable`' : 'the pod security fields'})`,
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

/** labelsList turns upstream's `[{key, value}]` label lists into maps. */
export function labelsList(up: Upgrader, map: YAMLMap, path: Path, key: string): void {
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

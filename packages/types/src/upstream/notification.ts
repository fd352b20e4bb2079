/**
 * Upstream's top-level `notification:` block (docs/reference/katalog.md §15.4 and §24, ADR 0060):
 * it becomes `spec.notification` with its keys unchanged. `enabled: false` removes the block;
 * `enabled: true` is the default and is removed. A webhook URL written inline is refused: it is a
 * credential, and Orkestra reads it from a Secret.
 */
import { isMap, isScalar } from 'yaml';
import type { YAMLMap } from 'yaml';
import { mapAt, pairOf } from './nodes.js';
import type { Upgrader } from './upgrader.js';

/** upgradeNotification moves root `notification` to `spec.notification`. */
export function upgradeNotification(up: Upgrader, root: YAMLMap): void {
  const pair = pairOf(root, 'notification');
  if (pair == null || !isMap(pair.value)) return;
  const block = pair.value as YAMLMap;
  const enabled = pairOf(block, 'enabled');
  if (enabled != null) {
    const off = isScalar(enabled.value) && String(enabled.value.value) === 'false';
    if (off) {
      up.drop(root, 'notification', ['notification'], 'disabled (enabled: false)');
      return;
    }
    up.drop(
      block,
      'enabled',
      ['notification', 'enabled'],
      'notifications are on wherever teams are declared',
    );
  }
  const webhooks: { map: YAMLMap | undefined; path: (string | number)[] }[] = [
    { map: mapAt(block, 'slack'), path: ['notification', 'slack', 'webhook'] },
    ...(mapAt(block, 'teams')?.items ?? []).map((team) => ({
      map: isMap(team.value) ? (team.value as YAMLMap) : undefined,
      path: ['notification', 'teams', String(isScalar(team.key) ? team.key.value : ''), 'webhook'],
    })),
  ];
  for (const { map, path } of webhooks) {
    const webhook = map == null ? undefined : pairOf(map, 'webhook');
    if (webhook != null && isScalar(webhook.value))
      up.problem(
        path,
        webhook.value,
        'a webhook URL is a credential: put it in a Secret and write `webhook: {secretRef: {name, key, namespace}}`',
      );
  }
  const spec = mapAt(root, 'spec');
  if (spec == null) return;
  up.move(root, 'notification', spec, 'notification', ['notification'], 'spec.notification');
}

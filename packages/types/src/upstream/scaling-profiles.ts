/**
 * Upstream's named scaling presets (docs/reference/katalog.md §24, ADR 0063): `autoscale.profile`
 * (burst, steady, batch, latency-sensitive, cost-optimized) and an HPA's `behavior.profile` (web,
 * api, latency-sensitive, batch, cost-optimized). Orkestra does not expand them, so each is refused
 * at its position: for upstream's own reason when upstream refuses it too (an unknown name, or a
 * profile mixed with the fields it replaces), else saying what to write instead.
 */
import { isMap, isScalar, isSeq } from 'yaml';
import type { Pair, YAMLMap, YAMLSeq } from 'yaml';
import { mapAt, pairOf } from './nodes.js';
import type { Path } from './nodes.js';
import type { Upgrader } from './upgrader.js';

const AUTOSCALE_PROFILES = ['burst', 'steady', 'batch', 'latency-sensitive', 'cost-optimized'];
const AUTOSCALE_MANUAL = ['interval', 'cooldown', 'conditions', 'when', 'or', 'do'];
const HPA_PROFILES = ['web', 'api', 'latency-sensitive', 'batch', 'cost-optimized'];

const text = (node: unknown): string => (isScalar(node) ? String(node.value) : '');

/** checkAutoscaleProfile refuses `autoscale.profile` wherever the entry's generation wrote `autoscale`. */
export function checkAutoscaleProfile(up: Upgrader, entry: YAMLMap, base: Path): void {
  const box = mapAt(entry, 'operatorBox');
  const places: [YAMLMap | undefined, Path][] = [
    [mapAt(entry, 'autoscale'), [...base, 'autoscale']],
    [mapAt(box, 'autoscale'), [...base, 'operatorBox', 'autoscale']],
    [mapAt(mapAt(box, 'reconciler'), 'autoscale'), [...base, 'operatorBox', 'reconciler', 'autoscale']],
    [mapAt(mapAt(entry, 'reconciler'), 'autoscale'), [...base, 'reconciler', 'autoscale']],
  ];
  for (const [autoscale, path] of places) {
    const pair = autoscale == null ? undefined : pairOf(autoscale, 'profile');
    if (autoscale == null || pair == null) continue;
    const name = text(pair.value);
    const manual = AUTOSCALE_MANUAL.filter((key) => pairOf(autoscale, key) != null);
    const message =
      manual.length > 0
        ? `autoscale.profile ${JSON.stringify(name)} cannot be combined with manual autoscale fields (${manual.join(', ')}); use the profile or the fields, not both`
        : !AUTOSCALE_PROFILES.includes(name) && !name.includes('{{')
          ? `unknown autoscale profile ${JSON.stringify(name)} (upstream's profiles: ${AUTOSCALE_PROFILES.join(', ')})`
          : `autoscale profiles are not expanded by Orkestra: write interval, cooldown, conditions and do instead of profile ${JSON.stringify(name)}`;
    up.problem([...path, 'profile'], pair.key, message);
    autoscale.items.splice(autoscale.items.indexOf(pair), 1);
  }
}

/** checkHpaProfiles refuses `behavior.profile` in the HPA lists of an operatorBox's groups. */
export function checkHpaProfiles(up: Upgrader, box: YAMLMap, boxPath: Path): void {
  for (const group of ['onCreate', 'onReconcile']) {
    const groupMap = mapAt(box, group);
    const list = groupMap == null ? undefined : pairOf(groupMap, 'hpa')?.value;
    if (!isSeq(list)) continue;
    (list as YAMLSeq).items.forEach((item, i) => {
      if (!isMap(item)) return;
      const behavior = mapAt(item as YAMLMap, 'behavior');
      const pair = behavior == null ? undefined : pairOf(behavior, 'profile');
      if (behavior == null || pair == null) return;
      const name = text(pair.value);
      const hpa = text(pairOf(item as YAMLMap, 'name')?.value) || String(i);
      const explicit = ['scaleUp', 'scaleDown'].filter((key) => pairOf(behavior, key) != null);
      const message =
        !HPA_PROFILES.includes(name) && !name.includes('{{')
          ? `HPA ${hpa} has unknown behavior.profile ${JSON.stringify(name)} (allowed upstream: ${HPA_PROFILES.join(', ')})`
          : explicit.length > 0
            ? `HPA ${hpa} declares both behavior.profile and explicit ${explicit.join('/')}; use one or the other, not both`
            : `HPA behavior profiles are not expanded by Orkestra: write behavior.scaleUp and behavior.scaleDown instead of profile ${JSON.stringify(name)}`;
      up.problem([...boxPath, group, 'hpa', i, 'behavior', 'profile'], pair.key, message);
      behavior.items.splice(behavior.items.indexOf(pair as Pair), 1);
    });
  }
}

/**
 * Upstream's quota presets: the built-in ResourceQuota profiles and the Katalog's `profiles`
 * registry, expanded where a `profile:` names them (docs/reference/katalog.md §24).
 */
import { isMap, isSeq, Pair, YAMLMap } from 'yaml';
import type { Node as YamlNode, YAMLSeq } from 'yaml';
import { born, flowList, keyOf, mapAt, pairOf, scalar, scalarText, takeOut } from './nodes.js';
import type { Path } from './nodes.js';
import type { Upgrader } from './upgrader.js';

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
export function readProfiles(up: Upgrader, root: YAMLMap): void {
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
 * emptyLimitRange gives an upstream `limitRanges` item written with neither `limits` nor `profile`
 * (nor `fromLimitRange`, which is refused as an unknown key) an empty `limits` list: upstream makes
 * that LimitRange with `spec.limits: []`, which the API server accepts and which constrains nothing
 * (docs/reference/katalog.md §24).
 */
export function emptyLimitRange(up: Upgrader, item: YAMLMap, path: Path): void {
  for (const key of ['limits', 'profile', 'fromLimitRange']) if (pairOf(item, key) != null) return;
  const near = pairOf(item, 'name')?.key ?? item;
  item.items.push(new Pair(scalar('limits', near), flowList([], near)));
  up.change(
    [...path, 'limits'],
    near,
    'added `limits: []`: upstream makes a LimitRange without limits, which constrains nothing',
  );
}

/**
 * presetProfile maps upstream's `profile:` on a `resourceQuotas` item onto the `hard` map of its
 * built-in preset (the `profile` key becomes `hard`, so errors keep its position). A profile
 * Orkestra cannot expand at load time is refused at the key with the reason: a templated one
 * (upstream picks it per CR), a name neither the Katalog's `profiles` registry (readProfiles, looked
 * up first) nor the built-ins define, and one written beside `hard` or `limits` (upstream rejects
 * the mix). `limitRanges` profiles come from the registry only (upstream has no built-in ones).
 */
export function presetProfile(
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

/**
 * Upstream's Go code (`hooks`, `constructor` and `remote` blocks naming a Go package): refused at
 * load with the TypeScript counterpart named, rewritten by `ork migrate` into a module hook or a
 * module reconciler (docs/reference/katalog.md §14.5, ADR 0052 and 0099).
 */
import { isMap, isSeq, Pair, YAMLMap, YAMLSeq } from 'yaml';
import { born, keyOf, pairOf, place, scalar, scalarText, takeOut } from './nodes.js';
import type { Path } from './nodes.js';
import { constructorKinds, flowKinds, KIND_LIST_KEYS, yamlText } from './constructor.js';
import type { Upgrader } from './upgrader.js';

/**
 * goHooks handles upstream's Go code: `hooks` and `constructor` blocks naming a Go package
 * (`location`, `function`). Loading refuses them at the `location` key, naming the TypeScript
 * counterpart (a module hook, docs/reference/katalog.md §14.5, ADR 0052); `ork migrate` rewrites
 * each hook into an `operatorBox.hooks` item, and a constructor into `operatorBox.remote`
 * (moduleReconciler), with a comment saying what to publish. `remote`, and
 * blocks without `location`/`function`, are refused as before.
 */
export function goHooks(
  up: Upgrader,
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
      up.problem(
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
    if (!up.migrating) {
      up.problem(
        [...path, key, location == null ? 'function' : 'location'],
        (location ?? fn)?.key,
        `\`${key}.${location == null ? 'function' : 'location'}\` names Go code${goPath === '' ? '' : ` (${goPath})`}, which Orkestra does not run; the TypeScript counterpart is ${counterpart(up, { key, block, path, map, box, name, fnName, writes })}`,
      );
      takeOut(map, pair);
      continue;
    }
    const version = goVersion(goPath, scalarText(pairOf(block, 'version')?.value));
    if (writes) {
      moduleReconciler(up, { map, path, box, pair, key, block, goPath, name, fnName, version });
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
    up.change(
      [...path, key],
      pair.key,
      `Go ${key} rewritten to the module hook ${name}#${fnName} (operatorBox.hooks); publish its TypeScript port`,
    );
    goLeftovers(up, block, [...path, key], ['location', 'function', 'version', 'args']);
  }
}

/**
 * counterpart names the TypeScript counterpart of a Go block in a refusal, with a reference that
 * parses, loads and validates when pasted: the npm name quoted, `managedResources` the kinds the
 * block (or, for a constructor, the entry) declares, else an example of real kinds.
 */
function counterpart(
  up: Upgrader,
  o: {
    key: string;
    block: YAMLMap;
    path: Path;
    map: YAMLMap;
    box: YAMLMap | undefined;
    name: string;
    fnName: string;
    writes: boolean;
  },
): string {
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
function goLeftovers(up: Upgrader, block: YAMLMap, path: Path, kept: readonly string[]): void {
  for (const item of block.items) {
    const key = keyOf(item as Pair);
    if (key == null || kept.includes(key)) continue;
    const why = Object.hasOwn(GO_BLOCK_DROPS, key)
      ? GO_BLOCK_DROPS[key]
      : 'upstream key with no counterpart in a module reference';
    up.change([...path, key], (item as Pair).key, `removed: ${why}`);
  }
}

/**
 * moduleReconciler rewrites a Go `constructor` (`ork migrate`) into `operatorBox.remote: {module,
 * function, args?, managedResources}` (docs/reference/katalog.md §15.3, ADR 0064), the kinds read
 * by constructorKinds; when they cannot be read, or the entry already has a `remote`, it is a
 * positioned problem saying what to fill in, and nothing is written.
 */
function moduleReconciler(
  up: Upgrader,
  o: {
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
  },
): void {
  const { map, path, pair, key, block, goPath, name, fnName, version } = o;
  const target = o.box ?? map;
  const location = pairOf(block, 'location');
  const fn = pairOf(block, 'function');
  const existing = pairOf(target, 'remote');
  if (existing != null) {
    up.problem(
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
    up.problem(read.path, read.node ?? pair.key, read.message);
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
  up.change(
    [...path, key],
    pair.key,
    `Go ${key} rewritten to the module reconciler ${name}#${fnName} (operatorBox.remote, managedResources from ${read.from}${key === 'constructor' ? '' : ': a module hook cannot write to the cluster'}); publish its TypeScript port`,
  );
  goLeftovers(up, block, [...path, key], ['location', 'function', 'version', 'args', ...KIND_LIST_KEYS]);
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

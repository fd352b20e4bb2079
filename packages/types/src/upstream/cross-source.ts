/**
 * Upstream's `cross[].source` (docs/reference/katalog.md §15.2 and §24, ADR 0043): the keys that
 * read another runtime over HTTP are moved onto the cross read itself.
 *
 * | upstream `source.`          | canonical                                     |
 * | --------------------------- | --------------------------------------------- |
 * | `host`                      | `endpoint` (base URL of the peer)             |
 * | `protocol` (older: `type`)  | `protocol` (default `info`, as upstream's URL builder) |
 * | `endpoint` (a whole URL)    | `url`                                         |
 * | `namespace`                 | `selector.namespace` (when the selector has none) |
 * | `cacheFor`, `timeout`       | `cacheFor`, `timeout`                         |
 * | `auth.token: $VAR`, `token` | `auth.env: $VAR`                              |
 * | `auth.secretRef`            | `auth.secretRef`                              |
 *
 * A literal token (not `$VAR`) is refused at its position: a credential is never written in a Katalog.
 */
import { YAMLMap as YamlMap, isMap, isScalar } from 'yaml';
import type { Pair, YAMLMap } from 'yaml';
import { born, keyOf, mapAt, pairOf, place, scalar, takeOut } from './nodes.js';
import type { Path } from './nodes.js';
import type { Upgrader } from './upgrader.js';

/** Upstream's protocols (ONCOP), as the canonical `protocol` takes them. */
const PROTOCOLS = new Set(['cr', 'health', 'metrics', 'info', 'events']);

const ENV_TOKEN = /^\$\{?[A-Za-z_][A-Za-z0-9_]*\}?$/;

/**
 * crossSource maps one cross read's `source` map; returns false (and reports a problem) when the
 * read cannot be mapped, so the caller takes the whole read out.
 */
export function crossSource(up: Upgrader, read: YAMLMap, path: Path): boolean {
  const sourcePair = pairOf(read, 'source');
  if (sourcePair == null || !isMap(sourcePair.value)) return true;
  const source = sourcePair.value as YAMLMap;
  const sourcePath = [...path, 'source'];
  let ok = true;
  const move = (from: string, to: string, into: YAMLMap = read): Pair | undefined => {
    const pair = pairOf(source, from);
    if (pair == null) return undefined;
    if (pairOf(into, to) != null) {
      up.problem(
        [...sourcePath, from],
        pair.key,
        `\`source.${from}\` and \`${to}\` are both given; keep one (\`source.${from}\` maps to \`${to}\`)`,
      );
      ok = false;
      return undefined;
    }
    takeOut(source, pair);
    pair.key = scalar(to, pair.key);
    place(into, pair);
    up.change([...sourcePath, from], pair.key, `moved to ${to === 'namespace' ? 'selector.namespace' : to}`);
    return pair;
  };

  const host = pairOf(source, 'host');
  const endpoint = pairOf(source, 'endpoint');
  if (host == null && endpoint == null) {
    up.problem(
      sourcePath,
      sourcePair.key,
      'upstream `source` needs `host` (a peer runtime, read through its Live API paths) or `endpoint` (a whole URL)',
    );
    return false;
  }
  // Upstream calls `endpoint` when both are set and ignores host/protocol.
  if (endpoint != null) {
    move('endpoint', 'url');
    for (const ignored of ['host', 'protocol', 'type']) {
      const pair = pairOf(source, ignored);
      if (pair == null) continue;
      takeOut(source, pair);
      up.change([...sourcePath, ignored], pair.key, 'dropped: upstream ignores it when `endpoint` is set');
    }
  } else {
    move('host', 'endpoint');
    const protocolPair = pairOf(source, 'protocol') ?? pairOf(source, 'type');
    const spelled = protocolPair == null ? undefined : keyOf(protocolPair);
    const value =
      protocolPair == null ? 'info' : isScalar(protocolPair.value) ? String(protocolPair.value.value) : '';
    if (!PROTOCOLS.has(value)) {
      up.problem(
        [...sourcePath, spelled ?? 'protocol'],
        protocolPair?.value,
        `upstream protocol \`${value}\` is not one of cr, health, metrics, info, events`,
      );
      if (protocolPair != null) takeOut(source, protocolPair);
      ok = false;
    } else if (protocolPair == null) {
      // Upstream's URL builder reads an absent protocol as `info` (/katalog/<crd>).
      place(read, pairFor('protocol', 'info', sourcePair.key));
      up.change(sourcePath, sourcePair.key, 'protocol: info (upstream’s default when none is given)');
    } else if (spelled != null) move(spelled, 'protocol');
    const other = pairOf(source, spelled === 'type' ? 'protocol' : 'type');
    if (other != null) {
      takeOut(source, other);
      up.change(
        [...sourcePath, keyOf(other) ?? 'type'],
        other.key,
        'dropped: `protocol` and `type` are one key',
      );
    }
  }

  const namespace = pairOf(source, 'namespace');
  if (namespace != null) {
    let selector = mapAt(read, 'selector');
    if (selector == null) {
      selector = born(new YamlMap(), namespace.key);
      place(read, pairFor('selector', selector, namespace.key));
    }
    if (pairOf(selector, 'namespace') == null) move('namespace', 'namespace', selector);
    else {
      takeOut(source, namespace);
      up.change([...sourcePath, 'namespace'], namespace.key, 'dropped: `selector.namespace` is given');
    }
  }
  for (const key of ['cacheFor', 'timeout']) move(key, key);

  // Credentials: a `$VAR` token or a Secret, never a literal.
  const authPair = pairOf(source, 'auth');
  const tokenPair = pairOf(source, 'token');
  const auth = authPair != null && isMap(authPair.value) ? (authPair.value as YAMLMap) : undefined;
  const token = tokenPair ?? (auth == null ? undefined : pairOf(auth, 'token'));
  const tokenPath = tokenPair != null ? [...sourcePath, 'token'] : [...sourcePath, 'auth', 'token'];
  const secretRef = auth == null ? undefined : pairOf(auth, 'secretRef');
  if (token != null && secretRef != null) {
    up.problem(tokenPath, token.key, 'upstream `auth.token` and `auth.secretRef` are exclusive; keep one');
    ok = false;
  } else if (token != null) {
    const text = isScalar(token.value) ? String(token.value.value) : '';
    if (!ENV_TOKEN.test(text)) {
      up.problem(
        tokenPath,
        token.value,
        'a literal token in the Katalog is refused: write `$VARIABLE` (read from the operator’s environment) or `auth.secretRef`',
      );
      ok = false;
    } else {
      const canonical = born(new YamlMap(), token.key);
      canonical.items.push(pairFor('env', token.value, token.key));
      place(read, pairFor('auth', canonical, token.key));
      up.change(tokenPath, token.key, 'moved to auth.env');
    }
  } else if (secretRef != null) {
    const canonical = born(new YamlMap(), secretRef.key);
    canonical.items.push(secretRef);
    place(read, pairFor('auth', canonical, secretRef.key));
    up.change([...sourcePath, 'auth', 'secretRef'], secretRef.key, 'moved to auth.secretRef');
  }
  if (authPair != null) takeOut(source, authPair);
  if (tokenPair != null) takeOut(source, tokenPair);

  for (const left of [...source.items]) {
    const key = keyOf(left as Pair) ?? '';
    up.problem(
      [...sourcePath, key],
      (left as Pair).key,
      `upstream key \`source.${key}\` has no counterpart in Orkestra`,
    );
    ok = false;
  }
  if (ok) takeOut(read, sourcePair);
  return ok;
}

function pairFor(key: string, value: unknown, from: unknown): Pair {
  const holder = born(new YamlMap(), from);
  holder.set(scalar(key, from), isMap(value) || isScalar(value) ? value : scalar(value, from));
  return holder.items[0] as Pair;
}

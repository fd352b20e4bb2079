/**
 * Upstream's `gateway.clusters` and the `serve.clusters` references to them (docs/reference/katalog.md
 * §24, ADR 0094). The gateway is not part of Orkestra and is dropped, but a gateway upstream's own
 * validator refuses is refused here too, at its key and for upstream's reason, so a Katalog upstream
 * rejects never loads: a cluster without `endpoint` or without a credential form, both forms at once,
 * `insecure` with a kubeconfig, `tokenRef` without `caRef` (unless insecure), a reference without
 * `name`/`key`; and in an entry's `serve`, a cluster name not declared in `gateway.clusters`, a
 * target cluster not in `serve.clusters`, a cluster template that does not compile.
 */
import { isMap, isScalar, isSeq } from 'yaml';
import type { Pair, YAMLMap, YAMLSeq } from 'yaml';
import { keyOf, mapAt, pairOf, scalarText } from './nodes.js';
import type { Path } from './nodes.js';
import { expandNoteCalls, prepareNotes } from './note-calls.js';
import type { Upgrader } from './upgrader.js';

const on = (map: YAMLMap, key: string): boolean => {
  const value = pairOf(map, key)?.value;
  return isScalar(value) && (value.value === true || String(value.value) === 'true');
};

const blank = (value: unknown): boolean => (scalarText(value) ?? '').trim() === '';

/**
 * readGateway checks an enabled gateway's `clusters` the way upstream's validator does and records
 * the declared names on the Upgrader for the entries' `serve.clusters` (checkServeClusters). Call it
 * before the gateway block is dropped.
 */
export function readGateway(up: Upgrader, root: YAMLMap): void {
  const gateway = mapAt(root, 'gateway');
  if (gateway == null || !on(gateway, 'enabled')) return;
  const clusters = mapAt(gateway, 'clusters');
  if (clusters == null || clusters.items.length === 0) return;
  const names = new Set<string>();
  let included = false;
  for (const item of clusters.items) {
    const name = keyOf(item as Pair);
    if (name == null) continue;
    // Upstream reads more clusters from `include: <file>`; Orkestra does not read the file (the
    // gateway is dropped), so names outside this block are not known and not checked.
    if (name === 'include') {
      included = true;
      continue;
    }
    names.add(name);
    checkCluster(up, item as Pair, name);
  }
  up.gateway = { names: included ? undefined : names };
}

function checkCluster(up: Upgrader, item: Pair, name: string): void {
  const path = ['gateway', 'clusters', name];
  if (!isMap(item.value)) {
    up.problem(path, item.key, `a cluster is a map of endpoint and a credential form`);
    return;
  }
  const cluster = item.value as YAMLMap;
  const endpoint = pairOf(cluster, 'endpoint');
  if (endpoint == null || blank(endpoint.value))
    up.problem(
      [...path, 'endpoint'],
      endpoint?.key ?? item.key,
      `endpoint is required (upstream refuses a cluster without one)`,
    );
  const secretRef = pairOf(cluster, 'secretRef');
  const tokenRef = pairOf(cluster, 'tokenRef');
  const caRef = pairOf(cluster, 'caRef');
  const insecure = on(cluster, 'insecure');
  if (secretRef == null && tokenRef == null && caRef == null) {
    up.problem(
      path,
      item.key,
      `a credential form is required: secretRef (a kubeconfig) or tokenRef with caRef (a bearer token), as upstream requires`,
    );
    return;
  }
  if (secretRef != null && (tokenRef != null || caRef != null)) {
    const other = tokenRef ?? caRef;
    up.problem(
      [...path, tokenRef == null ? 'caRef' : 'tokenRef'],
      other?.key,
      `secretRef and tokenRef/caRef are mutually exclusive; declare one credential form (upstream refuses both)`,
    );
  }
  if (secretRef != null) {
    checkRef(up, secretRef, [...path, 'secretRef'], 'secretRef');
    if (insecure)
      up.problem(
        [...path, 'insecure'],
        pairOf(cluster, 'insecure')?.key,
        `insecure is only valid with tokenRef; a kubeconfig carries its own TLS settings (upstream refuses it)`,
      );
  }
  if (tokenRef == null && caRef != null && secretRef == null)
    up.problem(
      [...path, 'caRef'],
      caRef.key,
      `caRef requires tokenRef; declare both (upstream refuses caRef alone)`,
    );
  if (tokenRef != null) {
    if (caRef == null && !insecure && secretRef == null)
      up.problem(
        [...path, 'tokenRef'],
        tokenRef.key,
        `tokenRef requires caRef unless \`insecure: true\` is set (upstream refuses it)`,
      );
    checkRef(up, tokenRef, [...path, 'tokenRef'], 'tokenRef');
  }
  if (caRef != null) checkRef(up, caRef, [...path, 'caRef'], 'caRef');
}

function checkRef(up: Upgrader, ref: Pair, path: Path, shown: string): void {
  const block = isMap(ref.value) ? (ref.value as YAMLMap) : undefined;
  const missing = ['name', 'key'].filter((key) => block == null || blank(pairOf(block, key)?.value));
  if (missing.length > 0)
    up.problem(path, ref.key, `${shown} requires ${missing.join(' and ')} (upstream refuses it without)`);
}

/**
 * checkServeClusters checks an entry's `serve.clusters` and `serve.target.<name>.clusters` against
 * the gateway's clusters (readGateway): a literal name must be declared there, and a target's
 * literal name in `serve.clusters` too; a template must compile (upstream's notes written out
 * first). Nothing is checked when the Katalog has no enabled gateway clusters, as upstream.
 */
export function checkServeClusters(
  up: Upgrader,
  entry: YAMLMap,
  base: Path,
  written: 'serve' | 'idp' = 'serve',
): void {
  const gateway = up.gateway;
  const serve = mapAt(entry, 'serve');
  if (gateway == null || serve == null) return;
  const path = [...base, written];
  const served = listOf(serve, 'clusters');
  const servedNames = new Set(served.map((node) => scalarText(node) ?? ''));
  served.forEach((node, i) => checkRefTo(up, gateway.names, node, [...path, 'clusters', i]));
  for (const item of mapAt(serve, 'target')?.items ?? []) {
    const target = keyOf(item as Pair);
    if (target == null || !isMap((item as Pair).value)) continue;
    listOf((item as Pair).value as YAMLMap, 'clusters').forEach((node, i) => {
      const at = [...path, 'target', target, 'clusters', i];
      if (!checkRefTo(up, gateway.names, node, at)) return;
      const value = scalarText(node) ?? '';
      if (!value.includes('{{') && !servedNames.has(value))
        up.problem(
          at,
          node,
          `cluster "${value}" is not declared in serve.clusters; a target fans out to a subset of them (upstream refuses it)`,
        );
    });
  }
}

function listOf(map: YAMLMap, key: string): unknown[] {
  const value = pairOf(map, key)?.value;
  return isSeq(value) ? (value as YAMLSeq).items : [];
}

/** checkRefTo checks one cluster reference; false when it was refused (or is not a string). */
function checkRefTo(up: Upgrader, names: ReadonlySet<string> | undefined, node: unknown, at: Path): boolean {
  const value = scalarText(node);
  if (value == null || value === '') return value === '';
  if (value.includes('{{')) {
    const prepared = prepareNotes(new Map([...up.notes].map(([name, note]) => [name, note.expression])));
    const expanded = prepared.ok ? expandNoteCalls(value, prepared.notes) : undefined;
    const problem = up.templateProblem(expanded?.ok === true ? expanded.text : value);
    if (problem == null) return true;
    up.problem(at, node, `invalid cluster template: ${problem}`);
    return false;
  }
  if (names == null || names.has(value)) return true;
  up.problem(
    at,
    node,
    `cluster "${value}" is not defined in gateway.clusters (declared: ${[...names].join(', ')}; upstream refuses it)`,
  );
  return false;
}

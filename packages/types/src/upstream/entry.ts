/**
 * One upstream entry: the G1/G2/G3 layouts moved onto the canonical entry and operatorBox, and the
 * entry-level keys (apiTypes, namespace, queue, mutation of the CR's metadata, validation messages).
 */
import { isMap, isScalar, isSeq, Pair, YAMLMap } from 'yaml';
import type { Scalar, YAMLSeq } from 'yaml';
import { upgradeAutoscaleSources, upgradeWorkloadAutoscaleSources } from './autoscale-sources.js';
import { upgradeBox } from './box.js';
import { builtinKindEntry } from './builtin-entries.js';
import { labelsList } from './children.js';
import { externalJsonPaths, externalProtocols } from './external.js';
import { expandIncludes, upgradeCrdFile } from './includes.js';
import { applyImports, takeImports } from './motifs.js';
import { flowList, keyOf, mapAt, pairOf, scalar, scalarText, takeOut } from './nodes.js';
import type { Path } from './nodes.js';
import { ENTRY_REFUSED, REFUSED } from './refusals.js';
import { upgradeTiming } from './timing.js';
import type { UpgradeDialectOptions, Upgrader } from './upgrader.js';
import { upgradeWatch } from './watch.js';
import { upgradePreReconcile } from './pre-reconcile.js';
import { upgradeRemote } from './remote.js';
import { upgradeRollback } from './rollback.js';
import { upgradeRuleLists } from './rule-lists.js';
import { checkEnrich } from './enrich.js';
import { oneWayPaths } from './one-way-paths.js';
import { checkServe, servedAs } from './serve.js';
import { checkServeClusters } from './gateway.js';
import { runtimeOwnedStatus } from './status-paths.js';
import { goHooks } from './go-hooks.js';

/** Keys of a G1 `reconciler:` / G3 `reconcile:` block that belong to the operatorBox. */
const BOX_KEYS = ['finalizers', 'onCreate', 'onReconcile', 'onDelete', 'status', 'providers'] as const;

/** Keys of a G2 `operatorBox.reconciler` / G3 `reconcile`/`runtime` block that belong to the entry. */
const ENTRY_KEYS = [
  'workers',
  'resync',
  'queue',
  'requeue',
  'normalize',
  'forceConflict',
  'autoscale',
  'restrictedNamespaces',
  'allowedNamespaces',
] as const;

/** GO_TYPE_KEYS are upstream `apiTypes` keys that name generated Go types (typed mode only). */
const GO_TYPE_KEYS = ['object', 'objectList', 'list', 'location', 'alias'] as const;

export function upgradeEntry(up: Upgrader, entry: YAMLMap, base: Path, options: UpgradeDialectOptions): void {
  if (up.upstream) {
    checkEnrich(up, entry, base);
    const written = servedAs(up, entry, base);
    // Upstream's validator checks `serve` of enabled entries only.
    const enabled = pairOf(entry, 'enabled')?.value;
    if (!(isScalar(enabled) && enabled.value === false)) {
      checkServe(up, entry, base, written);
      checkServeClusters(up, entry, base, written);
    }
  }
  const builtin = builtinKindEntry(up, entry, base);
  const apiTypes = mapAt(entry, 'apiTypes');
  if (apiTypes != null)
    for (const key of GO_TYPE_KEYS)
      up.drop(
        apiTypes,
        key,
        [...base, 'apiTypes', key],
        'it names a generated Go type for upstream’s typed mode; Orkestra reads CRs as plain objects',
      );
  // The oldest generation's `apiPath` (`/apis`, or `/api` for core types) and `critical`.
  const apiPath = apiTypes == null ? undefined : pairOf(apiTypes, 'apiPath');
  if (apiTypes != null && apiPath != null) {
    if (scalarText(apiPath.value) === '/apis')
      up.drop(
        apiTypes,
        'apiPath',
        [...base, 'apiTypes', 'apiPath'],
        'the API path of every CRD kind (/apis)',
      );
    else {
      up.problem(
        [...base, 'apiTypes', 'apiPath'],
        apiPath.value,
        'an entry defines its own CRD, served under /apis; another apiPath (upstream’s /api for core types) names a built-in kind, which an entry cannot be',
      );
      takeOut(apiTypes, apiPath);
    }
  }
  up.drop(
    entry,
    'critical',
    [...base, 'critical'],
    'every entry counts toward the operator’s readiness (its informers must sync before /readyz is ok)',
  );
  for (const key of ['labelSelector', 'fieldSelector']) {
    const pair = pairOf(entry, key);
    if (pair == null) continue;
    if (!builtin)
      up.problem(
        [...base, key],
        pair.key,
        `upstream key \`${key}\` has no counterpart in Orkestra: every CR of the entry's kind is reconciled; narrow it with \`allowedNamespaces\` or gate children with \`when\``,
      );
    takeOut(entry, pair);
  }
  expandIncludes(up, entry, base);
  const imports = takeImports(up, entry, base);
  // G1: the entry's `reconciler:` block holds the lifecycle.
  const g1 = mapAt(entry, 'reconciler');
  if (g1 != null) {
    up.mark('G1');
    const box = up.ensureMap(entry, 'operatorBox', pairOf(entry, 'reconciler')?.key);
    const path = [...base, 'reconciler'];
    upgradeRemote(up, g1, box, path);
    up.reconcilerDefault(g1, path);
    goHooks(up, g1, path, box);
    for (const key of BOX_KEYS) up.move(g1, key, box, key, [...path, key], 'operatorBox.' + key);
    for (const key of ENTRY_KEYS) up.move(g1, key, entry, key, [...path, key], key);
    up.refuse(g1, path, REFUSED);
    up.drop(entry, 'reconciler', path, 'its keys moved');
  }
  const box = mapAt(entry, 'operatorBox');
  const boxPath = [...base, 'operatorBox'];
  if (box != null) {
    if (pairOf(box, 'default') != null) up.mark('G2');
    up.reconcilerDefault(box, boxPath);
    // G2: operatorBox.reconciler holds the queue tuning; it belongs to the entry.
    const g2 = mapAt(box, 'reconciler');
    if (g2 != null) {
      up.mark('G2');
      const path = [...boxPath, 'reconciler'];
      upgradeRemote(up, g2, box, path);
      up.reconcilerDefault(g2, path);
      goHooks(up, g2, path, box);
      for (const key of ENTRY_KEYS) up.move(g2, key, entry, key, [...path, key], key);
      up.refuse(g2, path, REFUSED);
      up.drop(box, 'reconciler', path, 'its keys moved to the entry');
    }
    up.move(box, 'autoscale', entry, 'autoscale', [...boxPath, 'autoscale'], 'autoscale');
    const autoscale = mapAt(entry, 'autoscale');
    if (autoscale != null) upgradeAutoscaleSources(up, autoscale, [...base, 'autoscale']);
    // G3: reconcile / runtime / emit sub-blocks.
    const reconcile = mapAt(box, 'reconcile');
    if (reconcile != null) {
      up.mark('G3');
      const path = [...boxPath, 'reconcile'];
      upgradeRemote(up, reconcile, box, path);
      up.reconcilerDefault(reconcile, path);
      goHooks(up, reconcile, path, box);
      for (const key of BOX_KEYS) up.move(reconcile, key, box, key, [...path, key], 'operatorBox.' + key);
      for (const key of ENTRY_KEYS) up.move(reconcile, key, entry, key, [...path, key], key);
      up.refuse(reconcile, path, REFUSED);
      up.drop(box, 'reconcile', path, 'its keys moved');
    }
    // Go hooks and constructors written straight under the operatorBox (`hooks: {location, function}`).
    const goKeys = ['hooks', 'constructor'].filter((key) => mapAt(box, key) != null);
    if (goKeys.length > 0) goHooks(up, box, boxPath, box, goKeys);
    const runtime = mapAt(box, 'runtime');
    if (runtime != null) {
      up.mark('G3');
      const path = [...boxPath, 'runtime'];
      up.move(runtime, 'finalizers', box, 'finalizers', [...path, 'finalizers'], 'operatorBox.finalizers');
      for (const key of ['rollback', 'rollBackOnError'])
        up.move(runtime, key, box, key, [...path, key], 'operatorBox.' + key);
      // katalog.md §20.6: upstream's runtime.cleanup is the entry's `cleanup`.
      up.move(runtime, 'cleanup', entry, 'cleanup', [...path, 'cleanup'], 'cleanup');
      for (const key of ENTRY_KEYS) up.move(runtime, key, entry, key, [...path, key], key);
      up.refuse(runtime, path, REFUSED);
      up.drop(box, 'runtime', path, 'its keys moved');
    }
    const emit = mapAt(box, 'emit');
    if (emit != null) {
      up.mark('G3');
      const path = [...boxPath, 'emit'];
      up.move(emit, 'status', box, 'status', [...path, 'status'], 'operatorBox.status');
      // katalog.md §20.5: upstream's emit.events is the entry's `events`.
      up.move(emit, 'events', entry, 'events', [...path, 'events'], 'events');
      up.refuse(emit, path, REFUSED);
      up.drop(box, 'emit', path, 'its keys moved');
    }
    upgradeWorkloadAutoscaleSources(up, box, boxPath);
  }
  // G3: entry-level admission.{validation, mutation, conversion}.
  const admission = mapAt(entry, 'admission');
  if (admission != null) {
    up.mark('G3');
    const path = [...base, 'admission'];
    up.move(admission, 'validation', entry, 'validation', [...path, 'validation'], 'validation');
    up.move(admission, 'mutation', entry, 'mutation', [...path, 'mutation'], 'mutation');
    // Served by the operator's conversion webhook, as an entry's own `conversion` (katalog.md §3.4).
    up.move(admission, 'conversion', entry, 'conversion', [...path, 'conversion'], 'conversion');
    up.drop(
      admission,
      'webhooks',
      [...path, 'webhooks'],
      'admission webhooks are configured by the deployment, not per entry',
    );
    up.refuse(admission, path, REFUSED);
    up.drop(entry, 'admission', path, 'its keys moved');
  }
  up.drop(entry, 'webhooks', [...base, 'webhooks'], 'admission webhooks are configured by the deployment');
  up.drop(
    entry,
    'mode',
    [...base, 'mode'],
    'typed/dynamic selects upstream’s Go implementation; Orkestra has one',
  );
  up.drop(
    entry,
    'serve',
    [...base, 'serve'],
    'the gateway’s self-service form is not part of Orkestra; reconciling is unchanged',
  );
  upgradeEntryNamespace(up, entry, base);
  // Upstream's entry labels (and annotations) are kept on the CRs themselves (katalog.md §3.3).
  labelsList(up, entry, base, 'labels');
  labelsList(up, entry, base, 'annotations');
  entryRefusals(up, entry, base);
  up.drop(entry, 'endpoints', [...base, 'endpoints'], 'the operator serves one fixed set of endpoints');
  up.drop(entry, 'crFiles', [...base, 'crFiles'], 'sample CRs are passed to `ork render`/`ork dev` instead');
  up.drop(
    entry,
    'setup',
    [...base, 'setup'],
    'prerequisites are applied before `ork dev`, not by the Katalog',
  );
  upgradeWatch(up, entry, base);
  upgradePreReconcile(up, entry, base);
  upgradeRollback(up, entry, base);
  // katalog.md §20.5–20.6: the flat layout's `operatorBox.events` and `operatorBox.cleanup`.
  for (const key of ['events', 'cleanup']) {
    const boxNow = mapAt(entry, 'operatorBox');
    if (boxNow != null) up.move(boxNow, key, entry, key, [...boxPath, key], key);
  }
  for (const key of ['observe', 'watch']) {
    const boxNow = mapAt(entry, 'operatorBox');
    const pair = boxNow == null ? undefined : pairOf(boxNow, key);
    if (boxNow == null || pair == null) continue;
    up.mark('G3');
    const holder = new YAMLMap();
    holder.items.push(pair);
    up.refuse(holder, boxPath, REFUSED);
    takeOut(boxNow, pair);
  }
  upgradeCrdFile(up, entry, base, options);
  upgradeTiming(up, entry, base);
  upgradeQueue(up, entry, base);
  upgradeRuleLists(up, entry, base);
  const mutation = mapAt(entry, 'mutation');
  if (mutation != null)
    up.drop(
      mutation,
      'mutateFirst',
      [...base, 'mutation', 'mutateFirst'],
      'mutation always runs before validation',
    );
  if (up.upstream) mutationMetadata(up, entry, base);
  upgradeValidation(up, entry, base);
  if (imports.length > 0) applyImports(up, entry, imports, boxPath);
  const finalBox = mapAt(entry, 'operatorBox');
  if (finalBox != null) upgradeBox(up, finalBox, boxPath);
  if (up.upstream && finalBox != null) runtimeOwnedStatus(up, finalBox, boxPath);
  if (up.upstream) externalJsonPaths(up, entry, base);
  if (up.upstream) oneWayPaths(up, entry, base);
}

/**
 * upgradeEntryNamespace maps upstream's entry `namespace: X` (its informer watches X only) onto
 * `allowedNamespaces: [X]`, whose one exact name scopes the informers and RBAC the same way (katalog.md §19);
 * children bound for other namespaces are held to it too. A templated or non-text value, or an
 * `allowedNamespaces` that already excludes X, is refused at the key.
 */
function upgradeEntryNamespace(up: Upgrader, entry: YAMLMap, base: Path): void {
  const pair = pairOf(entry, 'namespace');
  if (pair == null) return;
  const path = [...base, 'namespace'];
  const value = isScalar(pair.value) ? (pair.value as Scalar).value : undefined;
  if (typeof value !== 'string' || value === '' || value.includes('{{')) {
    up.problem(
      path,
      pair.key,
      'upstream key `namespace` must be one literal namespace name to map onto `allowedNamespaces`',
    );
    takeOut(entry, pair);
    return;
  }
  const allowed = pairOf(entry, 'allowedNamespaces');
  if (allowed == null) {
    const at = takeOut(entry, pair);
    entry.items.splice(at, 0, new Pair(scalar('allowedNamespaces', pair.key), flowList([value], pair.value)));
    up.change(
      path,
      pair.key,
      `mapped to allowedNamespaces: [${value}] (informers, RBAC and children scoped to it)`,
    );
    return;
  }
  const names = isSeq(allowed.value) ? (allowed.value as YAMLSeq).items.map(scalarText) : [];
  if (names.includes(value)) {
    takeOut(entry, pair);
    up.change(path, pair.key, `removed: allowedNamespaces already lists ${value}`);
    return;
  }
  up.problem(
    path,
    pair.key,
    `upstream key \`namespace: ${value}\` conflicts with allowedNamespaces, which does not list it; keep one of them`,
  );
  takeOut(entry, pair);
}

function entryRefusals(up: Upgrader, entry: YAMLMap, base: Path): void {
  for (const [key, reason] of Object.entries(ENTRY_REFUSED)) {
    const pair = pairOf(entry, key);
    if (pair == null) continue;
    up.problem([...base, key], pair.key, `upstream key \`${key}\` has no counterpart in Orkestra: ${reason}`);
    takeOut(entry, pair);
  }
}

function upgradeQueue(up: Upgrader, entry: YAMLMap, base: Path): void {
  const queue = mapAt(entry, 'queue');
  if (queue == null) return;
  const path = [...base, 'queue'];
  const depth = pairOf(queue, 'maxQueueDepth');
  if (depth != null) {
    if (pairOf(queue, 'maxDepth') == null) {
      depth.key = scalar('maxDepth', depth.key);
      up.change([...path, 'maxQueueDepth'], depth.key, 'renamed to queue.maxDepth');
    }
  }
  up.drop(queue, 'shared', [...path, 'shared'], 'every entry has its own work queue');
  // katalog.md §20.7: `behavior` is the American spelling of `behaviour`.
  const behavior = pairOf(queue, 'behavior');
  if (behavior != null && pairOf(queue, 'behaviour') == null) {
    behavior.key = scalar('behaviour', behavior.key);
    up.change([...path, 'behavior'], behavior.key, 'renamed to queue.behaviour');
  }
  for (const key of ['default', 'failureThreshold', 'behavior'])
    up.drop(
      queue,
      key,
      [...path, key],
      'a full queue drops new keys (the only behaviour); they are seen again at resync',
    );
}

/**
 * mutationMetadata maps upstream's mutation rules on the CR's own labels and annotations
 * (`field: metadata.labels.<key>` with `override`) onto the entry's `labels`/`annotations`
 * (docs/reference/katalog.md §3.3), which keep those keys on every CR; mutation writes `spec` only.
 * A `default` (set only when absent) or a gated rule has no counterpart and is refused at the rule.
 */
function mutationMetadata(up: Upgrader, entry: YAMLMap, base: Path): void {
  const rules = pairOf(mapAt(entry, 'mutation') ?? new YAMLMap(), 'rules')?.value;
  if (!isSeq(rules)) return;
  const items = (rules as YAMLSeq).items;
  [...items].forEach((rule, i) => {
    if (!isMap(rule)) return;
    const map = rule as YAMLMap;
    const field = scalarText(pairOf(map, 'field')?.value);
    const target = field == null ? null : /^\.?metadata\.(labels|annotations)\.(.+)$/.exec(field);
    if (target == null) return;
    const [, kind = 'labels', key = ''] = target;
    const at = [...base, 'mutation', 'rules', i];
    items.splice(items.indexOf(rule), 1);
    const override = pairOf(map, 'override');
    if (override == null || ['when', 'anyOf', 'or'].some((gate) => pairOf(map, gate) != null)) {
      up.problem(
        at,
        rule,
        `a mutation of the CR's ${kind} maps onto the entry's \`${kind}\` (kept on every CR, docs/reference/katalog.md §3.3), which always set the key: write it with \`override\` and no gate, or under \`${kind}\` yourself`,
      );
      return;
    }
    const holder = up.ensureMap(entry, kind, rule);
    if (pairOf(holder, key) != null) {
      up.problem(
        at,
        rule,
        `${kind}.${key} is written twice (here and under the entry's \`${kind}\`); keep one`,
      );
      return;
    }
    holder.items.push(new Pair(scalar(key, pairOf(map, 'field')?.value), override.value));
    up.change(at, rule, `moved to ${kind}.${key} (the entry's ${kind} are kept on every CR)`);
  });
}

function upgradeValidation(up: Upgrader, entry: YAMLMap, base: Path): void {
  const validation = mapAt(entry, 'validation');
  if (validation != null) externalProtocols(up, validation, [...base, 'validation']);
  const rules = validation == null ? undefined : pairOf(validation, 'rules')?.value;
  if (!isSeq(rules)) return;
  (rules as YAMLSeq).items.forEach((rule, i) => {
    // Upstream's validation never reads `valueType` (it types mutation values): numeric operators
    // compare numbers and the others strings, whatever it says — as here (katalog.md §12).
    if (isMap(rule) && up.upstream)
      up.drop(
        rule as YAMLMap,
        'valueType',
        [...base, 'validation', 'rules', i, 'valueType'],
        'upstream’s validation does not read it (numeric operators compare numbers, the others strings)',
      );
    if (!isMap(rule) || pairOf(rule as YAMLMap, 'message') != null) return;
    const map = rule as YAMLMap;
    const field = pairOf(map, 'field')?.value;
    const fieldText = isScalar(field)
      ? String(field.value).replace(/^\{\{\s*\.?|\s*\}\}$/g, '')
      : `rule ${i}`;
    const operators = map.items
      .map((pair) => keyOf(pair as Pair))
      .filter(
        (key): key is string => key != null && !['field', 'action', 'when', 'or', 'anyOf'].includes(key),
      );
    const message = `validation rule ${i} failed: ${fieldText}${operators.length > 0 ? ` ${operators.join(', ')}` : ' exists'}`;
    map.items.push(new Pair(scalar('message', rule), scalar(message, rule)));
    up.change([...base, 'validation', 'rules', i], rule, `added message ${JSON.stringify(message)}`);
  });
}

/**
 * upgradeDialect: the document-level pass (apiVersion, anchors and merge keys, `security`, `notification`,
 * `metadata`, `gateway`, Ready's upstream meaning) that hands each entry to upgradeEntry.
 */
import { isMap, isScalar, isSeq, Pair } from 'yaml';
import type { Document, Scalar, YAMLMap, YAMLSeq } from 'yaml';
import { expandAliases } from '../yaml-aliases.js';
import { KATALOG_API_VERSION, KATALOG_KIND, UPSTREAM_GENERATIONS } from '../metadata.js';
import type { IncludedFile } from '../positions.js';
import { dropDisabledBuiltins } from './builtin-entries.js';
import { mapDeletionProtection } from './deletion-protection.js';
import { upgradeEntry } from './entry.js';
import { readGateway } from './gateway.js';
import { upgradeMetadataDeprecation } from './lifecycle.js';
import { at, keyOf, mapAt, pairOf, scalar, takeOut } from './nodes.js';
import { expandNotes, katalogImports, readNotes } from './notes.js';
import { upgradeNotification } from './notification.js';
import { readProfiles } from './presets.js';
import { SECURITY_DROPPED, SECURITY_REFUSED } from './refusals.js';
import { Upgrader } from './upgrader.js';
import type { DialectChange, DialectProblem, UpgradeDialectOptions } from './upgrader.js';
import { mergeVersionEntries } from './version-entries.js';

/** UpgradeDialectResult lists what upgradeDialect rewrote and what it could not. */
export interface UpgradeDialectResult {
  /** Files read by `include:` and motif imports, in the order they were read. */
  readonly included: readonly IncludedFile[];
  /** The upstream generation detected (`G1`, `G2`, `G3`), or undefined for a canonical document. */
  readonly generation: 'G1' | 'G2' | 'G3' | undefined;
  /** The upstream header the document states (a row of UPSTREAM_GENERATIONS), or undefined. */
  readonly header: { readonly apiVersion: string; readonly kind: string } | undefined;
  readonly changes: readonly DialectChange[];
  readonly problems: readonly DialectProblem[];
}

/**
 * upgradeDialect rewrites an upstream Katalog document in place into the canonical layout and
 * reports each rewrite. A canonical document comes back unchanged with no changes. Keys it does not
 * know are left where they are, so the schema reports them at their own position.
 */
export function upgradeDialect(doc: Document, options: UpgradeDialectOptions): UpgradeDialectResult {
  const up = new Upgrader(options);
  const root = doc.contents;
  if (!isMap(root))
    return { generation: undefined, header: undefined, changes: [], problems: [], included: [] };
  const apiVersion = pairOf(root, 'apiVersion');
  const generation =
    apiVersion != null && isScalar(apiVersion.value)
      ? UPSTREAM_GENERATIONS.find((g) => g.apiVersion === (apiVersion.value as Scalar).value)
      : undefined;
  const upstream = generation != null;
  // Merge keys are applied for every Katalog; an upstream `anchors:` block (it only holds anchors)
  // is removed after its aliases are replaced by copies.
  up.upstream = upstream;
  const anchors = upstream ? pairOf(root, 'anchors') : undefined;
  const expanded = expandAliases(doc, { aliases: anchors != null });
  for (const problem of expanded.problems) up.problem([], at(problem.offset), problem.message);
  if (upstream && expanded.merges > 0)
    up.change([], at(expanded.firstMergeOffset ?? 0), `${expanded.merges} YAML merge keys (<<) applied`);
  if (anchors != null)
    up.drop(root, 'anchors', ['anchors'], 'it only holds YAML anchors; each alias now holds a copy');
  if (upstream && apiVersion != null) {
    up.change(
      ['apiVersion'],
      apiVersion.value,
      `${String((apiVersion.value as Scalar).value)} → ${KATALOG_API_VERSION}`,
    );
    apiVersion.value = scalar(KATALOG_API_VERSION, apiVersion.value);
    upgradeKind(up, root, generation?.kind);
    upgradeSecurity(up, root);
    upgradeNotification(up, root);
    upgradeMetadataDeprecation(up, root);
    katalogImports(up, root);
    readProfiles(up, root);
    readNotes(up, root, root, []);
    readGateway(up, root);
    up.drop(
      root,
      'gateway',
      ['gateway'],
      'upstream’s gateway (an HTTP intake for CRs) is a separate component, not part of Orkestra; reconciling is unchanged',
    );
  }
  upgradeMetadata(up, mapAt(root, 'metadata'));
  const spec = mapAt(root, 'spec');
  const crds = spec == null ? undefined : pairOf(spec, 'crds')?.value;
  if (isMap(crds) && up.upstream) dropDisabledBuiltins(up, crds as YAMLMap);
  if (isMap(crds)) {
    for (const pair of (crds as YAMLMap).items) {
      const name = keyOf(pair as Pair);
      const entry = (pair as Pair).value;
      if (name != null && isMap(entry)) upgradeEntry(up, entry as YAMLMap, ['spec', 'crds', name], options);
    }
  } else if (isSeq(crds)) {
    (crds as YAMLSeq).items.forEach((entry, i) => {
      if (isMap(entry)) upgradeEntry(up, entry as YAMLMap, ['spec', 'crds', i], options);
    });
  }
  if (up.upstream && (isMap(crds) || isSeq(crds)))
    mergeVersionEntries(up, crds as YAMLMap | YAMLSeq, ['spec', 'crds']);
  if (up.notes.size > 0 && spec != null) expandNotes(up, spec);
  if (up.changes.length > 0 && up.generation == null) up.mark('G2');
  // Upstream's Ready means "reconciled"; an upstream Katalog keeps that meaning unless it opts in
  // to child readiness by stating `readiness` itself (docs/reference/katalog.md §24, ADR 0009).
  if (up.generation != null) {
    const entries = isMap(crds)
      ? (crds as YAMLMap).items.map((pair) => [keyOf(pair as Pair), (pair as Pair).value] as const)
      : isSeq(crds)
        ? (crds as YAMLSeq).items.map((entry, i) => [i, entry] as const)
        : [];
    for (const [key, entry] of entries) {
      if (key == null || !isMap(entry) || pairOf(entry as YAMLMap, 'readiness') != null) continue;
      const value = scalar('reconciled', entry);
      up.change(
        ['spec', 'crds', key, 'readiness'],
        value,
        'readiness: reconciled (upstream meaning of Ready)',
      );
      (entry as YAMLMap).set('readiness', value);
    }
  }
  return {
    generation: up.generation,
    header: generation,
    changes: up.changes,
    problems: up.problems,
    included: up.included,
  };
}

/**
 * upgradeKind maps the document kind of a generation that spells it otherwise (Inrun's `Catalog`)
 * onto `Katalog`. Another kind is left to the schema, which names what that kind is upstream.
 */
function upgradeKind(up: Upgrader, root: YAMLMap, kind: string | undefined): void {
  const pair = pairOf(root, 'kind');
  if (pair == null || kind == null || kind === KATALOG_KIND) return;
  if (!isScalar(pair.value) || pair.value.value !== kind) return;
  up.change(['kind'], pair.value, `${kind} → ${KATALOG_KIND}`);
  pair.value = scalar(KATALOG_KIND, pair.value);
}

/**
 * upgradeSecurity maps upstream's top-level `security` block: a disabled block (`enabled: false`)
 * and the blocks whose job is done elsewhere are removed with a note; deletion protection becomes
 * `spec.deletionProtection`; conversion, when enabled, is refused with the reason; any other key is refused.
 */
function upgradeSecurity(up: Upgrader, root: YAMLMap): void {
  const pair = pairOf(root, 'security');
  if (pair == null) return;
  const security = isMap(pair.value) ? (pair.value as YAMLMap) : undefined;
  for (const item of [...(security?.items ?? [])]) {
    const key = keyOf(item as Pair);
    if (key == null || security == null) continue;
    const block = (item as Pair).value;
    const enabled = isMap(block) ? pairOf(block as YAMLMap, 'enabled')?.value : undefined;
    const off = isScalar(enabled) && (enabled.value === false || enabled.value === 'false');
    const path = ['security', key];
    if (off) up.drop(security, key, path, 'disabled (enabled: false)');
    else if (key === 'deletionProtection') mapDeletionProtection(up, root, security, item as Pair);
    else if (Object.hasOwn(SECURITY_DROPPED, key)) up.drop(security, key, path, SECURITY_DROPPED[key] ?? '');
    else {
      const reason = Object.hasOwn(SECURITY_REFUSED, key) ? `: ${SECURITY_REFUSED[key] ?? ''}` : '';
      up.problem(
        path,
        (item as Pair).key,
        `upstream key \`security.${key}\` has no counterpart in Orkestra${reason}`,
      );
      takeOut(security, item as Pair);
    }
  }
  if (security == null || security.items.length === 0) {
    takeOut(root, pair);
    up.change(['security'], pair.key, 'removed: nothing in it applies to Orkestra');
  }
}

function upgradeMetadata(up: Upgrader, metadata: YAMLMap | undefined): void {
  if (metadata == null) return;
  for (const key of ['author', 'tags', 'createdBy'] as const) {
    const pair = pairOf(metadata, key);
    if (pair == null) continue;
    const value = isSeq(pair.value)
      ? (pair.value as YAMLSeq).items.map((item) => (isScalar(item) ? String(item.value) : '')).join(',')
      : isScalar(pair.value)
        ? String(pair.value.value)
        : '';
    metadata.items.splice(metadata.items.indexOf(pair), 1);
    const annotations = up.ensureMap(metadata, 'annotations', pair.key);
    const annotation = key;
    annotations.items.push(new Pair(scalar(annotation, pair.key), scalar(value, pair.value)));
    up.change(['metadata', key], pair.key, `moved to metadata.annotations["${annotation}"]`);
  }
}

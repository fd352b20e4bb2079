/**
 * Upstream `external` calls: the protocol key and the result paths (`external.<name>.<field>` →
 * `external.<name>.json.<field>`; docs/reference/katalog.md §15.1).
 */
import { isMap, isScalar, isSeq } from 'yaml';
import type { YAMLMap, YAMLSeq } from 'yaml';
import { EXTERNAL_PROTOCOLS } from '../schema/hooks.js';
import { pairOf, takeOut, walkScalars } from './nodes.js';
import type { Path } from './nodes.js';
import { retryBackoffShorthand } from './timing.js';
import type { Upgrader } from './upgrader.js';

/** EXTERNAL_RESULT_KEYS are the keys of an external call's result (docs/reference/katalog.md §15.1). */
export const EXTERNAL_RESULT_KEYS: readonly string[] = [
  'called',
  'ok',
  'status',
  'body',
  'json',
  'headers',
  'error',
  'durationMs',
  // Protocols other than HTTP (docs/reference/katalog.md §15.1.1): upstream's scalar and full answer, and SQL rows.
  'result',
  'raw',
  'rows',
  // Protocol mongo: the matching documents and their count; protocol kafka: partitions and lag.
  'count',
  'documents',
  'partitionCount',
  'partitions',
  'lag',
];

const EXTERNAL_FIELD = new RegExp(
  `(^|[^\\w.])(\\.?external\\.[A-Za-z_][\\w-]*\\.)(?!(?:${EXTERNAL_RESULT_KEYS.join('|')})\\b)([A-Za-z_]\\w*)`,
  'g',
);

/**
 * externalJsonPaths rewrites upstream's `external.<name>.<field>` (a field of the JSON answer) to
 * the canonical `external.<name>.json.<field>` in templates and condition fields. The runtime reads
 * both; strict validation checks only the canonical path.
 */
export function externalJsonPaths(up: Upgrader, entry: YAMLMap, base: Path): void {
  walkScalars(entry, (node) => {
    if (typeof node.value !== 'string' || !node.value.includes('external.')) return;
    // Upstream's result also has `statusCode` (our `status`) and `durationSeconds` (left alone:
    // ours is `durationMs`, and strict validation names it).
    const rewritten = node.value.replace(
      EXTERNAL_FIELD,
      (all, lead: string, prefix: string, field: string) =>
        field === 'statusCode'
          ? `${lead}${prefix}status`
          : field === 'durationSeconds'
            ? all
            : `${lead}${prefix}json.${field}`,
    );
    if (rewritten === node.value) return;
    node.value = rewritten;
    up.change(
      base,
      node,
      'external.<name>.<field> (a field of the JSON answer) is written external.<name>.json.<field>, statusCode is status',
    );
  });
}

/**
 * externalProtocols handles upstream's `external[].protocol`: `http`/`https` is the default and is
 * removed; a protocol Orkestra speaks (EXTERNAL_PROTOCOLS: `prometheus`, `postgres`, `redis`,
 * `mongo`, `kafka`) is kept with its `query`, under the same name (a literal `kafka` broker list
 * written without a scheme, `broker1:9092,broker2:9092`, gains `kafka://`); any other is refused
 * with the reason, its `query` removed so it is reported once.
 */
export function externalProtocols(up: Upgrader, holder: YAMLMap, path: Path): void {
  const list = pairOf(holder, 'external')?.value;
  if (!isSeq(list)) return;
  (list as YAMLSeq).items.forEach((item, i) => {
    if (!isMap(item)) return;
    const call = item as YAMLMap;
    retryBackoffShorthand(up, call, [...path, 'external', i]);
    const pair = pairOf(call, 'protocol');
    if (pair == null) return;
    const protocol = isScalar(pair.value) ? String(pair.value.value ?? '') : '';
    const at = [...path, 'external', i, 'protocol'];
    if (protocol === 'http' || protocol === 'https') {
      up.drop(call, 'protocol', at, 'HTTP is the default protocol; the scheme is in `url`');
      return;
    }
    if (Object.hasOwn(EXTERNAL_PROTOCOLS, protocol)) {
      if (protocol === 'kafka') kafkaBrokerList(up, call, [...path, 'external', i, 'url']);
      return;
    }
    up.problem(
      at,
      pair.value,
      `upstream \`protocol: ${protocol}\` has no counterpart in Orkestra yet: external calls speak ${Object.keys(EXTERNAL_PROTOCOLS).join(', ')}; put an HTTP endpoint in front of it, or manage it through a provider (docs/reference/katalog.md §15.1.1)`,
    );
    takeOut(call, pair);
    const query = pairOf(call, 'query');
    if (query != null) takeOut(call, query);
  });
}

/** kafkaBrokerList writes upstream's bare broker list (`broker1:9092,broker2:9092`) as a `kafka://` URL. */
function kafkaBrokerList(up: Upgrader, call: YAMLMap, at: Path): void {
  const url = pairOf(call, 'url')?.value;
  if (!isScalar(url) || typeof url.value !== 'string') return;
  const text = url.value.trim();
  if (text === '' || text.includes('{{') || /^[a-z][a-z0-9+.-]*:\/\//i.test(text)) return;
  url.value = `kafka://${text}`;
  up.change(at, url, 'a Kafka broker list is written as a kafka:// URL');
}

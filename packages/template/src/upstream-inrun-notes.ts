import type { HelperDefinition } from './helpers.js';
import { isPlainMap, stringForm } from './string-form.js';

/**
 * The notes upstream's newest generation added (docs/reference/katalog.md §17.6.1, §17.6.2):
 * single-key label, annotation and status access, the gateway's serve provenance (`getServeAlias`
 * and six more), domain clean-up, `replicasReady`, and the notes
 * over what `enrich` adds to a child — `_warnings` (events), `_owner`, `_replicaSets`, `_node`,
 * `_pv`, `_pvcs`, `_backingPods`, `_lastJob`/`_lastSuccessfulJob` (cronjob), `_loadBalancerIPs` and
 * `_tlsSecrets` (ingress). Each is a pure function of its arguments with upstream's argument order
 * and results, nil-safe as upstream's: an absent object, field or enrichment gives the empty value
 * of the result's type ("", 0, false, []), never an error.
 */

type Loose = Record<string, unknown>;

const at = (value: unknown, ...keys: string[]): unknown =>
  keys.reduce<unknown>((current, key) => (isPlainMap(current) ? current[key] : undefined), value);

const mapAt = (value: unknown, ...keys: string[]): Loose => {
  const found = at(value, ...keys);
  return isPlainMap(found) ? found : {};
};

/** text is Go's `v, _ := x.(string)`: the string, or "" for anything else. */
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** listAt is Go's `x.([]interface{})`: the list as it is (items of any type), or []. */
const listAt = (value: unknown, ...keys: string[]): readonly unknown[] => {
  const found = at(value, ...keys);
  return Array.isArray(found) ? found : [];
};

/**
 * toInt64 converts as upstream's notes do: numbers truncate, booleans are 1/0, a string is a
 * decimal integer, a `0x` hexadecimal one, or a decimal number truncated; anything else is 0.
 */
export function toInt64(value: unknown): number {
  if (typeof value === 'number') return Number.isFinite(value) ? Math.trunc(value) : 0;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value !== 'string') return 0;
  const s = value.trim();
  if (/^[+-]?[0-9]+$/.test(s)) return Number(s);
  if (/^0[xX][0-9a-fA-F]+$/.test(s)) return Number.parseInt(s.slice(2), 16);
  if (/^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$/.test(s)) {
    const n = Number(s);
    return Number.isFinite(n) ? Math.trunc(n) : 0;
  }
  return 0;
}

const one = (fn: (obj: unknown) => unknown): HelperDefinition => ({
  minArgs: 1,
  maxArgs: 1,
  fn: ([obj]) => fn(obj),
});

const two = (fn: (obj: unknown, key: string) => unknown): HelperDefinition => ({
  minArgs: 2,
  maxArgs: 2,
  fn: ([obj, key]) => fn(obj, text(key)),
});

const label = (obj: unknown, key: string): string => text(mapAt(obj, 'metadata', 'labels')[key]);
const annotation = (obj: unknown, key: string): string => text(mapAt(obj, 'metadata', 'annotations')[key]);

/** joinTexts joins one string field of each map item, skipping empty values, as upstream does. */
const joinTexts = (list: readonly unknown[], field: string): string =>
  list
    .map((item) => text(at(item, field)))
    .filter((value) => value !== '')
    .join(', ');

const names = (list: readonly unknown[]): string[] =>
  list.map((item) => text(at(item, 'metadata', 'name'))).filter((name) => name !== '');

/** domainHost trims whitespace, then an `https://` and an `http://` prefix, then one trailing `/`. */
function domainHost(value: unknown): string {
  let s = text(value).trim();
  if (s.startsWith('https://')) s = s.slice('https://'.length);
  if (s.startsWith('http://')) s = s.slice('http://'.length);
  if (s.endsWith('/')) s = s.slice(0, -1);
  return s;
}

/**
 * The gateway's provenance annotations, per upstream generation: Inrun stamps `inrun.dev/serve-*`,
 * the generation before it `orkestra.orkspace.io/serve-*`. Orkestra has no gateway and stamps none,
 * so the notes read what an upstream gateway wrote on a CR (the first key set wins), and a CR
 * applied any other way is a direct apply — as upstream's notes say of it.
 */
const SERVE_ANNOTATION_PREFIXES = ['inrun.dev/serve-', 'orkestra.orkspace.io/serve-'] as const;

const serveAnnotation = (obj: unknown, what: 'target' | 'alias' | 'source'): string => {
  const annotations = mapAt(obj, 'metadata', 'annotations');
  for (const prefix of SERVE_ANNOTATION_PREFIXES) {
    const value = text(annotations[`${prefix}${what}`]);
    if (value !== '') return value;
  }
  return '';
};

/** upstreamInrunNotes returns the notes, keyed by upstream's names. */
export function upstreamInrunNotes(): Record<string, HelperDefinition> {
  return {
    // Single-key metadata access.
    getLabel: two(label),
    getLabelInt: two((obj, key) => toInt64(mapAt(obj, 'metadata', 'labels')[key])),
    hasLabel: two((obj, key) => label(obj, key) !== ''),
    getAnnotation: two(annotation),
    getAnnotationInt: two((obj, key) => toInt64(mapAt(obj, 'metadata', 'annotations')[key])),
    hasAnnotation: two((obj, key) => annotation(obj, key) !== ''),
    labelMatches: {
      minArgs: 1,
      maxArgs: Infinity,
      fn: ([obj, ...pairs]) => {
        if (pairs.length % 2 !== 0) return false;
        const labels = mapAt(obj, 'metadata', 'labels');
        for (let i = 0; i < pairs.length; i += 2) {
          const got = labels[text(pairs[i])];
          if (typeof got !== 'string' || got !== text(pairs[i + 1])) return false;
        }
        return true;
      },
    },
    // Serve provenance: the annotations upstream's gateway stamps on a CR it applies.
    getServeTarget: one((obj) => serveAnnotation(obj, 'target')),
    getServeAlias: one((obj) => serveAnnotation(obj, 'alias')),
    getServeSource: one((obj) => serveAnnotation(obj, 'source')),
    hasServeTarget: one((obj) => serveAnnotation(obj, 'target') !== ''),
    hasServeAlias: one((obj) => serveAnnotation(obj, 'alias') !== ''),
    hasServeSource: one((obj) => serveAnnotation(obj, 'source') !== ''),
    isDirectApply: one(
      (obj) =>
        serveAnnotation(obj, 'target') === '' &&
        serveAnnotation(obj, 'alias') === '' &&
        serveAnnotation(obj, 'source') === '',
    ),
    // Status access.
    getStatus: two((obj, key) => {
      const value = mapAt(obj, 'status')[key];
      if (value == null || isPlainMap(value) || Array.isArray(value)) return '';
      return stringForm(value);
    }),
    hasStatus: two((obj, key) => {
      const value = mapAt(obj, 'status')[key];
      if (value == null) return false;
      if (typeof value === 'string') return value !== '';
      if (Array.isArray(value)) return value.length > 0;
      if (isPlainMap(value)) return Object.keys(value).length > 0;
      return true;
    }),
    // Domains.
    domainHost: one(domainHost),
    domainBare: one((value) => {
      const host = domainHost(value);
      return host.startsWith('www.') ? host.slice('www.'.length) : host;
    }),
    // Replicas: spec.replicas absent or 0 counts as upstream's default of 1.
    replicasReady: one((obj) => {
      const spec = at(obj, 'spec');
      const desired = isPlainMap(spec) ? toInt64(spec['replicas']) || 1 : 1;
      return desired > 0 && toInt64(at(obj, 'status', 'readyReplicas')) >= desired;
    }),
    // Warning events, with `enrich: [events]` (`_warnings`).
    hasWarnings: one((obj) => listAt(obj, '_warnings').length > 0),
    warningCount: one((obj) => listAt(obj, '_warnings').length),
    firstWarning: one((obj) => text(at(listAt(obj, '_warnings')[0], 'message'))),
    warningMessages: one((obj) => joinTexts(listAt(obj, '_warnings'), 'message')),
    warningReasons: one((obj) => joinTexts(listAt(obj, '_warnings'), 'reason')),
    // A ReplicaSet's controller, with `enrich: [owner]` (`_owner`).
    replicaSetOwnerName: one((obj) => text(at(obj, '_owner', 'name'))),
    replicaSetOwnerKind: one((obj) => text(at(obj, '_owner', 'kind'))),
    // A Deployment's ReplicaSets, with `enrich: [replicasets]` (`_replicaSets`).
    deploymentReplicaSetCount: one((obj) => listAt(obj, '_replicaSets').length),
    deploymentReplicaSets: one((obj) => names(listAt(obj, '_replicaSets'))),
    oldDeploymentReplicaSets: one((obj) => {
      const current = text(at(obj, 'status', 'currentReplicaSet'));
      if (current === '') return [];
      return names(listAt(obj, '_replicaSets')).filter((name) => name !== current);
    }),
    // A pod's node, with `enrich: [node]` (`_node`).
    podNodeName: one((obj) => text(at(obj, '_node', 'name'))),
    podNodeZone: one((obj) => text(at(obj, '_node', 'zone'))),
    podNodeRegion: one((obj) => text(at(obj, '_node', 'region'))),
    podNodeInstanceType: one((obj) => text(at(obj, '_node', 'instanceType'))),
    // A claim's bound volume, with `enrich: [pvc]` (`_pv`).
    pvcProvisioner: one((obj) =>
      text(mapAt(obj, '_pv', 'metadata', 'annotations')['pv.kubernetes.io/provisioned-by']),
    ),
    pvcVolumeMode: one((obj) => text(at(obj, '_pv', 'spec', 'volumeMode'))),
    // A claim's StorageClass, with `enrich: [storageclass]` (`_storageClass`). Upstream reads the
    // reclaim policy at `spec.reclaimPolicy`, where a StorageClass has none: "" on real objects.
    pvcStorageClassProvisioner: one((obj) => text(at(obj, '_storageClass', 'provisioner'))),
    pvcStorageClassReclaimPolicy: one((obj) => text(at(obj, '_storageClass', 'spec', 'reclaimPolicy'))),
    // A StatefulSet's claims, with `enrich: [pvcs]` (`_pvcs`).
    statefulSetPVCCount: one((obj) => listAt(obj, '_pvcs').length),
    // A Service's pods by selector, with `enrich: [backingpods]` (`_backingPods`).
    backingPodCount: one((obj) => listAt(obj, '_backingPods').length),
    backingPodNames: one((obj) => joinTexts(listAt(obj, '_backingPods'), 'name')),
    // A CronJob's Jobs, with `enrich: [cronjob]` (`_lastJob`, `_lastSuccessfulJob`).
    cronJobLastJobName: one((obj) => text(at(obj, '_lastJob', 'metadata', 'name'))),
    cronJobLastJobSucceeded: one((obj) => toInt64(at(obj, '_lastJob', 'status', 'succeeded')) > 0),
    cronJobLastSuccessfulJobName: one((obj) => text(at(obj, '_lastSuccessfulJob', 'metadata', 'name'))),
    // An Ingress's addresses and TLS Secrets, with `enrich: [ingress]`.
    ingressLoadBalancerIPs: one((obj) =>
      listAt(obj, '_loadBalancerIPs')
        .map(text)
        .filter((ip) => ip !== '')
        .join(', '),
    ),
    ingressTLSSecretCount: one((obj) => listAt(obj, '_tlsSecrets').length),
  };
}

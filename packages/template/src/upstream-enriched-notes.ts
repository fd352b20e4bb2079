import type { HelperDefinition } from './helpers.js';
import { isPlainMap, parseDecimal } from './string-form.js';

/**
 * Upstream's notes over what `enrich` adds to a child (docs/reference/katalog.md §17.6.2): the pods
 * of a Job, Deployment, StatefulSet or ReplicaSet under `_pods` (`enrich: [pods]`) and a Service's
 * endpoints under `_endpoints` (`enrich: [endpoints]`). Each is nil-safe: without enrichment (or offline, where nothing is
 * enriched unless the script gives `_pods`/`_endpoints`) the list is empty and the note gives its
 * empty value — `""`, `0`, `false`, or `-1` for an exit code that does not exist yet.
 */

const listAt = (obj: unknown, key: string): readonly Record<string, unknown>[] => {
  const list = isPlainMap(obj) ? obj[key] : undefined;
  return Array.isArray(list) ? list.filter(isPlainMap) : [];
};

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

const int = (value: unknown, fallback: number): number => {
  const n = parseDecimal(value ?? undefined);
  return n === undefined || !Number.isFinite(n) ? fallback : Math.trunc(n);
};

const address = (endpoint: Record<string, unknown>): string => {
  const ip = text(endpoint['ip']);
  return ip === '' ? '' : `${ip}:${int(endpoint['port'], 0)}`;
};

const podNames = (obj: unknown, match: (phase: string) => boolean): string =>
  listAt(obj, '_pods')
    .filter((pod) => match(text(pod['phase'])))
    .map((pod) => text(pod['name']))
    .filter((name) => name !== '')
    .join(', ');

/** joinField joins one string field of every pod, skipping empty values (an IP not assigned yet). */
const joinField = (obj: unknown, field: string): string =>
  listAt(obj, '_pods')
    .map((pod) => text(pod[field]))
    .filter((value) => value !== '')
    .join(', ');

const containersOf = (pod: Record<string, unknown>): readonly Record<string, unknown>[] =>
  listAt(pod, 'containers');

/** hasReason reports whether a container of any pod is waiting or terminated for `reason`. */
const hasReason = (obj: unknown, reason: string): boolean =>
  listAt(obj, '_pods').some((pod) => containersOf(pod).some((c) => text(c['reason']) === reason));

/** CRASH_REASONS are the container reasons `hasCrashingPod` counts as crashing, besides restarts. */
const CRASH_REASONS = [
  'CrashLoopBackOff',
  'OOMKilled',
  'Error',
  'ImagePullBackOff',
  'ErrImagePull',
  'InvalidImageName',
  'RunContainerError',
  'CreateContainerError',
  'PreStartHookError',
  'PostStartHookError',
] as const;

/** REASON_NOTES are upstream's one-reason notes: true when any container has that reason. */
const REASON_NOTES: Readonly<Record<string, string>> = {
  podCrashLoopDetected: 'CrashLoopBackOff',
  podImagePullBackOffDetected: 'ImagePullBackOff',
  podErrImagePullDetected: 'ErrImagePull',
  podErrorDetected: 'Error',
  podOOMKilledDetected: 'OOMKilled',
  podRunContainerErrorDetected: 'RunContainerError',
  podCreateContainerErrorDetected: 'CreateContainerError',
  podInvalidImageNameDetected: 'InvalidImageName',
  podPreStartHookErrorDetected: 'PreStartHookError',
  podPostStartHookErrorDetected: 'PostStartHookError',
};

/** podAt is the `_pods` item with the ordinal (a StatefulSet's `<set>-<n>`), or undefined. */
const podAt = (obj: unknown, ordinal: unknown): Record<string, unknown> | undefined => {
  const want = int(ordinal, Number.NaN);
  return listAt(obj, '_pods').find((pod) => int(pod['ordinal'], -1) === want);
};

const one = (fn: (obj: unknown) => unknown): HelperDefinition => ({
  minArgs: 1,
  maxArgs: 1,
  fn: ([obj]) => fn(obj),
});

/** upstreamEnrichedNotes returns the notes over `_pods` and `_endpoints`, keyed by upstream's names. */
export function upstreamEnrichedNotes(): Record<string, HelperDefinition> {
  return {
    // Services, with `enrich: [endpoints]`.
    hasEndpoints: one((obj) => listAt(obj, '_endpoints').some((e) => e['ready'] === true)),
    serviceEndpoints: one((obj) =>
      listAt(obj, '_endpoints')
        .map(address)
        .filter((a) => a !== '')
        .join(', '),
    ),
    serviceEndpointCount: one((obj) => listAt(obj, '_endpoints').length),
    serviceFirstEndpoint: one((obj) => {
      const first = listAt(obj, '_endpoints')[0];
      return first == null ? '' : address(first);
    }),
    // Jobs, with `enrich: [pods]`.
    jobFirstExitCode: one((obj) => {
      for (const pod of listAt(obj, '_pods')) {
        const code = int(pod['exitCode'], -1);
        if (code >= 0) return code;
      }
      return -1;
    }),
    jobActivePodNames: one((obj) => podNames(obj, (phase) => phase !== 'Succeeded' && phase !== 'Failed')),
    jobSucceededPodNames: one((obj) => podNames(obj, (phase) => phase === 'Succeeded')),
    jobFailedPodNames: one((obj) => podNames(obj, (phase) => phase === 'Failed')),
    // Jobs, Deployments, StatefulSets and ReplicaSets, with `enrich: [pods]`.
    podNames: one((obj) => joinField(obj, 'name')),
    podIPs: one((obj) => joinField(obj, 'ip')),
    podPhases: one((obj) => joinField(obj, 'phase')),
    podNodes: one((obj) => joinField(obj, 'node')),
    podCount: one((obj) => listAt(obj, '_pods').length),
    readyPodCount: one((obj) => listAt(obj, '_pods').filter((pod) => pod['ready'] === true).length),
    podMaxRestarts: one((obj) =>
      Math.max(0, ...listAt(obj, '_pods').map((pod) => int(pod['restartCount'], 0))),
    ),
    hasCrashingPod: one(
      (obj) =>
        CRASH_REASONS.some((reason) => hasReason(obj, reason)) ||
        listAt(obj, '_pods').some((pod) => int(pod['restartCount'], 0) > 2),
    ),
    ...Object.fromEntries(
      Object.entries(REASON_NOTES).map(([name, reason]) => [name, one((obj) => hasReason(obj, reason))]),
    ),
    podContainerReasons: one((obj) =>
      [
        ...new Set(
          listAt(obj, '_pods')
            .flatMap((pod) => containersOf(pod).map((c) => text(c['reason'])))
            .filter((reason) => reason !== ''),
        ),
      ].join(', '),
    ),
    podByOrdinal: { minArgs: 2, maxArgs: 2, fn: ([obj, ordinal]) => podAt(obj, ordinal) ?? null },
    podContainerState: {
      minArgs: 3,
      maxArgs: 3,
      fn: ([obj, ordinal, container]) => {
        const pod = podAt(obj, ordinal);
        const found =
          pod == null ? undefined : containersOf(pod).find((c) => text(c['name']) === text(container));
        return found == null ? '' : text(found['state']);
      },
    },
  };
}

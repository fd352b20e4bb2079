import type { HelperDefinition } from './helpers.js';
import { isPlainMap, parseDecimal } from './string-form.js';

/**
 * Upstream's notes over what `enrich` adds to a child (docs/reference/katalog.md §17.6.2): a Job's
 * pods under `_pods` (`enrich: [pods]`) and a Service's endpoints under `_endpoints`
 * (`enrich: [endpoints]`). Each is nil-safe: without enrichment (or offline, where nothing is
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
  };
}

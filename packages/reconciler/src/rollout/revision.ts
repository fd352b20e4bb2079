/**
 * Katalog revisions (docs/reference/runtime.md §24.1): a revision is named by a hash of
 * the loaded Katalog, `spec.rollout` left out, so pausing a rollout in Git is not a new revision.
 */
import { createHash } from 'node:crypto';
import type { KubeObject } from '@orkestra/registry';
import type { Katalog } from '@orkestra/types';

/**
 * canonical is JSON with sorted keys, where an empty list or map counts as absent: a release that
 * adds a list or map defaulting to empty (a new kind list, say) leaves every revision as it was.
 */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value != null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined && !isEmpty(v))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function isEmpty(value: unknown): boolean {
  if (Array.isArray(value)) return value.length === 0;
  return value != null && typeof value === 'object' && Object.keys(value).length === 0;
}

/** katalogRevision is the 10-hex-digit revision of a loaded Katalog. */
export function katalogRevision(katalog: Katalog): string {
  const { rollout: _rollout, ...spec } = katalog.spec;
  return createHash('sha256')
    .update(canonical({ ...katalog, spec }))
    .digest('hex')
    .slice(0, 10);
}

/** RevisionLabel are the labels of revision and rollout ConfigMaps. */
export const RevisionLabel = {
  Katalog: 'orkestra.konductor.io/katalog',
  Revision: 'orkestra.konductor.io/revision',
} as const;

/** revisionObjectName is `orkestra-<katalog>-rev-<revision>`. */
export function revisionObjectName(katalogName: string, revision: string): string {
  return `orkestra-${katalogName}-rev-${revision}`;
}

/** rolloutObjectName is `orkestra-<katalog>-rollout`. */
export function rolloutObjectName(katalogName: string): string {
  return `orkestra-${katalogName}-rollout`;
}

/**
 * revisionObject is the immutable ConfigMap of a revision: the loaded Katalog as JSON (what the
 * runtime compiles after a restart) and the file as written (for people and `ork diff`).
 */
export function revisionObject(input: {
  readonly katalog: Katalog;
  readonly revision: string;
  readonly text: string;
  readonly namespace: string;
}): KubeObject {
  const name = input.katalog.metadata.name;
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: revisionObjectName(name, input.revision),
      namespace: input.namespace,
      labels: {
        'app.kubernetes.io/managed-by': 'orkestra',
        [RevisionLabel.Katalog]: name,
        [RevisionLabel.Revision]: input.revision,
      },
    },
    immutable: true,
    data: { 'katalog.json': JSON.stringify(input.katalog), 'katalog.yaml': input.text },
  };
}

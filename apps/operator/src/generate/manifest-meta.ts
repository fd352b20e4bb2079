import type { Katalog } from '@orkestra/types';

/** Manifest is a Kubernetes object written by `ork generate`: plain JSON. */
export type Manifest = Record<string, unknown> & { readonly apiVersion: string; readonly kind: string };

/** instanceLabels are the labels every generated object carries, naming the operator instance. */
export function instanceLabels(katalog: Katalog): Record<string, string> {
  return {
    'app.kubernetes.io/name': 'orkestra',
    'app.kubernetes.io/instance': katalog.metadata.name,
  };
}

/**
 * manifestMetadata builds the metadata of a generated object: its name, namespace, the Katalog's
 * `metadata.labels`/`annotations` (docs/reference/katalog.md §2.1) and the instance labels.
 */
export function manifestMetadata(
  katalog: Katalog,
  name: string,
  namespace?: string,
): Record<string, unknown> {
  const annotations = { ...katalog.metadata.annotations };
  return {
    name,
    ...(namespace == null ? {} : { namespace }),
    labels: { ...katalog.metadata.labels, ...instanceLabels(katalog) },
    ...(Object.keys(annotations).length === 0 ? {} : { annotations }),
  };
}

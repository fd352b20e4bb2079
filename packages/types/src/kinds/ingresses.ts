import { IngressEntry } from '../schema/resources.js';
import { defineResourceKind } from './resource-kind.js';

/** ingresses is the `ingresses` list: Ingress children (networking.k8s.io/v1). */
export const ingresses = defineResourceKind({
  listKey: 'ingresses',
  apiVersion: 'networking.k8s.io/v1',
  kind: 'Ingress',
  plural: 'ingresses',
  namespaced: true,
  defaultNameSuffix: '-ingress',
  wave: 5,
  entry: IngressEntry,
});

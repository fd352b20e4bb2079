import { ServiceEntry } from '../schema/resources.js';
import { defineResourceKind } from './resource-kind.js';

/** services is the `services` list: Service children (v1). */
export const services = defineResourceKind({
  listKey: 'services',
  apiVersion: 'v1',
  kind: 'Service',
  namespaced: true,
  defaultNameSuffix: '-svc',
  wave: 3,
  entry: ServiceEntry,
});

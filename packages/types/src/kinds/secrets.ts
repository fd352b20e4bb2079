import { SecretEntry } from '../schema/resources.js';
import { defineResourceKind } from './resource-kind.js';

/** secrets is the `secrets` list: Secret children (v1). */
export const secrets = defineResourceKind({
  listKey: 'secrets',
  apiVersion: 'v1',
  kind: 'Secret',
  namespaced: true,
  defaultNameSuffix: '-secret',
  wave: 3,
  entry: SecretEntry,
});

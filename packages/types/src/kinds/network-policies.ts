import { NetworkPolicyEntry } from '../schema/resources.js';
import { defineResourceKind } from './resource-kind.js';

/** networkPolicies is the `networkPolicies` list: NetworkPolicy children (networking.k8s.io/v1). */
export const networkPolicies = defineResourceKind({
  listKey: 'networkPolicies',
  apiVersion: 'networking.k8s.io/v1',
  kind: 'NetworkPolicy',
  plural: 'networkpolicies',
  namespaced: true,
  defaultNameSuffix: null,
  wave: 5,
  entry: NetworkPolicyEntry,
});

import { DeploymentEntry } from '../schema/resources.js';
import { defineResourceKind } from './resource-kind.js';

/** deployments is the `deployments` list: Deployment children (apps/v1). */
export const deployments = defineResourceKind({
  listKey: 'deployments',
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  namespaced: true,
  defaultNameSuffix: '-deployment',
  wave: 4,
  entry: DeploymentEntry,
});

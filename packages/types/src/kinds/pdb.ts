import { PdbEntry } from '../schema/resources.js';
import { defineResourceKind } from './resource-kind.js';

/** pdb is the `pdb` list: PodDisruptionBudget children (policy/v1). */
export const pdb = defineResourceKind({
  listKey: 'pdb',
  apiVersion: 'policy/v1',
  kind: 'PodDisruptionBudget',
  plural: 'poddisruptionbudgets',
  childrenKeys: { singular: 'pdb', plural: 'pdbs' },
  namespaced: true,
  defaultNameSuffix: '-pdb',
  wave: 5,
  entry: PdbEntry,
});

import type { ResourceListKey } from '@orkestra/types';
import type { KindModule } from '../kind-module.js';
import { configMaps } from './config-maps.js';
import { cronJobs } from './cron-jobs.js';
import { custom } from './custom.js';
import { deployments } from './deployments.js';
import { hpa } from './hpa.js';
import { ingresses } from './ingresses.js';
import { jobs } from './jobs.js';
import { limitRanges } from './limit-ranges.js';
import { namespaces } from './namespaces.js';
import { networkPolicies } from './network-policies.js';
import { pdb } from './pdb.js';
import { pods } from './pods.js';
import { persistentVolumeClaims } from './persistent-volume-claims.js';
import { replicaSets } from './replica-sets.js';
import { resourceQuotas } from './resource-quotas.js';
import { roleBindings } from './role-bindings.js';
import { roles } from './roles.js';
import { secrets } from './secrets.js';
import { serviceAccounts } from './service-accounts.js';
import { services } from './services.js';
import { statefulSets } from './stateful-sets.js';

/**
 * kinds is the registry: one KindModule per Katalog resource list, keyed by list key, in the
 * fixed apply order of docs/reference/katalog.md §5.4 (the order of @orkestra/types' RESOURCE_KINDS, which also
 * supplies each kind's apiVersion, kind, scope, wave and default-name suffix). Adding a kind is one
 * file and one line here.
 */
export const kinds = {
  namespaces,
  resourceQuotas,
  limitRanges,
  serviceAccounts,
  roles,
  roleBindings,
  secrets,
  configMaps,
  persistentVolumeClaims,
  services,
  deployments,
  statefulSets,
  replicaSets,
  pods,
  jobs,
  cronJobs,
  ingresses,
  hpa,
  pdb,
  networkPolicies,
  custom,
} as const satisfies Readonly<Record<ResourceListKey, KindModule>>;

/** KindListKey is a Katalog resource list key (`deployments`, `custom`, …). */
export type KindListKey = keyof typeof kinds;

/** kindFor returns the module of a list key, accepting the `pvcs` alias; undefined for unknown keys. */
export function kindFor(listKey: string): KindModule | undefined {
  const key = listKey === 'pvcs' ? 'persistentVolumeClaims' : listKey;
  return Object.hasOwn(kinds, key) ? kinds[key as KindListKey] : undefined;
}

const BY_OBJECT_KIND = new Map<string, KindModule>(
  Object.values(kinds).flatMap((module: KindModule) =>
    module.apiVersion == null || module.kind == null ? [] : [[`${module.apiVersion}/${module.kind}`, module]],
  ),
);

/**
 * kindForObject returns the module of a fixed kind by an object's `apiVersion` and `kind`, also
 * for an object written through `custom` (a v1 Secret is a Secret); undefined for other kinds.
 */
export function kindForObject(object: {
  readonly apiVersion: string;
  readonly kind: string;
}): KindModule | undefined {
  return BY_OBJECT_KIND.get(`${object.apiVersion}/${object.kind}`);
}

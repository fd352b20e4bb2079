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
import type { ResourceKind } from './resource-kind.js';

export { apiGroupOf, guessPlural } from './resource-kind.js';
import { roleBindings } from './role-bindings.js';
import { roles } from './roles.js';
import { secrets } from './secrets.js';
import { serviceAccounts } from './service-accounts.js';
import { services } from './services.js';
import { statefulSets } from './stateful-sets.js';

/**
 * KIND_TABLE registers every resource list, one line per kind, in the fixed kind order of
 * docs/reference/katalog.md §5.4 (also the order errors are reported in; waves never decrease along it). Adding a
 * kind is one file in this folder plus one line here, the one hand list of kinds; @orkestra/registry
 * adds its behaviour in one file, collected without a second list (docs/adr/0007-kind-is-one-file.md,
 * docs/adr/0062-kind-registration-derived.md).
 */
const KIND_TABLE = Object.freeze([
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
] as const);

/** KindTable is the exact type of the registered kinds, in order (for types derived per kind). */
export type KindTable = typeof KIND_TABLE;

/** ResourceListKey is a resource list key of a lifecycle group, in the fixed kind order. */
export type ResourceListKey = KindTable[number]['listKey'];

/** ResourceKindInfo describes one resource list of a lifecycle group (see {@link ResourceKind}). */
export type ResourceKindInfo = ResourceKind<ResourceListKey>;

/**
 * RESOURCE_KINDS lists every resource list of a group in the fixed kind order of docs/reference/katalog.md §5.4.
 * Secrets with `tls` default to `<cr>-orkestra-tls` instead (see {@link SECRET_TLS_DEFAULT_NAME_SUFFIX}).
 */
export const RESOURCE_KINDS: readonly ResourceKindInfo[] = KIND_TABLE;

/** RESOURCE_LIST_KEYS is the list keys of RESOURCE_KINDS, in order. */
export const RESOURCE_LIST_KEYS: readonly ResourceListKey[] = Object.freeze(
  RESOURCE_KINDS.map((info) => info.listKey),
);

/** SECRET_TLS_DEFAULT_NAME_SUFFIX is the default-name suffix of a Secret entry with `tls` (docs/reference/katalog.md §7.8). */
export const SECRET_TLS_DEFAULT_NAME_SUFFIX = '-orkestra-tls';

/** resourceKindInfo returns the RESOURCE_KINDS row of a list key. */
export function resourceKindInfo(listKey: ResourceListKey): ResourceKindInfo {
  const found = RESOURCE_KINDS.find((info) => info.listKey === listKey);
  if (found == null) throw new TypeError(`unknown resource list key ${listKey}`);
  return found;
}

/**
 * resourceKindOf returns the RESOURCE_KINDS row of a fixed kind by `apiVersion` and `kind`
 * (its plural, scope and group), or undefined for a kind the table does not know (custom kinds).
 */
export function resourceKindOf(apiVersion: string, kind: string): ResourceKindInfo | undefined {
  return RESOURCE_KINDS.find((info) => info.apiVersion === apiVersion && info.kind === kind);
}

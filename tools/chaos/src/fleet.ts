/**
 * Reads the state of every Shop in a namespace and tells which have converged: the finalizer is
 * on, Ready=True for the current generation, the ConfigMap mirrors `spec.greeting` and the `once`
 * Secret exists. Also snapshots the Secrets, so a regenerated `once` Secret can be counted.
 */
import { CoreV1Api } from '@kubernetes/client-node';
import type { KubeConfig } from '@kubernetes/client-node';
import type { ApiTypes } from '@orkestra/types';
import { configMapName, secretName, SHOP_FINALIZER } from './chaos-katalog.js';
import { crClient, isReadyAtGeneration } from './custom-resources.js';
import type { CrObject } from './custom-resources.js';

/** SecretIdentity is what makes a generated Secret "the same one": its UID and its value. */
export interface SecretIdentity {
  readonly uid: string;
  readonly value: string;
}

/** FleetState is one reading of every Shop of a namespace. */
export interface FleetState {
  readonly crs: readonly CrObject[];
  /** Names of CRs that have not converged, each with why. */
  readonly pending: readonly string[];
  /** CRs being deleted (deletionTimestamp set). */
  readonly deleting: readonly string[];
  /** Generated Secrets by name. */
  readonly secrets: ReadonlyMap<string, SecretIdentity>;
}

/** readFleet lists the Shops, ConfigMaps and Secrets of `namespace` as admin. */
export async function readFleet(
  kubeConfig: KubeConfig,
  api: ApiTypes,
  namespace: string,
): Promise<FleetState> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const [crs, configMaps, secretList] = await Promise.all([
    crClient(kubeConfig, api).list(namespace),
    core.listNamespacedConfigMap({ namespace }),
    core.listNamespacedSecret({ namespace }),
  ]);
  const greetings = new Map(configMaps.items.map((c) => [c.metadata?.name ?? '', c.data?.['greeting']]));
  const secrets = new Map<string, SecretIdentity>();
  for (const s of secretList.items) {
    secrets.set(s.metadata?.name ?? '', { uid: s.metadata?.uid ?? '', value: s.data?.['password'] ?? '' });
  }
  const pending: string[] = [];
  const deleting: string[] = [];
  for (const cr of crs) {
    const name = cr.metadata.name;
    if (cr.metadata.deletionTimestamp != null) {
      deleting.push(name);
      continue;
    }
    const why: string[] = [];
    if (!(cr.metadata.finalizers ?? []).includes(SHOP_FINALIZER)) why.push('no finalizer');
    if (!isReadyAtGeneration(cr)) why.push('not Ready at its generation');
    if (greetings.get(configMapName(name)) !== cr.spec?.['greeting']) why.push('ConfigMap differs');
    if (!secrets.has(secretName(name))) why.push('no Secret');
    if (why.length > 0) pending.push(`${name}: ${why.join(', ')}`);
  }
  return { crs, pending, deleting, secrets };
}

/**
 * regeneratedSecrets compares two snapshots and returns the names of Secrets of the first whose
 * UID or value changed, or that are missing from the second (a `once` Secret must never change,
 * and one deleted and not yet recreated is a change too).
 */
export function regeneratedSecrets(
  before: ReadonlyMap<string, SecretIdentity>,
  after: ReadonlyMap<string, SecretIdentity>,
): string[] {
  const changed: string[] = [];
  for (const [name, old] of before) {
    const now = after.get(name);
    if (now == null || now.uid !== old.uid || now.value !== old.value) changed.push(name);
  }
  return changed.sort();
}

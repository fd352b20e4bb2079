/**
 * The Katalog the chaos scenarios run: a `Shop` CR gets a ConfigMap that mirrors
 * `spec.greeting` (apply mode, so drift and conflicts are visible) and a `once` Secret with a
 * random password (so a regenerated secret is visible).
 */
import { loadKatalog, OrkestraFinalizer } from '@orkestra/types';
import type { ApiTypes, Katalog } from '@orkestra/types';

/** ChaosKatalogOptions shapes {@link chaosKatalogText}. */
export interface ChaosKatalogOptions {
  /** `metadata.name` (the Lease is `orkestra-<name>`). */
  readonly name: string;
  /** API group of the Shop CRD; unique per scenario. */
  readonly group: string;
  /** The entry's `forceConflict`. Default: not written (true). */
  readonly forceConflict?: boolean;
}

/** shopApi returns the apiTypes of the chaos Shop kind in `group`. */
export function shopApi(group: string): ApiTypes {
  return { group, version: 'v1', kind: 'Shop', plural: 'shops' };
}

/** SHOP_FINALIZER is the finalizer the runtime puts on every Shop. */
export const SHOP_FINALIZER: string = OrkestraFinalizer.Finalizer;

/** configMapName is the name of a Shop's ConfigMap child. */
export function configMapName(shop: string): string {
  return `${shop}-config`;
}

/** secretName is the name of a Shop's `once` Secret child. */
export function secretName(shop: string): string {
  return `${shop}-creds`;
}

/** chaosKatalogText returns the YAML of the chaos Katalog. */
export function chaosKatalogText(options: ChaosKatalogOptions): string {
  return `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: ${options.name}}
spec:
  crds:
    shop:
      apiTypes: {group: ${options.group}, version: v1, kind: Shop, plural: shops}
      resync: "0"${options.forceConflict == null ? '' : `\n      forceConflict: ${String(options.forceConflict)}`}
      operatorBox:
        onReconcile:
          configMaps:
            - name: "{{ metadata.name }}-config"
              data: {greeting: "{{ spec.greeting }}"}
          secrets:
            - name: "{{ metadata.name }}-creds"
              once: true
              data: {password: "{{ randomAlphanumeric 32 }}"}
`;
}

/** loadKatalogText loads Katalog YAML or throws with every issue. */
export function loadKatalogText(text: string): Katalog {
  const result = loadKatalog({ text });
  if (!result.ok) throw new Error(result.errors.map((e) => `${e.path}: ${e.message}`).join('\n'));
  return result.katalog;
}

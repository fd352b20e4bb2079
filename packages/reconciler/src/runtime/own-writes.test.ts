import { describe, expect, it } from 'vitest';
import { loadKatalogOrThrow } from '@orkestra/types';
import { compileKatalog } from './compile-katalog.js';
import { readsOwnWrites } from './own-writes.js';

const entry = (reconcile: string, extra = ''): string => `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: { name: t }
spec:
  crds:
    app:
      apiTypes: { group: t.example.com, version: v1, kind: App, plural: apps }
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec: { type: object, x-kubernetes-preserve-unknown-fields: true }
            status: { type: object, x-kubernetes-preserve-unknown-fields: true }
${extra}      operatorBox:
        onReconcile:
${reconcile}`;

const crdOf = (text: string) => {
  const crd = compileKatalog(loadKatalogOrThrow({ text, file: 'k.yaml' })).crds.get('app');
  if (crd == null) throw new Error('no entry');
  return crd;
};

const configMap = (value: string): string => `          configMaps:
            - name: '{{ metadata.name }}-config'
              data: { v: '${value}' }
`;

describe('readsOwnWrites', () => {
  it('is false when templates read only the spec, the name, namespace, uid and labels', () => {
    expect(
      readsOwnWrites(
        crdOf(entry(configMap('{{ spec.message }} {{ metadata.namespace }} {{ metadata.labels.a }}'))),
      ),
    ).toBe(false);
  });

  it('is true when a template reads the status, annotations or the whole metadata', () => {
    expect(readsOwnWrites(crdOf(entry(configMap('{{ status.phase }}'))))).toBe(true);
    expect(readsOwnWrites(crdOf(entry(configMap('{{ metadata.annotations.x }}'))))).toBe(true);
    expect(readsOwnWrites(crdOf(entry(configMap('{{ toJson metadata }}'))))).toBe(true);
  });

  it('is true when the entry has a hook, whose results are written back to the CR', () => {
    const external = `      operatorBox:
        external:
          - name: price
            url: https://example.com/price
`;
    const text = entry(configMap('{{ spec.message }}')).replace('      operatorBox:\n', external);
    expect(readsOwnWrites(crdOf(text))).toBe(true);
  });
});

import { loadKatalogOrThrow } from '@orkestra/types';
import { renderTemplate } from '@orkestra/template';
import { describe, expect, it } from 'vitest';
import { compileKatalog } from './compile-katalog.js';
import { buildDesiredSet } from './desired-set.js';

/** ENTRY is a Katalog with one entry, `website`; the entry's own keys follow it. */
const ENTRY = `
apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: t}
spec:
  crds:
    website:
      apiTypes: {group: a.example.com, version: v1, kind: Website, plural: websites}
`;

const katalog = loadKatalogOrThrow({
  text: `${ENTRY}      restrictedNamespaces: ["kube-*"]
      allowedNamespaces: [web, "kube-*"]
      operatorBox:
        onCreate:
          configMaps:
            - {name: "{{ metadata.name }}-seed", data: {a: "1"}}
        onReconcile:
          configMaps:
            - name: "{{ metadata.name }}-{{ item }}"
              forEach: {field: spec.regions}
              data: {region: "{{ item }}"}
            - name: "{{ metadata.name }}-extra"
              when: [{field: spec.extra, equals: "true"}]
              namespace: "{{ spec.target }}"
          deployments:
            - {image: "{{ spec.image }}"}
          hpa:
            - {maxReplicas: 3}
`,
});

const crd = compileKatalog(katalog).crds.get('website');
const owner = {
  apiVersion: 'a.example.com/v1',
  kind: 'Website',
  name: 'shop',
  namespace: 'web',
  uid: 'u-1',
  crd: 'website',
};

function build(spec: Record<string, unknown>) {
  if (crd == null) throw new Error('entry missing');
  return buildDesiredSet({
    crd,
    owner,
    context: { metadata: { name: 'shop', namespace: 'web' }, spec },
    conditions: { renderTemplate: (source, context) => renderTemplate(source, context) },
    customScope: () => undefined,
    blockedReason: (namespace) =>
      namespace.startsWith('kube-') ? `namespace ${namespace} is restricted` : undefined,
  });
}

/** buildWith builds the desired set of an entry with the given operatorBox (no namespace guard but `kube-*`). */
function buildWith(box: string) {
  const compiled = compileKatalog(
    loadKatalogOrThrow({ text: `${ENTRY}      restrictedNamespaces: ["kube-*"]\n      operatorBox:${box}` }),
  ).crds.get('website');
  if (compiled == null) throw new Error('entry missing');
  return buildDesiredSet({
    crd: compiled,
    owner,
    context: { metadata: { name: 'shop', namespace: 'web' }, spec: {} },
    conditions: { renderTemplate: (source, context) => renderTemplate(source, context) },
    customScope: () => false,
    blockedReason: (namespace) => (namespace.startsWith('kube-') ? `${namespace} is restricted` : undefined),
  });
}

describe('buildDesiredSet', () => {
  it('expands forEach, evaluates gates per copy, and keeps kind order with modes', () => {
    const set = build({ regions: ['eu', 'us'], image: 'nginx' });
    expect(set.groups.onCreate.map((c) => `${c.ref.name}:${c.mode}`)).toEqual(['shop-seed:create']);
    expect(set.groups.onReconcile.map((c) => `${c.ref.kind}/${c.ref.name}:${c.mode}`)).toEqual([
      'ConfigMap/shop-eu:apply',
      'ConfigMap/shop-us:apply',
      'Deployment/shop-deployment:apply',
      'HorizontalPodAutoscaler/shop-hpa:apply',
    ]);
    expect(set.ids.size).toBe(5);
  });

  it('leaves replicas out of a Deployment targeted by the hpa', () => {
    const set = build({ regions: [], image: 'nginx' });
    const deployment = set.groups.onReconcile.find((c) => c.ref.kind === 'Deployment');
    expect((deployment?.manifest['spec'] as Record<string, unknown>)['replicas']).toBeUndefined();
  });

  it('defaults services, ingresses and hpa to the only workload and the only service their kinds name', () => {
    const set = buildWith(`
        onReconcile:
          statefulSets:
            - {image: db, port: 5432}
          services:
            - {ports: [{name: sql, port: 5432}, {name: admin, port: 8080}]}
          ingresses:
            - {host: shop.example.com}
          hpa:
            - {maxReplicas: 3}
`);
    const byKind = (kind: string) => set.groups.onReconcile.find((c) => c.ref.kind === kind)?.manifest;
    const statefulSet = byKind('StatefulSet');
    expect((statefulSet?.['spec'] as Record<string, unknown>)['replicas']).toBeUndefined();
    const selector = (byKind('Service')?.['spec'] as { selector: Record<string, string> }).selector;
    expect(selector['orkestra.konductor.io/child']).toBe('shop');
    expect(JSON.stringify(byKind('Ingress'))).toContain('"name":"shop-svc","port":{"number":5432}');
    const target = (byKind('HorizontalPodAutoscaler')?.['spec'] as Record<string, unknown>)['scaleTargetRef'];
    expect((target as Record<string, unknown>)['name']).toBe('shop');
  });

  it('guards a Namespace child by its own name, also when written through custom', () => {
    const set = buildWith(`
        onReconcile:
          namespaces:
            - {name: kube-a}
          custom:
            - {apiVersion: v1, kind: Namespace, metadata: {name: kube-b}}
`);
    expect(set.blocked.map((b) => b.ref.name)).toEqual(['kube-a', 'kube-b']);
  });

  it('reports children in a blocked namespace instead of writing them', () => {
    const set = build({ regions: [], image: 'nginx', extra: 'true', target: 'kube-system' });
    expect(set.blocked.map((b) => `${b.ref.namespace}/${b.ref.name}`)).toEqual(['kube-system/shop-extra']);
    expect([...set.ids].some((id) => id.includes('shop-extra'))).toBe(false);
  });

  it('keeps the onReconcile child when onCreate and onReconcile render the same object', () => {
    const both = compileKatalog(
      loadKatalogOrThrow({
        text: `${ENTRY}      operatorBox:
        onCreate:
          configMaps:
            - {name: "{{ metadata.name }}-config", data: {from: create}}
        onReconcile:
          configMaps:
            - {name: "{{ metadata.name }}-config", data: {from: reconcile}}
`,
      }),
    ).crds.get('website');
    if (both == null) throw new Error('no entry');
    const set = buildDesiredSet({
      crd: both,
      owner,
      context: { metadata: { name: 'shop', namespace: 'web' }, spec: {} },
      conditions: { renderTemplate: (source, context) => renderTemplate(source, context) },
      customScope: () => undefined,
      blockedReason: () => undefined,
    });
    expect(set.groups.onCreate).toEqual([]);
    expect(set.groups.onReconcile.map((c) => c.manifest['data'])).toEqual([{ from: 'reconcile' }]);
  });

  it('fails with DuplicateChild when two passing entries render the same object', () => {
    expect(() => build({ regions: ['extra'], image: 'nginx', extra: 'true' })).toThrow(
      expect.objectContaining({ code: 'DuplicateChild', retryable: false }),
    );
  });
});

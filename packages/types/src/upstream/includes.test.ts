import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { load, ok } from './dialect-fixtures.test-support.js';

/**
 * Upstream dialects, one test per mapping. Every fixture is written here from upstream's
 * documentation and type definitions (pkg/types of orkspace/orkestra and inrundev/inrun), not
 * copied from upstream files.
 */

describe('crdFile', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ork-dialect-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(
    join(dir, 'crd.yaml'),
    `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.demo.example.io}
spec:
  group: demo.example.io
  scope: Cluster
  names: {kind: Gadget, plural: gadgets, singular: gadget}
  versions:
    - name: v1beta1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec: {type: object, properties: {size: {type: integer}}}
`,
  );
  const text = `apiVersion: orkestra.orkspace.io/v1
kind: Katalog
metadata:
  name: demo
spec:
  crds:
    gadget:
      crdFile: ./crd.yaml
      crFiles: [./cr.yaml]
      endpoints: {status: true}
`;

  it('reads apiTypes, schema and scope from the CRD next to the Katalog', () => {
    const result = ok(load(text, dir));
    const entry = result.katalog.spec.crds['gadget'];
    expect(entry?.apiTypes).toEqual({
      group: 'demo.example.io',
      version: 'v1beta1',
      kind: 'Gadget',
      plural: 'gadgets',
      singular: 'gadget',
    });
    expect(entry?.namespaced).toBe(false);
    expect(entry?.schema?.openAPIV3Schema).toMatchObject({ type: 'object' });
  });

  it('reports a missing CRD file at the crdFile line', () => {
    const result = load(text.replace('./crd.yaml', './nope.yaml'), dir);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.find((e) => e.message.includes('cannot read crdFile'))).toMatchObject({ line: 8 });
  });
});

describe('include: and motif imports', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ork-include-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(
    join(dir, 'rules.yaml'),
    'rules:\n  - field: spec.image\n    operator: exists\n    message: image is required\n',
  );
  writeFileSync(join(dir, 'status.yaml'), 'fields:\n  - path: phase\n    value: Running\n');
  writeFileSync(
    join(dir, 'motif.yaml'),
    `apiVersion: orkestra.orkspace.io/v1
kind: Motif
metadata: {name: worker}
inputs:
  - name: image
    required: true
  - name: replicas
    default: "2"
resources:
  deployments:
    - name: "{{ .metadata.name }}-worker"
      image: '{{ index .inputs "image" }}'
      replicas: "{{ .inputs.replicas }}"
status:
  fields:
    - path: workers
      value: '{{ index .inputs "replicas" }}'
`,
  );
  writeFileSync(join(dir, 'broken.yaml'), 'resources:\n  deployments:\n    - name: x\n      imagee: nginx\n');
  const text = (imports: string): string => `apiVersion: orkestra.orkspace.io/v1
kind: Katalog
metadata: {name: demo}
spec:
  crds:
    website:
      apiTypes: {group: demo.example.io, version: v1alpha1, kind: Website, plural: websites}
      admission:
        validation:
          include: ./rules.yaml
      operatorBox:
        reconcile:
          imports:
${imports}
        emit:
          status:
            include: ./status.yaml
`;

  it('inlines included rules and fields, and imports a motif with its inputs', () => {
    const result = ok(
      load(text('            - motif: ./motif.yaml\n              with: {image: "nginx:1.27"}'), dir),
    );
    const entry = result.katalog.spec.crds['website'];
    expect(entry?.validation?.rules[0]?.message).toBe('image is required');
    expect(entry?.operatorBox.status.fields.map((f) => f.path)).toEqual(['phase', 'workers']);
    expect(entry?.operatorBox.status.fields[1]?.value).toBe('2');
    const deployment = entry?.operatorBox.onReconcile.deployments[0];
    expect(deployment).toMatchObject({
      name: '{{ .metadata.name }}-worker',
      image: 'nginx:1.27',
      replicas: '2',
    });
  });

  it('refuses an import that misses a required input', () => {
    const result = load(text('            - motif: ./motif.yaml'), dir);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors[0]?.message).toBe(
      'motif ./motif.yaml needs input `image` (required); give it under `with:`',
    );
  });

  it('points an error in an imported motif at the motif file', () => {
    const result = load(text('            - motif: ./broken.yaml'), dir);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const typo = result.errors.find((e) => e.message.includes('imagee'));
    // Shown beside the Katalog, like the Katalog's own path (not relative to its folder).
    expect(typo).toMatchObject({ file: join(dir, 'broken.yaml'), line: 4, column: 7 });
    expect(result.errors.every((e) => e.file === join(dir, 'broken.yaml'))).toBe(true);
  });
});

import { describe, expect, it } from 'vitest';
import { migrateKatalog } from './migrate.js';
import type { LoadKatalogResult } from '../load-katalog.js';
import { head, ok, load } from './dialect-fixtures.test-support.js';

/**
 * Upstream dialects, one test per mapping. Every fixture is written here from upstream's
 * documentation and type definitions (pkg/types of orkspace/orkestra and inrundev/inrun), not
 * copied from upstream files.
 */

describe('G1: the entry-level reconciler block', () => {
  const g1 = `${head()}      reconciler:
        default: true
        finalizers: [demo.example.io/cleanup]
        onCreate:
          configMaps:
            - name: "{{ .metadata.name }}-config"
              data:
                mode: production
        onReconcile:
          deployments:
            - name: "{{ .metadata.name }}"
              image: nginx
        onDelete:
          jobs:
            - name: "{{ .metadata.name }}-cleanup"
              image: busybox
        status:
          fields:
            - path: phase
              value: Running
`;

  it('maps finalizers, onCreate, onReconcile, onDelete and status onto the operatorBox', () => {
    const result = ok(load(g1));
    const box = result.katalog.spec.crds['website']?.operatorBox;
    expect(box?.finalizers).toEqual(['demo.example.io/cleanup']);
    expect(box?.onCreate.configMaps[0]?.name).toBe('{{ .metadata.name }}-config');
    expect(box?.onReconcile.deployments[0]?.image).toBe('nginx');
    expect(box?.onDelete?.jobs[0]?.image).toBe('busybox');
    expect(box?.status.fields[0]).toMatchObject({ path: 'phase', value: 'Running' });
    expect(result.warnings[0]?.message).toMatch(/G1 layout/);
  });

  it('points an error inside the moved block at the line the user wrote', () => {
    const bad = g1.replace(
      '              image: nginx\n',
      '              image: nginx\n              replicaz: 2\n',
    );
    const result = load(bad);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const line = bad.split('\n').findIndex((l) => l.includes('replicaz')) + 1;
    expect(result.errors[0]).toMatchObject({ file: 'katalog.yaml', line, column: 15 });
    expect(result.errors[0]?.message).toMatch(/unknown key `replicaz`/);
  });

  it('refuses default: false (a custom Go reconciler) at its position', () => {
    const result = load(g1.replace('default: true', 'default: false'));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors[0]).toMatchObject({ line: 14, path: 'spec.crds.website.reconciler.default' });
    expect(result.errors[0]?.message).toMatch(/custom Go reconciler/);
  });

  it('refuses Go hooks with what to use instead', () => {
    const result = load(
      g1.replace(
        '        default: true\n',
        '        hooks:\n          location: github.com/acme/hooks\n          function: Hooks\n',
      ),
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors[0]?.message).toMatch(/`hooks.location` names Go code/);
  });
});

describe('G2: the flat operatorBox', () => {
  const g2 = `${head()}      operatorBox:
        default: true
        reconciler:
          workers: 5
          resync: 15s
          queue:
            maxQueueDepth: 200
            failureThreshold: 3
        autoscale:
          workers: {min: 1, max: 8}
        onReconcile:
          deployments:
            - name: "{{ .metadata.name }}"
              image: nginx
`;

  it('moves reconciler workers/resync/queue and autoscale to the entry, renames maxQueueDepth', () => {
    const result = ok(load(g2));
    const entry = result.katalog.spec.crds['website'];
    expect(entry?.workers).toBe(5);
    expect(entry?.resync).toBe('15s');
    expect(entry?.queue.maxDepth).toBe(200);
    expect(entry?.autoscale).toBeDefined();
  });

  it('reads queue.degradeThreshold (failed reconciles in a row before the entry is degraded) and refuses a negative one at its key', () => {
    const text = g2.replace('            failureThreshold: 3\n', '            degradeThreshold: 4\n');
    expect(ok(load(text)).katalog.spec.crds['website']?.queue.degradeThreshold).toBe(4);
    // Unset, it is 0: the first failure degrades the entry, as before.
    expect(ok(load(g2)).katalog.spec.crds['website']?.queue.degradeThreshold).toBeUndefined(); // no default written in: revisions stay as before the key (runtime.md §24.1)
    const negative = load(text.replace('degradeThreshold: 4', 'degradeThreshold: -1'));
    expect(negative.ok).toBe(false);
    if (negative.ok) return;
    expect(negative.errors[0]).toMatchObject({
      path: expect.stringContaining('queue.degradeThreshold'),
      line: text.split('\n').findIndex((l) => l.includes('degradeThreshold')) + 1,
    });
    // A fraction (upstream's field is an integer, so upstream refuses it as well).
    const fraction = load(text.replace('degradeThreshold: 4', 'degradeThreshold: 0.5'));
    expect(fraction.ok ? [] : fraction.errors.map((e) => e.message)).toEqual([
      expect.stringContaining('upstream refuses a fraction too'),
    ]);
  });

  it('accepts a resync of 1 s but not below', () => {
    ok(load(g2.replace('15s', '1s')));
    const result = load(g2.replace('15s', '500ms'));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors[0]?.message).toBe('resync must be 0 or at least 1s, got 500ms');
    expect(result.errors[0]?.line).toBe(g2.split('\n').findIndex((l) => l.includes('resync')) + 1);
  });
});

describe('G3: reconcile, runtime, emit and admission', () => {
  const g3 = `${head()}      admission:
        validation:
          rules:
            - field: spec.image
              operator: exists
        mutation:
          mutateFirst: true
          rules:
            - field: spec.replicas
              default: 1
      operatorBox:
        reconcile:
          workers: 2
          forceConflict: false
          onReconcile:
            services:
              - name: "{{ .metadata.name }}"
                port: 80
        runtime:
          finalizers: [demo.example.io/finalizer]
          allowedNamespaces: [team-a]
        emit:
          status:
            fields:
              - path: phase
                value: Ready
`;

  it('maps every block onto the canonical model', () => {
    const result = ok(load(g3));
    const entry = result.katalog.spec.crds['website'];
    expect(entry?.workers).toBe(2);
    expect(entry?.forceConflict).toBe(false);
    expect(entry?.allowedNamespaces).toEqual(['team-a']);
    expect(entry?.operatorBox.finalizers).toEqual(['demo.example.io/finalizer']);
    expect(entry?.operatorBox.onReconcile.services[0]?.name).toBe('{{ .metadata.name }}');
    expect(entry?.operatorBox.status.fields[0]?.value).toBe('Ready');
    expect(entry?.mutation?.rules[0]).toMatchObject({ field: 'spec.replicas', default: 1 });
    expect(result.warnings[0]?.message).toMatch(/G3 layout/);
  });

  it('generates a message that names the rule for a validation rule without one', () => {
    const result = ok(load(g3));
    expect(result.katalog.spec.crds['website']?.validation?.rules[0]?.message).toBe(
      'validation rule 0 failed: spec.image operator',
    );
  });

  it('maps emit.events onto the entry’s events (katalog.md §20.5)', () => {
    const withEvents = g3.replace(
      '        emit:\n',
      '        emit:\n          events:\n            ready: {type: Normal, reason: Ready, message: ok}\n',
    );
    const entry = ok(load(withEvents)).katalog.spec.crds['website'];
    expect(entry?.events?.['ready']).toMatchObject({ type: 'Normal', reason: 'Ready', message: 'ok' });
  });
});

describe('upstream entry keys: labels, namespace, mode, serve, queue and presets', () => {
  const lineOf = (text: string, needle: string): number =>
    text.split('\n').findIndex((l) => l.includes(needle)) + 1;
  const errors = (result: LoadKatalogResult) => (result.ok ? [] : result.errors);

  it('keeps entry labels and annotations for the CR itself, a {key, value} list read as a map', () => {
    const text = `${head()}      labels:
        - key: team
          value: "{{ .spec.team }}"
      annotations: {owner: platform}
`;
    const entry = ok(load(text)).katalog.spec.crds['website'];
    expect(entry?.labels).toEqual({ team: '{{ .spec.team }}' });
    expect(entry?.annotations).toEqual({ owner: 'platform' });
    expect(migrateKatalog(text).changes).toContainEqual(
      expect.objectContaining({ path: 'spec.crds.website.labels', line: lineOf(text, 'labels:') }),
    );
    const reserved = `${head()}      labels: {orkestra.konductor.io/owner: x}\n`;
    expect(errors(load(reserved))[0]?.message).toContain('reserved for Orkestra');
  });

  it('maps an entry namespace onto allowedNamespaces, and refuses one that allowedNamespaces excludes', () => {
    const text = `${head()}      namespace: shop\n`;
    const entry = ok(load(text)).katalog.spec.crds['website'];
    expect(entry?.allowedNamespaces).toEqual(['shop']);
    expect(migrateKatalog(text).changes).toContainEqual(
      expect.objectContaining({ path: 'spec.crds.website.namespace', line: lineOf(text, 'namespace: shop') }),
    );
    const same = `${head()}      namespace: shop\n      allowedNamespaces: [shop, web]\n`;
    expect(ok(load(same)).katalog.spec.crds['website']?.allowedNamespaces).toEqual(['shop', 'web']);
    const clash = `${head()}      namespace: shop\n      allowedNamespaces: [web]\n`;
    expect(errors(load(clash)).find((e) => e.path === 'spec.crds.website.namespace')).toMatchObject({
      line: lineOf(clash, 'namespace: shop'),
      message: expect.stringContaining('conflicts with allowedNamespaces'),
    });
    const templated = `${head()}      namespace: "{{ .spec.ns }}"\n`;
    expect(errors(load(templated)).find((e) => e.path === 'spec.crds.website.namespace')?.message).toContain(
      'literal namespace',
    );
  });

  it('drops mode, serve, queue.shared and sleep with a note, and refuses an enrich target and presets with reasons', () => {
    const text = `${head()}      mode: dynamic
      serve: {enabled: true}
      queue: {shared: false, maxDepth: 10}
      labels: {app: web}
      enrich: [ingress]
      operatorBox:
        onCreate:
          deployments:
            - image: nginx
              sleep: 2s
              resources: {profile: mega}
`;
    const migrated = migrateKatalog(text);
    const dropped = migrated.changes.map((c) => c.path);
    expect(dropped).toEqual(
      expect.arrayContaining([
        'spec.crds.website.mode',
        'spec.crds.website.serve',
        'spec.crds.website.queue.shared',
        'spec.crds.website.operatorBox.onCreate.deployments[0].sleep',
      ]),
    );
    const found = errors(load(text));
    const at = (path: string) => found.find((e) => e.path === path);
    expect(at('spec.crds.website.labels')).toBeUndefined();
    expect(at('spec.crds.website.enrich[0]')?.line).toBe(lineOf(text, 'enrich:'));
    expect(at('spec.crds.website.operatorBox.onCreate.deployments[0].resources.profile')).toMatchObject({
      line: lineOf(text, 'profile: mega'),
      message: expect.stringContaining('requests'),
    });
    expect(found.some((e) => e.message.startsWith('unknown key'))).toBe(false);
  });
});

describe('entry-level keys upstream writes onto the CR or serves as a webhook', () => {
  const lineOf = (text: string, needle: string): number =>
    text.split('\n').findIndex((l) => l.includes(needle)) + 1;

  it('loads conversion (storageVersion and template paths) under its own key names, beside entry annotations', () => {
    const text = `${head()}      annotations:
        team: "{{ .spec.team }}"
      conversion:
        storageVersion: v1
        updateCRD: true
        paths:
          - from: v1alpha1
            to: v1
            spec: {image: "{{ .spec.image }}"}
          - from: v1
            to: v1alpha1
            spec: {image: "{{ .spec.image }}"}
`;
    const entry = ok(load(text)).katalog.spec.crds['website'];
    expect(entry?.conversion?.storageVersion).toBe('v1');
    expect(entry?.conversion?.paths.map((p) => `${p.from}>${p.to}`)).toEqual(['v1alpha1>v1', 'v1>v1alpha1']);
    expect(entry?.annotations).toEqual({ team: '{{ .spec.team }}' });
  });

  it('refuses a template path without its way back, at conversion.paths (a template has no inverse)', () => {
    const text = `${head()}      conversion:
        storageVersion: v1
        paths:
          - from: v1alpha1
            to: v1
            spec: {image: "{{ .spec.image }}"}
`;
    const result = load(text);
    const found = result.ok ? [] : result.errors;
    expect(found.map((e) => [e.path, e.line])).toEqual([
      ['spec.crds.website.conversion.paths', lineOf(text, '- from: v1alpha1')],
    ]);
    expect(found[0]?.message).toContain('no conversion path v1 → v1alpha1');
  });
});

describe('upstream’s one-way conversion paths', () => {
  const lineOf = (text: string, needle: string): number =>
    text.split('\n').findIndex((line) => line.includes(needle)) + 1;
  const text = `${head()}      conversion:
        storageVersion: v1
        paths:
          - {from: v1alpha1, to: v1, spec: {image: "{{ .spec.image }}"}}
          - {from: v1, to: v1alpha1, spec: {image: "{{ .spec.image }}"}}
          - {from: v1beta1, to: v1, spec: {image: "{{ .spec.image }}"}}
`;

  it('declares the direction upstream leaves out refuse: true, with a note, as its webhook fails it', () => {
    const entry = ok(load(text)).katalog.spec.crds['website'];
    expect(entry?.conversion?.paths.map((p) => [p.from, p.to, p.refuse])).toEqual([
      ['v1alpha1', 'v1', undefined],
      ['v1', 'v1alpha1', undefined],
      ['v1beta1', 'v1', undefined],
      ['v1', 'v1beta1', true],
    ]);
    const migrated = migrateKatalog(text);
    expect(migrated.text).toContain('- { from: v1, to: v1beta1, refuse: true }');
    expect(
      migrated.changes.filter((c) => c.path.includes('conversion.paths')).map((c) => [c.path, c.line]),
    ).toEqual([['spec.crds.website.conversion.paths[3]', lineOf(text, 'paths:')]]);
  });

  it('leaves a native Katalog’s missing direction refused', () => {
    const native = text.replace(
      'apiVersion: orkestra.orkspace.io/v1',
      'apiVersion: orkestra.konductor.io/v1alpha1',
    );
    const result = load(native);
    expect(result.ok ? [] : result.errors.map((e) => e.message)).toEqual([
      expect.stringContaining('no conversion path v1 → v1beta1'),
    ]);
  });
});

describe('upstream mutation of the CR’s labels and annotations', () => {
  const katalog = (rules: string) =>
    head().replace('      apiTypes:', `      mutation:\n        rules:\n${rules}      apiTypes:`);

  it('moves an override of metadata.labels.<key> to the entry’s labels, kept on every CR', () => {
    const entry = ok(
      load(
        katalog(
          '          - {field: spec.replicas, default: "2"}\n          - {field: metadata.labels.managed-by, override: orkestra}\n          - {field: metadata.annotations.owner, override: "{{ .spec.team }}"}\n',
        ),
      ),
    ).katalog.spec.crds['website'];
    expect(entry?.labels).toEqual({ 'managed-by': 'orkestra' });
    expect(entry?.annotations).toEqual({ owner: '{{ .spec.team }}' });
    expect(entry?.mutation?.rules.map((rule) => rule.field)).toEqual(['spec.replicas']);
  });

  it('refuses a default or a gated rule on a label, naming the override form', () => {
    const result = load(
      katalog(
        '          - {field: metadata.labels.tier, default: basic}\n          - {field: metadata.labels.team, override: a, when: [{field: spec.a, exists: true}]}\n',
      ),
    );
    const found = result.ok ? [] : result.errors.map((e) => `${e.path}: ${e.message}`);
    expect(found).toEqual([
      expect.stringMatching(
        /mutation\.rules\[0\]: a mutation of the CR's labels .*write it with `override` and no gate/,
      ),
      expect.stringMatching(/mutation\.rules\[1\]: a mutation of the CR's labels/),
    ]);
  });
});

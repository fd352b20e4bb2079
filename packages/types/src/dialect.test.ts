import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { migrateKatalog } from './dialect.js';
import { loadKatalog } from './load-katalog.js';
import type { LoadKatalogResult } from './load-katalog.js';

/**
 * Upstream dialects, one test per mapping. Every fixture is written here from upstream's
 * documentation and type definitions (pkg/types of orkspace/orkestra and inrundev/inrun), not
 * copied from upstream files.
 */

const head = (apiVersion = 'orkestra.orkspace.io/v1'): string => `apiVersion: ${apiVersion}
kind: Katalog
metadata:
  name: demo
spec:
  crds:
    website:
      apiTypes:
        group: demo.example.io
        version: v1alpha1
        kind: Website
        plural: websites
`;

function ok(result: LoadKatalogResult) {
  if (!result.ok)
    throw new Error(result.errors.map((e) => `${e.line}:${e.column} ${e.path}: ${e.message}`).join('\n'));
  return result;
}

const load = (text: string, baseDir?: string) =>
  loadKatalog({ text, file: 'katalog.yaml' }, baseDir === undefined ? {} : { baseDir });

describe('upstream apiVersions', () => {
  for (const apiVersion of [
    'orkestra.orkspace.io/v1',
    'orkestra.konductor.io/v1Alpha',
    'controller.orkestra.io/v1',
  ]) {
    it(`accepts ${apiVersion} and notes once that ork migrate converts it`, () => {
      const result = ok(load(head(apiVersion)));
      expect(result.katalog.apiVersion).toBe('orkestra.konductor.io/v1alpha1');
      const notes = result.warnings.filter((w) => w.message.includes('ork migrate'));
      expect(notes).toHaveLength(1);
      expect(notes[0]).toMatchObject({ line: 1, column: 13 });
    });
  }

  it('reads the oldest generation’s critical, apiTypes.list and apiTypes.apiPath', () => {
    const text = head('controller.orkestra.io/v1')
      .replace('    website:\n', '    website:\n      critical: true\n')
      .replace(
        '        plural: websites\n',
        '        plural: websites\n        list: WebsiteList\n        apiPath: /apis\n',
      );
    const result = ok(load(text));
    expect(result.katalog.spec.crds['website']?.apiTypes).toMatchObject({
      kind: 'Website',
      plural: 'websites',
    });
    const core = load(text.replace('apiPath: /apis', 'apiPath: /api'));
    expect(core.ok ? [] : core.errors.map((e) => `${e.path}: ${e.message}`)).toEqual([
      expect.stringMatching(/^spec\.crds\.website\.apiTypes\.apiPath: .*names a built-in kind/),
    ]);
  });

  it('still refuses an unknown apiVersion, naming the one a typo is nearest', () => {
    const result = load(head('orkestra.example.io/v9'));
    expect(result.ok).toBe(false);
    const typo = load(head('orkestra.konductor.io/v1Aplha'));
    expect(typo.ok ? '' : typo.errors[0]?.message).toContain('did you mean orkestra.konductor.io/v1Alpha?');
  });

  it('gives a canonical Katalog no note', () => {
    const result = ok(load(head('orkestra.konductor.io/v1alpha1')));
    expect(result.warnings).toEqual([]);
  });
});

describe('readiness', () => {
  const entry = (katalog: { spec: { crds: Record<string, unknown> } }) =>
    katalog.spec.crds['website'] as { readiness: string };

  it("keeps upstream's meaning of Ready (reconciled) for an upstream Katalog", () => {
    expect(entry(ok(load(head())).katalog).readiness).toBe('reconciled');
  });

  it('leaves an upstream Katalog that states readiness as it is', () => {
    const text = head() + '      readiness: children\n';
    expect(entry(ok(load(text)).katalog).readiness).toBe('children');
  });

  it('gives a canonical Katalog child readiness', () => {
    expect(entry(ok(load(head('orkestra.konductor.io/v1alpha1'))).katalog).readiness).toBe('children');
  });
});

describe('metadata', () => {
  it('moves author and tags into annotations', () => {
    const text = head().replace(
      '  name: demo\n',
      '  name: demo\n  author: platform-team\n  tags: [web, beginner]\n',
    );
    const result = ok(load(text));
    expect(result.katalog.metadata.annotations).toEqual({ author: 'platform-team', tags: 'web,beginner' });
  });
});

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
    expect(result.errors[0]?.message).toMatch(/`hooks` names Go code/);
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

  it('refuses emit.events at its own position, with the reason', () => {
    const bad = g3.replace(
      '        emit:\n',
      '        emit:\n          events:\n            ready: {type: Normal, reason: Ready, message: ok}\n',
    );
    const result = load(bad);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const line = bad.split('\n').findIndex((l) => l.includes('events:')) + 1;
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]).toMatchObject({
      line,
      column: 11,
      path: 'spec.crds.website.operatorBox.emit.events',
    });
    expect(result.errors[0]?.message).toMatch(
      /^upstream key `events` has no counterpart in Orkestra: declared events/,
    );
  });
});

describe('upstream shapes inside children', () => {
  const text = `${head()}      operatorBox:
        onReconcile:
          deployments:
            - name: web
              image: nginx
              labels:
                - key: tier
                  value: frontend
              env:
                MODE: production
                PASSWORD:
                  secretKeyRef: {name: creds, key: password}
                LEVEL:
                  configMapKeyRef: {name: settings, key: level}
                REGION:
                  value: "{{ .spec.region }}"
              envFrom:
                - configMapRef: settings
                - secretRef: creds
          custom:
            - apiVersion: example.io/v1
              kind: Widget
              hasStatus: true
              metadata:
                name: w
                namespaced: false
              spec:
                size: 1
        cross:
          - crd: website
            source: "http://catalog.example.io/items.json"
            selector: {name: "{{ .metadata.name }}"}
`;

  it('turns label lists into maps, env maps into lists and envFrom lists into reference lists', () => {
    const result = ok(load(text));
    const deployment = result.katalog.spec.crds['website']?.operatorBox.onReconcile.deployments[0];
    expect(deployment?.labels).toEqual({ tier: 'frontend' });
    expect(deployment?.env).toEqual([
      { name: 'MODE', value: 'production' },
      { name: 'PASSWORD', valueFrom: { secretKeyRef: { name: 'creds', key: 'password' } } },
      { name: 'LEVEL', valueFrom: { configMapKeyRef: { name: 'settings', key: 'level' } } },
      { name: 'REGION', value: '{{ .spec.region }}' },
    ]);
    expect(deployment?.envFrom).toEqual({
      configMapRef: [{ name: 'settings' }],
      secretRef: [{ name: 'creds' }],
    });
  });

  it('moves a custom child’s metadata.namespaced up and drops hasStatus from the manifest', () => {
    const result = ok(load(text));
    const custom = result.katalog.spec.crds['website']?.operatorBox.onReconcile.custom[0];
    expect(custom?.['namespaced']).toBe(false);
    expect(custom).not.toHaveProperty('hasStatus');
    expect(custom?.['metadata']).not.toHaveProperty('namespaced');
  });

  it('renames cross[].source to endpoint', () => {
    const result = ok(load(text));
    expect(result.katalog.spec.crds['website']?.operatorBox.cross[0]?.endpoint).toBe(
      'http://catalog.example.io/items.json',
    );
  });
});

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

describe('migrateKatalog', () => {
  const text = `apiVersion: orkestra.orkspace.io/v1
kind: Katalog
metadata:
  name: demo
spec:
  crds:
    website:
      apiTypes: {group: demo.example.io, version: v1alpha1, kind: Website, plural: websites}
      # the lifecycle
      reconciler:
        # children created once
        onCreate:
          configMaps:
            - name: cfg # the config
              data: {a: "1"}
`;

  it('keeps comments and reports each change', () => {
    const result = migrateKatalog(text);
    expect(result.problems).toEqual([]);
    expect(result.text).toContain('# children created once');
    expect(result.text).toContain('# the config');
    expect(result.text).toContain('apiVersion: orkestra.konductor.io/v1alpha1');
    expect(result.changes.map((c) => c.message)).toContain('moved to operatorBox.onCreate');
    const reloaded = ok(load(result.text));
    expect(reloaded.warnings).toEqual([]);
    expect(reloaded.katalog).toEqual(ok(load(text)).katalog);
  });

  it('leaves a canonical Katalog byte for byte', () => {
    const canonical = migrateKatalog(text).text;
    expect(migrateKatalog(canonical)).toMatchObject({ text: canonical, changes: [] });
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

describe('issue 14 gaps: secret copy, replicasets, forEach.as, built-in kinds, auth.secretRef.namespace', () => {
  const lineOf = (text: string, needle: string): number =>
    text.split('\n').findIndex((l) => l.includes(needle)) + 1;
  const columnOf = (text: string, needle: string): number =>
    (text.split('\n').find((l) => l.includes(needle)) ?? '').indexOf(needle) + 1;
  const errors = (result: LoadKatalogResult) => (result.ok ? [] : result.errors);
  const box = (body: string): string => `${head()}      operatorBox:\n${body}`;

  const copy = box(`        onReconcile:
          secrets:
            - name: registry-pull
              fromSecret: shared-registry
              fromNamespace: platform
              data: {note: copied}
              toNamespaces:
                - "{{ .metadata.namespace }}"
                - ci
`);

  it('maps fromSecret/fromNamespace onto copyFrom and toNamespaces onto one entry per namespace', () => {
    const result = ok(load(copy));
    const secrets = result.katalog.spec.crds['website']?.operatorBox.onReconcile.secrets ?? [];
    expect(secrets).toHaveLength(2);
    expect(secrets.map((s) => s.namespace)).toEqual(['{{ .metadata.namespace }}', 'ci']);
    for (const secret of secrets) {
      expect(secret.copyFrom).toEqual({ name: 'shared-registry', namespace: 'platform' });
      expect(secret.data).toEqual({ note: 'copied' });
      // A copy without `type` takes the source's type.
      expect(secret.type).toBeUndefined();
    }
    // A templated namespace is gated on rendering non-empty (upstream skips empty namespaces); a literal is not.
    expect(secrets[0]?.when).toEqual([
      expect.objectContaining({ field: '{{ .metadata.namespace }}', operator: 'exists' }),
    ]);
    expect(secrets[1]?.when ?? []).toEqual([]);
  });

  it('prints the copy in canonical form with ork migrate and positions each change', () => {
    const result = migrateKatalog(copy);
    expect(result.problems).toEqual([]);
    expect(result.text).toContain('copyFrom:');
    expect(result.text).not.toContain('fromSecret');
    expect(result.text).not.toContain('toNamespaces');
    const moved = result.changes.find((c) => c.path.endsWith('secrets[0].fromSecret'));
    expect(moved).toMatchObject({ line: lineOf(copy, 'fromSecret'), column: columnOf(copy, 'fromSecret') });
    const expanded = result.changes.find((c) => c.path.endsWith('toNamespaces'));
    expect(expanded).toMatchObject({
      line: lineOf(copy, 'toNamespaces'),
      message: expect.stringContaining('2 entries'),
    });
    expect(ok(load(result.text)).katalog).toEqual(ok(load(copy)).katalog);
  });

  it('points an error inside a copied entry at the line the user wrote', () => {
    const bad = copy.replace('data: {note: copied}', 'data: {note: copied}\n              replicaz: 2');
    const found = errors(load(bad)).filter((e) => e.path.endsWith('replicaz'));
    expect(found.length).toBeGreaterThan(0);
    for (const error of found) expect(error.line).toBe(lineOf(bad, 'replicaz'));
  });

  it('refuses a templated copy source namespace, and a templated name in another namespace, at their positions', () => {
    const templatedNs = copy.replace('fromNamespace: platform', 'fromNamespace: "{{ .spec.ns }}"');
    const nsError = errors(load(templatedNs)).find((e) => e.path.endsWith('copyFrom.namespace'));
    expect(nsError).toMatchObject({
      line: lineOf(templatedNs, 'fromNamespace'),
      message: expect.stringContaining('literal namespace'),
    });
    const templatedName = copy.replace('fromSecret: shared-registry', 'fromSecret: "{{ .spec.secret }}"');
    const nameError = errors(load(templatedName)).find((e) => e.path.endsWith('copyFrom.name'));
    expect(nameError).toMatchObject({
      line: lineOf(templatedName, 'fromSecret'),
      message: expect.stringContaining('literal Secret name'),
    });
    // From the CR's own namespace into another one (`ci`), a templated name is refused too: a CR
    // must not copy a Secret of its namespace elsewhere (katalog.md §7.2).
    const own = templatedName.replace('              fromNamespace: platform\n', '');
    expect(errors(load(own)).find((e) => e.path.endsWith('secrets[1].copyFrom.name'))).toMatchObject({
      message: expect.stringContaining("the copy's namespace may differ from the CR's"),
    });
    // Within the CR's own namespace a templated name is allowed.
    const within = own.replace(
      '              toNamespaces:\n                - "{{ .metadata.namespace }}"\n                - ci\n',
      '',
    );
    expect(
      ok(load(within)).katalog.spec.crds['website']?.operatorBox.onReconcile.secrets[0]?.copyFrom,
    ).toEqual({
      name: '{{ .spec.secret }}',
    });
  });

  it('lets a cluster-scoped entry take its copy source name and namespace from the CR', () => {
    const templated = copy
      .replace('fromSecret: shared-registry', 'fromSecret: "{{ .spec.secret }}"')
      .replace('fromNamespace: platform', 'fromNamespace: "{{ .spec.ns }}"');
    expect(errors(load(templated)).some((e) => e.path.includes('copyFrom'))).toBe(true);
    const cluster = templated.replace('      operatorBox:', '      namespaced: false\n      operatorBox:');
    const secrets = ok(load(cluster)).katalog.spec.crds['website']?.operatorBox.onReconcile.secrets ?? [];
    expect(secrets[0]?.copyFrom).toEqual({ name: '{{ .spec.secret }}', namespace: '{{ .spec.ns }}' });
    const badLiteral = cluster.replace('fromNamespace: "{{ .spec.ns }}"', 'fromNamespace: Not_A_Namespace');
    expect(errors(load(badLiteral)).find((e) => e.path.endsWith('copyFrom.namespace'))?.message).toContain(
      'DNS-1123',
    );
  });

  it('reads a single toNamespaces item that is a whole CR field as the list of namespaces (forEach)', () => {
    const text = copy.replace(
      '                - "{{ .metadata.namespace }}"\n                - ci\n',
      '                - "{{ .spec.targetNamespaces }}"\n',
    );
    // The CR chooses the namespaces, so the entry must declare the ones it may use (katalog.md §6).
    expect(errors(load(text)).find((e) => e.path.endsWith('secrets[0].namespace'))?.message).toContain(
      'needs `allowedNamespaces`',
    );
    const allowed = text.replace('      operatorBox:', '      allowedNamespaces: [ci-*]\n      operatorBox:');
    const secrets = ok(load(allowed)).katalog.spec.crds['website']?.operatorBox.onReconcile.secrets ?? [];
    expect(secrets).toHaveLength(1);
    expect(secrets[0]).toMatchObject({
      forEach: { field: 'spec.targetNamespaces' },
      namespace: '{{ .item }}',
    });
    expect(migrateKatalog(text).changes).toContainEqual(
      expect.objectContaining({
        line: lineOf(text, 'toNamespaces'),
        message: expect.stringContaining('forEach over spec.targetNamespaces'),
      }),
    );
  });

  it('refuses copyFrom with tls or once, and toNamespaces beside namespace', () => {
    const withOnce = copy.replace('data: {note: copied}', 'once: true');
    expect(
      errors(load(withOnce))
        .map((e) => e.message)
        .join('\n'),
    ).toContain('`copyFrom` cannot be combined');
    const both = copy.replace('data: {note: copied}', 'namespace: other');
    expect(errors(load(both)).find((e) => e.path.endsWith('toNamespaces'))).toMatchObject({
      line: lineOf(both, 'toNamespaces'),
      message: expect.stringContaining('exclusive'),
    });
  });

  it('renames upstream’s `replicasets:` spelling to replicaSets', () => {
    const text = box(`        onCreate:
          replicasets:
            - image: nginx:1.25
              replicas: "3"
              port: "8080"
`);
    const result = ok(load(text));
    expect(result.katalog.spec.crds['website']?.operatorBox.onCreate.replicaSets[0]).toMatchObject({
      image: 'nginx:1.25',
    });
    expect(migrateKatalog(text).changes).toContainEqual(
      expect.objectContaining({ message: 'renamed to replicaSets', line: lineOf(text, 'replicasets') }),
    );
  });

  it('drops forEach.as: item (the default) instead of refusing it', () => {
    const text = box(`        onReconcile:
          configMaps:
            - name: "{{ .metadata.name }}-{{ .item }}"
              forEach: {field: spec.queues, as: item}
              data: {queue: "{{ .item }}"}
`);
    const entry = ok(load(text)).katalog.spec.crds['website']?.operatorBox.onReconcile.configMaps[0];
    expect(entry?.forEach).toEqual({ field: 'spec.queues' });
  });

  it('refuses an entry that names a built-in kind, at its apiTypes, with what to do instead', () => {
    const text = head()
      .replace('group: demo.example.io', 'group: ""')
      .replace('kind: Website', 'kind: ConfigMap')
      .concat('      labelSelector: {watch: "true"}\n');
    const found = errors(load(text));
    expect(found[0]).toMatchObject({
      path: 'spec.crds.website.apiTypes.group',
      line: lineOf(text, 'group: ""'),
      column: columnOf(text, '""'),
      message: expect.stringContaining("one of Kubernetes' own kinds"),
    });
    expect(found.some((e) => e.path.endsWith('labelSelector'))).toBe(false);
    const apps = head()
      .replace('group: demo.example.io', 'group: apps')
      .replace('kind: Website', 'kind: Deployment');
    expect(errors(load(apps))[0]?.message).toContain('group apps');
  });

  it('drops a disabled entry of a built-in kind with a note, and still refuses an enabled one', () => {
    const disabled = `${head()}    pods:
      enabled: false
      apiTypes: {kind: Pod}
      restrictedNamespaces: [kube-system]
`;
    const result = ok(load(disabled));
    expect(Object.keys(result.katalog.spec.crds)).toEqual(['website']);
    expect(migrateKatalog(disabled).changes).toContainEqual(
      expect.objectContaining({
        path: 'spec.crds.pods',
        line: lineOf(disabled, '    pods:'),
        message: expect.stringContaining('disabled entry'),
      }),
    );
    const enabled = disabled.replace('      enabled: false\n', '');
    expect(errors(load(enabled)).some((e) => e.message.includes("one of Kubernetes' own kinds"))).toBe(true);
  });

  it('refuses labelSelector on an entry with its own CRD, with the reason', () => {
    const text = head() + '      labelSelector: {team: a}\n';
    expect(errors(load(text))[0]).toMatchObject({
      path: 'spec.crds.website.labelSelector',
      line: lineOf(text, 'labelSelector'),
      message: expect.stringContaining('every CR of the entry'),
    });
  });

  it('accepts auth.secretRef.namespace as a literal and refuses a template there', () => {
    const text = box(`        onReconcile:
          external:
            - name: plan
              url: https://billing.example.org/plans
              auth:
                secretRef: {name: billing-api, key: token, namespace: platform}
`);
    const call = ok(load(text)).katalog.spec.crds['website']?.operatorBox.external[0];
    expect(call?.auth?.secretRef).toEqual({ name: 'billing-api', key: 'token', namespace: 'platform' });
    const bad = text.replace('namespace: platform', 'namespace: "{{ .spec.ns }}"');
    expect(errors(load(bad)).find((e) => e.path.endsWith('secretRef.namespace'))).toMatchObject({
      line: lineOf(bad, 'namespace: "{{'),
      message: expect.stringContaining('literal namespace'),
    });
  });
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

  it('drops mode, serve, queue.shared and sleep with a note, and refuses enrich and presets with reasons', () => {
    const text = `${head()}      mode: dynamic
      serve: {enabled: true}
      queue: {shared: false, maxDepth: 10}
      labels: {app: web}
      enrich: [pods]
      operatorBox:
        onCreate:
          deployments:
            - image: nginx
              sleep: 2s
              resources: {profile: burst}
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
    expect(at('spec.crds.website.enrich')?.line).toBe(lineOf(text, 'enrich:'));
    expect(at('spec.crds.website.operatorBox.onCreate.deployments[0].resources.profile')).toMatchObject({
      line: lineOf(text, 'profile: burst'),
      message: expect.stringContaining('requests'),
    });
    expect(found.some((e) => e.message.startsWith('unknown key'))).toBe(false);
  });
});

describe('motif inputs that are templates, and motif lifecycle groups', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ork-motif-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(
    join(dir, 'pool.yaml'),
    `kind: Motif
metadata: {name: pool}
inputs:
  - name: size
    default: "1"
  - name: tag
    required: true
resources:
  onCreate:
    secrets:
      - name: "{{ .metadata.name }}-token"
        once: true
        data:
          token: "{{ randomAlphanumeric 24 }}"
  statefulSets:
    - name: "{{ .metadata.name }}-pool"
      image: '{{ index .inputs "tag" }}'
      replicas: '{{ index .inputs "size" }}'
      labels:
        size: '{{ printf "%v" (index .inputs "size") }}'
`,
  );
  writeFileSync(
    join(dir, 'copy.yaml'),
    `kind: Motif
inputs:
  - name: from
resources:
  secrets:
    - name: copied
      copyFrom: {name: source, namespace: '{{ index .inputs "from" }}'}
`,
  );
  writeFileSync(
    join(dir, 'odd.yaml'),
    `kind: Motif
resources:
  onDelete:
    jobs:
      - name: cleanup
  configMap:
    name: x
`,
  );
  const text = (withBlock: string, motif = './pool.yaml'): string => `apiVersion: orkestra.orkspace.io/v1
kind: Katalog
metadata: {name: demo}
spec:
  crds:
    pool:
      apiTypes: {group: demo.example.io, version: v1alpha1, kind: Pool, plural: pools}
      imports:
        - motif: ${motif}
          with:
${withBlock}
`;

  it('evaluates an input that is a template against the CR instead of inserting its text', () => {
    const result = ok(
      load(text('            size: "{{ .spec.members }}"\n            tag: "app:{{ .spec.version }}"'), dir),
    );
    const set = result.katalog.spec.crds['pool']?.operatorBox.onReconcile.statefulSets[0];
    expect(set?.replicas).toBe('{{ .spec.members }}');
    expect(set?.image).toBe('app:{{ .spec.version }}');
    expect(set?.labels).toEqual({ size: '{{ printf "%v" ((.spec.members)) }}' });
  });

  it('writes a literal input as the value itself where a field is only the input, and as a constant inside an expression', () => {
    const result = ok(load(text('            tag: "app:1.0"\n            size: 3'), dir));
    const set = result.katalog.spec.crds['pool']?.operatorBox.onReconcile.statefulSets[0];
    expect(set).toMatchObject({ image: 'app:1.0', replicas: 3, labels: { size: '{{ printf "%v" (3) }}' } });
  });

  it('points an error in a spliced template at the with: line the user wrote', () => {
    const result = load(text('            from: "{{ .spec.team }}"', './copy.yaml'), dir);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors[0]).toMatchObject({ line: 11, column: 19 });
    expect(result.errors[0]?.file).toBe('katalog.yaml');
    expect(result.errors[0]?.message).toContain('must be a literal namespace');
  });

  it('refuses a template with text around it where the motif uses it inside an expression', () => {
    const result = load(text('            size: "n{{ .spec.members }}"\n            tag: x'), dir);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors[0]).toMatchObject({ line: 11, column: 19 });
    expect(result.errors[0]?.message).toContain('motif input `size` is a template with text around it');
  });

  it('refuses a list or map given as a motif input at its position', () => {
    const result = load(text('            size: [1, 2]\n            tag: x'), dir);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors[0]).toMatchObject({ line: 11, column: 19 });
    expect(result.errors[0]?.message).toContain('motif input `size` must be a string, number or boolean');
  });

  it('imports a motif’s onCreate group into onCreate and counts its children', () => {
    const result = ok(load(text('            tag: x'), dir));
    const box = result.katalog.spec.crds['pool']?.operatorBox;
    expect(box?.onCreate.secrets.map((s) => s.name)).toEqual(['{{ .metadata.name }}-token']);
    expect(box?.onCreate.secrets[0]?.once).toBe(true);
    expect(box?.onReconcile.secrets).toEqual([]);
    const migrated = migrateKatalog(text('            tag: x'), { baseDir: dir });
    expect(migrated.changes.map((c) => c.message)).toContain(
      'imported 2 children from motif ./pool.yaml into operatorBox.onCreate and operatorBox.onReconcile',
    );
  });

  it('refuses a motif’s onDelete and a non-list kind at their keys instead of dropping them', () => {
    const result = load(text('            tag: x', './odd.yaml'), dir);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((e) => [e.file, e.line, e.column])).toEqual([
      [join(dir, 'odd.yaml'), 3, 3],
      [join(dir, 'odd.yaml'), 6, 3],
    ]);
    expect(result.errors[0]?.message).toContain('`resources.onDelete` is not imported');
    expect(result.errors[1]?.message).toContain('must be a kind list');
  });
});

describe('upstream list keys without a built-in list', () => {
  const lineOf = (text: string, needle: string): number =>
    text.split('\n').findIndex((l) => l.includes(needle)) + 1;
  const columnOf = (text: string, needle: string): number =>
    (text.split('\n').find((l) => l.includes(needle)) ?? '').indexOf(needle) + 1;
  const errors = (result: LoadKatalogResult) => (result.ok ? [] : result.errors);
  const onReconcile = (body: string, apiVersion?: string): string =>
    `${head(apiVersion)}      operatorBox:\n        onReconcile:\n${body}`;
  const customOf = (result: LoadKatalogResult) =>
    ok(result).katalog.spec.crds['website']?.operatorBox.onReconcile.custom ?? [];
  const base = 'spec.crds.website.operatorBox.onReconcile';

  it('reads upstream pods as the pods list, with labels lists mapped and restartPolicy defaulted', () => {
    const text = onReconcile(`          pods:
            - name: "{{ .metadata.name }}-worker"
              image: busybox:1.36
              port: "9090"
              labels:
                - key: role
                  value: worker
`);
    const pod = ok(load(text)).katalog.spec.crds['website']?.operatorBox.onReconcile.pods[0];
    expect(pod).toMatchObject({
      name: '{{ .metadata.name }}-worker',
      image: 'busybox:1.36',
      port: '9090',
      labels: { role: 'worker' },
      restartPolicy: 'Always',
    });
    const noImage = load(onReconcile('          pods:\n            - name: solo\n'));
    expect(errors(noImage).map((e) => e.path)).toEqual([`${base}.pods[0].image`]);
  });

  it('maps clusterRoles onto custom ClusterRole entries, keeping common keys and defaulting apiGroups to [""]', () => {
    const text = onReconcile(`          clusterRoles:
            - name: "{{ .metadata.name }}-reader"
              labels:
                - key: tier
                  value: web
              when:
                - field: spec.rbac
                  equals: "true"
              reconcile: true
              sleep: 1s
              rules:
                - resources: [namespaces]
                  verbs: [get, list]
                - apiGroups: [apps]
                  resources: [deployments]
                  verbs: [get]
            - rules:
                - nonResourceURLs: [/healthz]
                  verbs: [get]
              aggregationRule:
                clusterRoleSelectors:
                  - matchLabels: {aggregate: "true"}
`);
    const result = load(text);
    expect(customOf(result)).toEqual([
      expect.objectContaining({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        namespaced: false,
        metadata: { name: '{{ .metadata.name }}-reader', labels: { tier: 'web' }, annotations: {} },
        rules: [
          { apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list'] },
          { apiGroups: ['apps'], resources: ['deployments'], verbs: ['get'] },
        ],
        when: [expect.objectContaining({ field: 'spec.rbac', operator: 'equals', value: 'true' })],
        reconcile: true,
      }),
      expect.objectContaining({
        kind: 'ClusterRole',
        namespaced: false,
        metadata: expect.objectContaining({ name: '{{ .metadata.name }}-cluster-role' }),
        rules: [{ apiGroups: [''], nonResourceURLs: ['/healthz'], verbs: ['get'] }],
        aggregationRule: { clusterRoleSelectors: [{ matchLabels: { aggregate: 'true' } }] },
      }),
    ]);
    expect(customOf(result)[0]).not.toHaveProperty('sleep');
    const migrated = migrateKatalog(text);
    const moved = migrated.changes.filter((c) => c.message.startsWith('moved to custom'));
    expect(moved.map((c) => [c.path, c.line, c.message])).toEqual([
      [
        `${base}.clusterRoles[0]`,
        lineOf(text, '-reader'),
        'moved to custom[0] (rbac.authorization.k8s.io/v1 ClusterRole, namespaced: false)',
      ],
      [
        `${base}.clusterRoles[1]`,
        lineOf(text, '- rules:'),
        'moved to custom[1] (rbac.authorization.k8s.io/v1 ClusterRole, namespaced: false)',
      ],
    ]);
    const note = ok(result).warnings.find((w) => w.message.includes('ork migrate'));
    expect(note?.message).toContain(`${migrated.changes.length} keys were mapped`);
  });

  it('appends clusterRoleBindings to the group’s own custom list, completing roleRef and subjects', () => {
    const result = load(
      onReconcile(`          custom:
            - apiVersion: v1
              kind: ConfigMap
              metadata: {name: own}
          clusterRoleBindings:
            - name: "{{ .metadata.name }}-readers"
              forEach: {field: spec.teams, as: team}
              roleRef: {name: "{{ .metadata.name }}-reader"}
              subjects:
                - name: "{{ .metadata.name }}"
                  namespace: "{{ .metadata.namespace }}"
                - kind: User
                  name: "{{ .team }}"
                - kind: Group
                  name: auditors
`),
    );
    const custom = customOf(result);
    expect(custom.map((c) => c['kind'])).toEqual(['ConfigMap', 'ClusterRoleBinding']);
    expect(custom[1]).toEqual(
      expect.objectContaining({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        namespaced: false,
        metadata: expect.objectContaining({ name: '{{ .metadata.name }}-readers' }),
        forEach: { field: 'spec.teams', as: 'team' },
        roleRef: {
          apiGroup: 'rbac.authorization.k8s.io',
          kind: 'ClusterRole',
          name: '{{ .metadata.name }}-reader',
        },
        subjects: [
          { kind: 'ServiceAccount', name: '{{ .metadata.name }}', namespace: '{{ .metadata.namespace }}' },
          { kind: 'User', name: '{{ .team }}', apiGroup: 'rbac.authorization.k8s.io' },
          { kind: 'Group', name: 'auditors', apiGroup: 'rbac.authorization.k8s.io' },
        ],
      }),
    );
  });

  it('maps persistentVolumes onto custom PersistentVolume entries with a spec', () => {
    const result = load(
      onReconcile(`          persistentVolumes:
            - name: "{{ .metadata.name }}-data"
              capacity: "{{ .spec.size }}"
              hostPath: /mnt/data
              storageClassName: manual
              reclaimPolicy: Delete
              volumeMode: Filesystem
            - name: scratch
              capacity: 1Gi
              accessModes: [ReadWriteMany]
              hostPath: {path: /tmp/scratch, type: DirectoryOrCreate}
`),
    );
    const custom = customOf(result);
    expect(custom[0]).toEqual(
      expect.objectContaining({
        apiVersion: 'v1',
        kind: 'PersistentVolume',
        namespaced: false,
        metadata: expect.objectContaining({ name: '{{ .metadata.name }}-data' }),
        spec: {
          capacity: { storage: '{{ .spec.size }}' },
          accessModes: ['ReadWriteOnce'],
          hostPath: { path: '/mnt/data' },
          storageClassName: 'manual',
          persistentVolumeReclaimPolicy: 'Delete',
          volumeMode: 'Filesystem',
        },
      }),
    );
    expect(custom[1]?.['spec']).toEqual({
      capacity: { storage: '1Gi' },
      accessModes: ['ReadWriteMany'],
      hostPath: { path: '/tmp/scratch', type: 'DirectoryOrCreate' },
    });
  });

  it('refuses a ServiceAccount subject without namespace, and a roleRef to a Role, at their paths', () => {
    const text = onReconcile(`          clusterRoleBindings:
            - name: readers
              roleRef: {kind: Role, name: reader}
              subjects:
                - kind: User
                  name: alice
                - name: robot
`);
    const found = errors(load(text));
    expect(found.map((e) => [e.path, e.line, e.column])).toEqual([
      [`${base}.clusterRoleBindings[0].roleRef.kind`, lineOf(text, 'kind: Role'), columnOf(text, 'Role,')],
      [
        `${base}.clusterRoleBindings[0].subjects[1]`,
        lineOf(text, '- name: robot'),
        columnOf(text, 'name: robot'),
      ],
    ]);
    expect(found[0]?.message).toContain('a ClusterRoleBinding can only refer to a ClusterRole');
    expect(found[1]?.message).toBe('a ServiceAccount subject of a ClusterRoleBinding needs `namespace`');
  });

  it('refuses an unknown persistentVolumes key, and a missing name or capacity, each at its path', () => {
    const text = onReconcile(`          persistentVolumes:
            - name: cloud
              capacity: 10Gi
              csiDriver: ebs.csi.aws.com
              hostPath: /mnt/cloud
            - capacity: 1Gi
              hostPath: /mnt/a
            - name: sizeless
              hostPath: /mnt/b
`);
    const found = errors(load(text));
    expect(found.map((e) => [e.path, e.line, e.column])).toEqual([
      [`${base}.persistentVolumes[0].csiDriver`, lineOf(text, 'csiDriver'), columnOf(text, 'csiDriver')],
      [`${base}.persistentVolumes[1]`, lineOf(text, '- capacity: 1Gi'), columnOf(text, 'capacity: 1Gi')],
      [`${base}.persistentVolumes[2]`, lineOf(text, 'sizeless'), columnOf(text, 'name: sizeless')],
    ]);
    expect(found[0]?.message).toContain('no key `csiDriver`');
    expect(found[1]?.message).toContain('needs `name`');
    expect(found[2]?.message).toContain('needs `capacity`');
    expect(found.some((e) => e.message.startsWith('unknown key'))).toBe(false);
  });

  it('migrates the three lists to custom entries that load as a canonical Katalog and render the same', () => {
    const text = onReconcile(`          configMaps:
            - name: settings
          # cluster-wide read access
          clusterRoles:
            - name: reader
              rules:
                - resources: [pods]
                  verbs: [get]
          clusterRoleBindings:
            - name: readers
              roleRef: {name: reader}
              subjects:
                - {name: robot, namespace: ops}
          persistentVolumes:
            - name: disk
              capacity: 1Gi
              hostPath: /mnt/disk
`);
    const migrated = migrateKatalog(text);
    expect(migrated.problems).toEqual([]);
    for (const gone of ['clusterRoles:', 'clusterRoleBindings:', 'persistentVolumes:'])
      expect(migrated.text).not.toContain(gone);
    expect(migrated.text).toContain('# cluster-wide read access\n          custom:');
    const again = ok(load(migrated.text));
    expect(again.warnings).toEqual([]);
    expect(customOf(load(migrated.text))).toEqual(customOf(load(text)));
    expect(migrated.changes.filter((c) => c.message.startsWith('moved to custom'))).toHaveLength(3);
    expect(customOf(load(text)).map((c) => c['kind'])).toEqual([
      'ClusterRole',
      'ClusterRoleBinding',
      'PersistentVolume',
    ]);
  });

  it('maps the lists of a motif’s resources too, positioning problems in the motif file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ork-cluster-'));
    try {
      writeFileSync(
        join(dir, 'rbac.yaml'),
        `kind: Motif
resources:
  clusterRoles:
    - name: '{{ index .inputs "role" }}'
      rules: [{resources: [nodes], verbs: [list]}]
  clusterRoleBindings:
    - name: bad
      roleRef: {name: x}
      subjects: [{name: robot}]
`,
      );
      const katalog = (role: string) => `${head()}      imports:
        - motif: ./rbac.yaml
          with: {role: ${role}}
`;
      const found = errors(load(katalog('viewer'), dir));
      expect(found.map((e) => [e.file, e.line, e.column, e.path])).toEqual([
        [
          join(dir, 'rbac.yaml'),
          9,
          18,
          'spec.crds.website.operatorBox.onReconcile.clusterRoleBindings[0].subjects[0]',
        ],
      ]);
      writeFileSync(
        join(dir, 'rbac.yaml'),
        `kind: Motif
resources:
  clusterRoles:
    - name: '{{ index .inputs "role" }}'
      rules: [{resources: [nodes], verbs: [list]}]
`,
      );
      expect(customOf(load(katalog('viewer'), dir))).toEqual([
        expect.objectContaining({
          kind: 'ClusterRole',
          namespaced: false,
          metadata: expect.objectContaining({ name: 'viewer' }),
          rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['list'] }],
        }),
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('still refuses the three lists in a canonical Katalog, naming the custom spelling', () => {
    const text = onReconcile(
      `          clusterRoles:
            - name: reader
          clusterRoleBindings:
            - name: reader
          persistentVolumes:
            - name: disk
`,
      'orkestra.konductor.io/v1alpha1',
    );
    const found = errors(load(text));
    expect(found.map((e) => [e.line, e.column, e.path])).toEqual([
      [15, 11, `${base}.clusterRoles`],
      [17, 11, `${base}.clusterRoleBindings`],
      [19, 11, `${base}.persistentVolumes`],
    ]);
    expect(found[0]?.message).toContain('mapped only in an upstream Katalog');
    expect(found[0]?.message).toContain('`kind: ClusterRole`');
    expect(found[2]?.message).toContain('`apiVersion: v1`, `kind: PersistentVolume`');
  });
});

describe('upstream top-level blocks, anchors and merge keys', () => {
  const text = `apiVersion: orkestra.konductor.io/v1Alpha
kind: Katalog
metadata:
  name: demo
  createdBy: orkdoctor
anchors:
  types: &types
    group: demo.example.io
    kind: Website
    plural: websites
  stable: &stable v1
security:
  namespaceProtection:
    enabled: true
  deletionProtection:
    enabled: false
gateway:
  enabled: true
spec:
  crds:
    website:
      apiTypes:
        <<: *types
        version: *stable
        object: Website
        objectList: WebsiteList
        location: github.com/example/demo/api/v1
        alias: demov1
      operatorBox:
        onReconcile:
          configMaps:
            - name: "{{ .metadata.name }}"
              data: {k: v}
`;

  it('loads it: merges applied, anchors, gateway and disabled or redundant security removed, createdBy kept', () => {
    const result = ok(load(text));
    const entry = result.katalog.spec.crds['website'];
    expect(entry?.apiTypes).toMatchObject({ group: 'demo.example.io', kind: 'Website', version: 'v1' });
    expect(result.katalog.metadata.annotations).toMatchObject({ createdBy: 'orkdoctor' });
    const migrated = migrateKatalog(text);
    expect(migrated.problems).toEqual([]);
    for (const gone of [
      'anchors:',
      'gateway:',
      'security:',
      '<<',
      'object:',
      'objectList:',
      'location:',
      'alias:',
    ])
      expect(migrated.text).not.toContain(gone);
    const again = ok(load(migrated.text));
    expect(again.katalog.spec.crds['website']?.apiTypes).toEqual(entry?.apiTypes);
    expect(again.warnings).toEqual([]);
  });

  it('points an error inside merged keys at the anchor’s definition', () => {
    const bad = text.replace('    plural: websites\n', '    plural: Websites_\n');
    const result = load(bad);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const line = bad.split('\n').findIndex((l) => l.includes('Websites_')) + 1;
    expect(result.errors[0]).toMatchObject({ line, path: 'spec.crds.website.apiTypes.plural' });
  });

  it('refuses enabled deletion protection and a watch item with an enqueueGate, each with its reason', () => {
    const bad = text
      .replace('  deletionProtection:\n    enabled: false\n', '  deletionProtection:\n    enabled: true\n')
      .replace(
        '      operatorBox:\n',
        '      operatorBox:\n        watch:\n          - {apiVersion: v1, kind: Node, enqueueGate: {sentinels: [labelsChanged]}}\n',
      );
    const result = load(bad);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const messages = result.errors.map((e) => `${e.path}: ${e.message}`);
    expect(messages).toHaveLength(2);
    expect(messages[0]).toMatch(
      /^security\.deletionProtection: upstream key `security\.deletionProtection` has no counterpart in Orkestra: no webhook/,
    );
    expect(messages[1]).toMatch(
      /^spec\.crds\.website\.watch\[0\]\.enqueueGate: upstream key `enqueueGate` has no counterpart in Orkestra: gates on watch events/,
    );
  });

  it('applies merge keys in a canonical Katalog too, without calling it upstream', () => {
    const canonical = `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: demo}
spec:
  crds:
    website:
      apiTypes:
        <<: {group: demo.example.io, kind: Website, plural: websites}
        version: v1
`;
    const result = ok(load(canonical));
    expect(result.katalog.spec.crds['website']?.apiTypes.group).toBe('demo.example.io');
    expect(result.warnings).toEqual([]);
    expect(migrateKatalog(canonical).text).toBe(canonical);
  });
});

describe('upstream external protocols and cross sources', () => {
  const text = `${head()}      operatorBox:
        onReconcile:
          external:
            - name: ping
              protocol: redis
              url: "{{ .spec.redisURL }}"
              query: PING
            - name: hello
              protocol: http
              url: http://hello.example.io/
        cross:
          - crd: loader
            source: {host: "http://loader:8080", protocol: health}
            as: loaderHealth
`;

  it('refuses redis and a map-form cross source once each, with the reason; drops protocol: http', () => {
    const result = load(text);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const lines = text.split('\n');
    const messages = result.errors.map((e) => `${e.line} ${e.path}: ${e.message}`);
    expect(messages).toHaveLength(2);
    expect(messages[0]).toMatch(
      new RegExp(
        `^${lines.findIndex((l) => l.includes('protocol: redis')) + 1} spec\\.crds\\.website\\.operatorBox\\.onReconcile\\.external\\[0\\]\\.protocol: upstream \`protocol: redis\` has no counterpart in Orkestra: external calls are HTTP requests only`,
      ),
    );
    expect(messages[1]).toMatch(
      new RegExp(
        `^${lines.findIndex((l) => l.includes('source: {host')) + 1} spec\\.crds\\.website\\.operatorBox\\.cross\\[0\\]\\.source: upstream key \`source\` \\(a map\\)`,
      ),
    );
  });
});

describe('upstream external result paths', () => {
  const text = `${head()}      operatorBox:
        external:
          - name: config
            url: http://config.example.io/
        status:
          fields:
            - path: tokenValid
              value: "{{ .external.config.tokenValid }}"
            - path: code
              value: "{{ .external.config.statusCode }}"
            - path: raw
              value: "{{ .external.config.json.tokenValid }}"
            - path: phase
              value: Ready
              when:
                - field: external.config.ok
                  equals: "true"
`;

  it('writes a JSON field as external.<name>.json.<field> and statusCode as status', () => {
    const fields = ok(load(text)).katalog.spec.crds['website']?.operatorBox.status.fields ?? [];
    expect(fields.map((f) => f.value)).toEqual([
      '{{ .external.config.json.tokenValid }}',
      '{{ .external.config.status }}',
      '{{ .external.config.json.tokenValid }}',
      'Ready',
    ]);
    expect(fields[3]?.when?.[0]).toMatchObject({ field: 'external.config.ok' });
  });

  it('leaves a canonical Katalog’s paths alone', () => {
    const canonical = text.replace(
      'apiVersion: orkestra.orkspace.io/v1',
      'apiVersion: orkestra.konductor.io/v1alpha1',
    );
    const fields = ok(load(canonical)).katalog.spec.crds['website']?.operatorBox.status.fields ?? [];
    expect(fields[0]?.value).toBe('{{ .external.config.tokenValid }}');
  });
});

describe('resourceQuotas and limitRanges with a profile', () => {
  const base = 'spec.crds.website.operatorBox.onReconcile';
  const onReconcile = (body: string): string => `${head()}      operatorBox:\n        onReconcile:\n${body}`;
  // A refused profile leaves its item without `hard`/`limits`, which the schema reports as well.
  const errors = (result: LoadKatalogResult) =>
    result.ok ? [] : result.errors.filter((e) => e.path.endsWith('.profile'));

  it('expands a built-in ResourceQuota preset (any case) into its hard limits', () => {
    const text = onReconcile(`          resourceQuotas:
            - name: "{{ .metadata.name }}-quota"
              profile: Small
            - name: big
              # sized for the whole team
              profile: xlarge
`);
    const quotas = ok(load(text)).katalog.spec.crds['website']?.operatorBox.onReconcile.resourceQuotas ?? [];
    expect(quotas.map((q) => q.hard)).toEqual([
      {
        pods: '10',
        cpu: '2',
        memory: '4Gi',
        'requests.cpu': '1',
        'requests.memory': '2Gi',
        'limits.cpu': '2',
        'limits.memory': '4Gi',
      },
      {
        pods: '100',
        cpu: '16',
        memory: '32Gi',
        'requests.cpu': '8',
        'requests.memory': '16Gi',
        'limits.cpu': '16',
        'limits.memory': '32Gi',
      },
    ]);
    const migrated = migrateKatalog(text);
    expect(migrated.text).toContain('hard:');
    expect(migrated.text).not.toContain('profile:');
    expect(migrated.text).toContain('# sized for the whole team\n              hard:');
    expect(
      migrated.changes.filter((c) => c.path.endsWith('.profile')).map((c) => [c.path, c.line, c.message]),
    ).toEqual([
      [`${base}.resourceQuotas[0].profile`, 17, 'the Small preset became its hard limits'],
      [`${base}.resourceQuotas[1].profile`, 20, 'the xlarge preset became its hard limits'],
    ]);
  });

  it('refuses an unknown, a templated or a mixed ResourceQuota profile at the key, naming it', () => {
    const result = load(
      onReconcile(`          resourceQuotas:
            - name: a
              profile: huge
            - name: b
              profile: '{{ .spec.size }}'
            - name: c
              profile: small
              hard: {pods: "3"}
`),
    );
    expect(errors(result).map((e) => [e.line, e.column, e.path])).toEqual([
      [17, 15, `${base}.resourceQuotas[0].profile`],
      [19, 15, `${base}.resourceQuotas[1].profile`],
      [21, 15, `${base}.resourceQuotas[2].profile`],
    ]);
    expect(errors(result)[0]?.message).toContain(
      '`profile: huge` is neither a preset of `profiles.resourceQuotas`',
    );
    expect(errors(result)[0]?.message).toContain('small, medium, large, xlarge');
    expect(errors(result)[1]?.message).toContain('is chosen per CR');
    expect(errors(result)[2]?.message).toContain('beside `hard`');
  });

  it('expands the presets of the profiles registry (before a built-in of the same name) and removes the registry', () => {
    const text = onReconcile(`          resourceQuotas:
            - name: q
              profile: small
          limitRanges:
            - name: lr
              profile: standard
`).replace(
      'spec:\n',
      `profiles:
  resourceQuotas:
    - name: small
      description: our own small
      hard: {pods: "3", cpu: "1"}
  limitRanges:
    - name: standard
      limits:
        - type: Container
          default: {cpu: 500m, memory: 256Mi}
  probes:
    - name: fast
      periodSeconds: 2
spec:
`,
    );
    const result = ok(load(text));
    const group = result.katalog.spec.crds['website']?.operatorBox.onReconcile;
    expect(group?.resourceQuotas[0]?.hard).toEqual({ pods: '3', cpu: '1' });
    expect(group?.limitRanges[0]?.limits).toEqual([
      { type: 'Container', default: { cpu: '500m', memory: '256Mi' } },
    ]);
    const migrated = migrateKatalog(text);
    expect(migrated.problems).toEqual([]);
    expect(migrated.text).not.toContain('profiles:');
    expect(migrated.text).not.toContain('profile:');
    expect(migrated.changes.map((c) => c.message)).toContain(
      'removed: probes presets are not read (only resourceQuotas and limitRanges presets are expanded); a `profile:` that names one is refused where it is used',
    );
    const again = ok(load(migrated.text)).katalog.spec.crds['website']?.operatorBox.onReconcile;
    expect(again?.limitRanges).toEqual(group?.limitRanges);
    expect(again?.resourceQuotas).toEqual(group?.resourceQuotas);
  });

  it('points an error inside a registry preset at the preset, and refuses profiles.include', () => {
    const text = onReconcile(`          limitRanges:
            - name: lr
              profile: standard
`).replace(
      'spec:\n',
      `profiles:
  include: ./profiles.yaml
  limitRanges:
    - name: standard
      limits:
        - type: Container
          bogus: 1
spec:
`,
    );
    const result = load(text);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const line = (needle: string) => text.split('\n').findIndex((l) => l.includes(needle)) + 1;
    expect(result.errors.find((e) => e.path === 'profiles.include')).toMatchObject({
      line: line('include:'),
    });
    expect(result.errors.find((e) => e.message.includes('bogus'))).toMatchObject({ line: line('bogus') });
  });

  it('refuses a LimitRange profile (upstream has no built-in presets) at the key, naming it', () => {
    const result = load(
      onReconcile(`          limitRanges:
            - name: lr
              profile: standard
`),
    );
    expect(errors(result).map((e) => [e.line, e.column, e.path])).toEqual([
      [17, 15, `${base}.limitRanges[0].profile`],
    ]);
    expect(errors(result)[0]?.message).toContain(
      '`profile: standard` names no preset of `profiles.limitRanges`',
    );
  });
});

describe('entry-level keys upstream writes onto the CR or serves as a webhook', () => {
  const lineOf = (text: string, needle: string): number =>
    text.split('\n').findIndex((l) => l.includes(needle)) + 1;

  it('refuses conversion (a conversion webhook) at the key, with the reason, and keeps entry annotations', () => {
    const text = `${head()}      annotations:
        team: "{{ .spec.team }}"
      conversion:
        storageVersion: v1
        paths:
          - from: v1alpha1
            to: v1
            spec: {image: "{{ .spec.image }}"}
`;
    const result = load(text);
    const found = result.ok ? [] : result.errors;
    expect(found.map((e) => [e.path, e.line, e.column])).toEqual([
      ['spec.crds.website.conversion', lineOf(text, 'conversion:'), 7],
    ]);
    expect(found[0]?.message).toContain('conversion webhook');
    expect(found.some((e) => e.message.startsWith('unknown key'))).toBe(false);
  });
});

describe('a lifecycle group written as a list', () => {
  it('is refused in an upstream Katalog with the kind list to write, at the list', () => {
    const text = `${head()}      reconciler:
        onCreate:
          - name: "{{ .metadata.name }}"
            image: nginx
`;
    const result = load(text);
    const found = result.ok ? [] : result.errors;
    expect(found.map((e) => [e.path, e.line, e.column])).toEqual([
      ['spec.crds.website.operatorBox.onCreate', 15, 11],
    ]);
    expect(found[0]?.message).toContain('`onCreate: {deployments: [...]}`');
  });
});

describe('watch and preReconcile (G3)', () => {
  const box = (body: string) => `${head()}      operatorBox:\n${body}`;

  it('moves a flat operatorBox.watch to the entry, with its defaults, and drops index', () => {
    const text = box(`        watch:
          - apiVersion: apps/v1
            kind: Deployment
          - apiVersion: v1
            kind: ConfigMap
            namespace: platform
            name: shared-config
            on: [update]
            keyFrom: {name: main, namespace: shop}
            index:
              - {name: owner, field: '.metadata.ownerReferences[0].name'}
`);
    const result = ok(load(text));
    expect(result.katalog.spec.crds['website']?.watch).toEqual([
      { apiVersion: 'apps/v1', kind: 'Deployment', on: ['create', 'update', 'delete'] },
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        namespace: 'platform',
        name: 'shared-config',
        on: ['update'],
        keyFrom: { name: 'main', namespace: 'shop' },
      },
    ]);
    const migrated = migrateKatalog(text);
    expect(migrated.problems).toEqual([]);
    expect(migrated.text).not.toContain('index:');
    expect(migrated.text).not.toMatch(/operatorBox:\n\s+watch:/);
    expect(ok(load(migrated.text)).katalog.spec.crds['website']?.watch).toEqual(
      result.katalog.spec.crds['website']?.watch,
    );
  });

  it('moves observe.watch to the entry and refuses observe.events at the key, with the reason', () => {
    const good = box(`        observe:
          watch:
            - {apiVersion: v1, kind: Secret, keyFrom: {label: example.io/owner}}
`);
    expect(ok(load(good)).katalog.spec.crds['website']?.watch).toEqual([
      {
        apiVersion: 'v1',
        kind: 'Secret',
        on: ['create', 'update', 'delete'],
        keyFrom: { label: 'example.io/owner' },
      },
    ]);
    const bad = good + '          events:\n            ready: {reason: DatabaseReady}\n';
    const result = load(bad);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const line = bad.split('\n').findIndex((l) => l.includes('events:')) + 1;
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]).toMatchObject({ line, path: 'spec.crds.website.operatorBox.observe.events' });
    expect(result.errors[0]?.message).toMatch(/Kubernetes Events are not watched as triggers/);
  });

  it('refuses a keyFrom with both label and name, and an unknown event, at the field', () => {
    const result = load(
      box(`        watch:
          - {apiVersion: v1, kind: Secret, on: [patch], keyFrom: {label: a, name: b}}
`),
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const byPath = Object.fromEntries(result.errors.map((e) => [e.path, e.message]));
    expect(byPath['spec.crds.website.watch[0].on[0]']).toMatch(/expected create, update or delete/);
    expect(byPath['spec.crds.website.watch[0].keyFrom']).toMatch(/exactly one of label or name/);
  });

  it('drops a preReconcile that only declares sentinels, and refuses its gates with the reason', () => {
    const sentinels = box('        preReconcile:\n          sentinels: [generationChanged, labelsChanged]\n');
    ok(load(sentinels));
    const migrated = migrateKatalog(sentinels);
    expect(migrated.changes.some((c) => /sentinels only feed preReconcile gates/.test(c.message))).toBe(true);
    expect(migrated.text).not.toContain('preReconcile');
    const gated = sentinels + '          reconcileGate:\n            sentinels: [generationChanged]\n';
    const refused = load(gated);
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.errors).toHaveLength(1);
    expect(refused.errors[0]).toMatchObject({
      path: 'spec.crds.website.operatorBox.preReconcile.reconcileGate',
    });
    expect(refused.errors[0]?.message).toMatch(/there is no pre-reconcile gate/);
  });
});

describe('upstream notes and Katalog-level imports', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ork-notes-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(
    join(dir, 'team.yaml'),
    `apiVersion: orkestra.orkspace.io/v1
kind: Motif
metadata: {name: team}
notes:
  - name: fullImage
    expression: '{{ .spec.image }}:{{ .spec.tag | default "latest" }}'
  - name: appLabel
    expression: "{{ .metadata.name }}"
resources:
  configMaps: [{name: not-imported-here}]
`,
  );
  writeFileSync(
    join(dir, 'other.yaml'),
    'kind: Motif\nnotes:\n  functions:\n    - {name: fullImage, expression: "{{ .spec.x }}"}\n',
  );
  writeFileSync(join(dir, 'more.yaml'), 'functions:\n  - {name: region, expression: "{{ .spec.region }}"}\n');
  const katalog = (notes: string, imports = '  imports:\n    - motif: ./team.yaml\n') =>
    head().replace('spec:\n', `spec:\n${imports}`) +
    `      operatorBox:
        onReconcile:
          deployments:
            - name: "{{ appLabel }}"
              image: "{{ fullImage }}"
              labels: {region: "{{ region }}"}
${notes}`;
  const local =
    'notes:\n  include: ./more.yaml\n  functions:\n    - {name: appLabel, description: wins, expression: "{{ .metadata.name }}-app"}\n';

  it('writes out notes of the Katalog, its notes file and its spec.imports motifs where they are called', () => {
    const result = ok(load(katalog(local), dir));
    const deployment = result.katalog.spec.crds['website']?.operatorBox.onReconcile.deployments[0];
    expect(deployment?.name).toBe('{{ .metadata.name }}-app'); // the Katalog's own note wins
    expect(deployment?.image).toBe('{{ .spec.image }}:{{ .spec.tag | default "latest" }}');
    expect(deployment?.labels).toEqual({ region: '{{ .spec.region }}' });
    // The motif's resources are not imported at Katalog level (upstream reads only notes and profiles there).
    expect(result.katalog.spec.crds['website']?.operatorBox.onReconcile.configMaps).toEqual([]);
    const migrated = migrateKatalog(katalog(local), { baseDir: dir });
    expect(migrated.text).not.toMatch(/notes:|imports:|appLabel|fullImage/);
    expect(migrated.changes.map((c) => c.message)).toEqual(
      expect.arrayContaining([
        expect.stringContaining('resources not imported'),
        'removed: 2 notes read from its motifs, written out where they are called',
        'removed: 2 notes written out where they are called',
      ]),
    );
  });

  it('refuses the same note from two motifs, a bad name, an empty expression and a note that calls itself', () => {
    const errors = (text: string) => {
      const result = load(text, dir);
      return result.ok ? [] : result.errors.map((e) => `${e.line}:${e.column} ${e.path}: ${e.message}`);
    };
    expect(errors(katalog('', '  imports:\n    - motif: ./team.yaml\n    - motif: ./other.yaml\n'))).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /notes.functions\[0\].name: note `fullImage` is declared by two imported motifs/,
        ),
      ]),
    );
    const bad = errors(
      katalog(
        'notes:\n  - {name: full-image, expression: x}\n  - {name: region, expression: ""}\n  - {name: loop, expression: "{{ loop }}"}\n',
      ),
    );
    expect(bad).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^\d+:\d+ notes\[0\]\.name: note name "full-image" must be a Go identifier/),
        expect.stringMatching(/notes\[1\]\.expression: note `region` needs an `expression`/),
        expect.stringMatching(/notes\[2\]\.expression: note `loop` calls itself \(loop → loop\)/),
      ]),
    );
  });
});

describe('upstream ordered deletion stages, envFrom names and valueType', () => {
  const katalog = (box: string) => `${head()}      operatorBox:\n${box}`;

  it('names unnamed stages, drops kinds with no items and keeps only name and namespace of an item', () => {
    const text = katalog(`        onDelete:
          ordered: true
          groups:
            - clusterRoleBindings:
            - deployments:
                - name: "{{ .metadata.name }}-web"
                  image: nginx
            - name: stage-1
              clusterRoles: [{name: "{{ .metadata.name }}-reader"}]
              secrets:
`);
    const groups = ok(load(text)).katalog.spec.crds['website']?.operatorBox.onDelete?.groups ?? [];
    expect(groups.map((g) => g.name)).toEqual(['stage-1-2', 'stage-2', 'stage-1']);
    expect(groups[1]?.deployments).toEqual([{ name: '{{ .metadata.name }}-web' }]);
    expect(groups[2]?.custom).toEqual([
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: '{{ .metadata.name }}-reader' },
      },
    ]);
    expect(groups[0]?.deployments).toEqual([]);
  });

  it('makes the flat kind lists of an ordered onDelete its one stage, and removes them without ordered', () => {
    const flat = (ordered: string) =>
      katalog(
        `        onDelete:\n${ordered}          services: [{name: a}]\n          jobs: [{name: cleanup, image: busybox}]\n`,
      );
    const staged = ok(load(flat('          ordered: true\n'))).katalog.spec.crds['website']?.operatorBox
      .onDelete;
    expect(staged?.groups.map((g) => [g.name, g.services])).toEqual([['stage-1', [{ name: 'a' }]]]);
    expect(staged?.jobs.map((j) => j.name)).toEqual(['cleanup']);
    const unordered = ok(load(flat(''))).katalog.spec.crds['website']?.operatorBox.onDelete;
    expect(unordered?.groups).toEqual([]);
    expect(unordered?.jobs.map((j) => j.name)).toEqual(['cleanup']);
  });

  it('reads envFrom names as references and drops a validation rule’s valueType', () => {
    const text = katalog(`        onReconcile:
          deployments:
            - image: nginx
              envFrom:
                secretRef: ["{{ .metadata.name }}-creds", {name: shared, optional: true}]
                configMapRef: [settings]
`).replace(
      '      operatorBox:\n',
      '      validation:\n        rules:\n          - {field: spec.replicas, greaterThan: 0, valueType: integer, message: at least 1}\n      operatorBox:\n',
    );
    const entry = ok(load(text)).katalog.spec.crds['website'];
    expect(entry?.operatorBox.onReconcile.deployments[0]?.envFrom).toEqual({
      secretRef: [{ name: '{{ .metadata.name }}-creds' }, { name: 'shared', optional: true }],
      configMapRef: [{ name: 'settings' }],
    });
    expect(entry?.validation?.rules[0]).toMatchObject({
      condition: { field: 'spec.replicas', operator: 'gt' },
    });
    expect(entry?.validation?.rules[0]).not.toHaveProperty('valueType');
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

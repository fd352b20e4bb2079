import { describe, expect, it } from 'vitest';
import { migrateKatalog } from './migrate.js';
import { head, ok, load } from './dialect-fixtures.test-support.js';

/**
 * Upstream dialects, one test per mapping. Every fixture is written here from upstream's
 * documentation and type definitions (pkg/types of orkspace/orkestra and inrundev/inrun), not
 * copied from upstream files.
 */

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

  it("keeps a watch item's enqueueGate and writes its sentinel calls out (katalog.md §3.2)", () => {
    const gated = text.replace(
      '      operatorBox:\n',
      "      operatorBox:\n        watch:\n          - apiVersion: v1\n            kind: Node\n            enqueueGate:\n              sentinels: [labelsChanged]\n              when:\n                - field: '{{ annotationsChanged }}'\n                  equals: 'true'\n",
    );
    const result = ok(load(gated));
    const gate = result.katalog.spec.crds['website']?.watch?.[0]?.enqueueGate;
    expect(gate?.sentinels).toEqual(['labelsChanged']);
    expect(gate?.when[0]).toMatchObject({ field: '{{ .sentinels.annotationsChanged }}' });
  });

  it("refuses an external call in a watch item's enqueueGate, at the key", () => {
    const bad = text.replace(
      '      operatorBox:\n',
      '      operatorBox:\n        watch:\n          - {apiVersion: v1, kind: Node, enqueueGate: {external: [{name: flag, url: "https://flags.example.org/x"}]}}\n',
    );
    const result = load(bad);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const messages = result.errors.map((e) => `${e.path}: ${e.message}`);
    expect(messages.join('\n')).toMatch(
      /watch\[0\]\.enqueueGate\.external: a watch gate makes no external calls/,
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

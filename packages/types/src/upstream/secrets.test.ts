import { describe, expect, it } from 'vitest';
import { migrateKatalog } from './migrate.js';
import type { LoadKatalogResult } from '../load-katalog.js';
import { head, ok, load } from './dialect-fixtures.test-support.js';

/**
 * Upstream dialects, one test per mapping. Every fixture is written here from upstream's
 * documentation and type definitions (pkg/types of orkspace/orkestra and inrundev/inrun), not
 * copied from upstream files.
 */

describe('upstream Secret and ConfigMap copy, toNamespaces and auth.secretRef.namespace', () => {
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

  it('loads a copy source the CR chooses (the runtime copies it only when granted, ADR 0048); refuses a templated name copied out of the CR namespace', () => {
    const templatedNs = copy.replace('fromNamespace: platform', 'fromNamespace: "{{ .spec.ns }}"');
    expect(
      ok(load(templatedNs)).katalog.spec.crds['website']?.operatorBox.onReconcile.secrets[0]?.copyFrom,
    ).toEqual({ name: 'shared-registry', namespace: '{{ .spec.ns }}' });
    const templatedName = copy.replace('fromSecret: shared-registry', 'fromSecret: "{{ .spec.secret }}"');
    expect(errors(load(templatedName)).filter((e) => e.path.endsWith('secrets[0].copyFrom.name'))).toEqual(
      [],
    );
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
    expect(errors(load(templated)).some((e) => e.path.includes('copyFrom'))).toBe(false);
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

  describe('ConfigMap copy (fromConfigMap, ADR 0115)', () => {
    const cm = box(`        onReconcile:
          configMaps:
            - name: shared-settings
              fromConfigMap: base-settings
              fromNamespace: platform
              data: {LOG_LEVEL: debug}
              toNamespaces:
                - "{{ .metadata.namespace }}"
                - ci
`);
    const maps = (text: string) =>
      ok(load(text)).katalog.spec.crds['website']?.operatorBox.onReconcile.configMaps ?? [];

    it('maps fromConfigMap/fromNamespace onto copyFrom and toNamespaces onto one entry per namespace, as for Secrets', () => {
      const loaded = maps(cm);
      expect(loaded.map((m) => m.namespace)).toEqual(['{{ .metadata.namespace }}', 'ci']);
      for (const map of loaded) {
        expect(map.copyFrom).toEqual({ name: 'base-settings', namespace: 'platform' });
        expect(map.data).toEqual({ LOG_LEVEL: 'debug' });
      }
      expect(loaded[0]?.when).toEqual([
        expect.objectContaining({ field: '{{ .metadata.namespace }}', operator: 'exists' }),
      ]);
      // Without fromNamespace the source is in the CR's namespace.
      const own = maps(cm.replace('              fromNamespace: platform\n', ''));
      expect(own[0]?.copyFrom).toEqual({ name: 'base-settings' });
    });

    it('prints the copy in canonical form with ork migrate and positions each change', () => {
      const result = migrateKatalog(cm);
      expect(result.problems).toEqual([]);
      expect(result.text).toContain('copyFrom:');
      expect(result.text).not.toMatch(/fromConfigMap|fromNamespace|toNamespaces/);
      expect(result.changes.find((c) => c.path.endsWith('configMaps[0].fromConfigMap'))).toMatchObject({
        line: lineOf(cm, 'fromConfigMap'),
        column: columnOf(cm, 'fromConfigMap'),
        message: expect.stringContaining('copyFrom.name'),
      });
      expect(ok(load(result.text)).katalog).toEqual(ok(load(cm)).katalog);
    });

    it('refuses bad shapes at file:line:col with the field path', () => {
      const lone = cm.replace('              fromConfigMap: base-settings\n', '');
      expect(errors(load(lone))).toContainEqual(
        expect.objectContaining({
          path: expect.stringMatching(/configMaps\[0\]\.fromNamespace$/),
          line: lineOf(lone, 'fromNamespace'),
          column: columnOf(lone, 'fromNamespace'),
          message: expect.stringContaining('`fromNamespace` needs `fromConfigMap`'),
        }),
      );
      const twice = cm.replace('data: {LOG_LEVEL: debug}', 'copyFrom: {name: other}');
      expect(errors(load(twice))).toContainEqual(
        expect.objectContaining({
          path: expect.stringMatching(/configMaps\[0\]\.fromConfigMap$/),
          line: lineOf(twice, 'fromConfigMap'),
          message: expect.stringContaining('keep one'),
        }),
      );
      const badNamespace = cm.replace('fromNamespace: platform', 'fromNamespace: Not_A_Namespace');
      expect(errors(load(badNamespace))).toContainEqual(
        expect.objectContaining({
          path: expect.stringMatching(/configMaps\[0\]\.copyFrom\.namespace$/),
          line: lineOf(badNamespace, 'Not_A_Namespace'),
          message: expect.stringContaining('DNS-1123'),
        }),
      );
      const notList = cm.replace(/toNamespaces:[\s\S]*$/, 'toNamespaces: ci\n');
      expect(errors(load(notList))).toContainEqual(
        expect.objectContaining({
          path: expect.stringMatching(/configMaps\[0\]\.toNamespaces$/),
          line: lineOf(notList, 'toNamespaces'),
          message: expect.stringContaining('non-empty list'),
        }),
      );
    });

    it('loads a source the CR chooses (granted at run time); a CR-chosen target list needs allowedNamespaces; a templated name copied out of the CR namespace is refused', () => {
      const chosen = cm.replace('fromNamespace: platform', 'fromNamespace: "{{ .spec.from }}"');
      expect(maps(chosen)[0]?.copyFrom).toEqual({ name: 'base-settings', namespace: '{{ .spec.from }}' });
      const targets = cm.replace(
        '                - "{{ .metadata.namespace }}"\n                - ci\n',
        '                - "{{ .spec.targets }}"\n',
      );
      expect(
        errors(load(targets)).find((e) => e.path.endsWith('configMaps[0].namespace'))?.message,
      ).toContain('needs `allowedNamespaces`');
      const name = cm
        .replace('fromConfigMap: base-settings', 'fromConfigMap: "{{ .spec.source }}"')
        .replace('              fromNamespace: platform\n', '');
      expect(errors(load(name))).toContainEqual(
        expect.objectContaining({
          path: expect.stringMatching(/configMaps\[1\]\.copyFrom\.name$/),
          message: expect.stringContaining("the copy's namespace may differ from the CR's"),
        }),
      );
    });
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
});

/**
 * `rotateAfter` in each upstream generation (docs/reference/katalog.md §7.2, §24): on a generated
 * Secret it loads as written (it implies `once`); upstream's other `rotateAfter`, on the
 * gateway's token `secretRef`, leaves with the `gateway` block it belongs to.
 */
describe('upstream rotateAfter', () => {
  const secretEntry = `      operatorBox:
        onCreate:
          secrets:
            - name: "{{ .metadata.name }}-creds"
              once: true
              rotateAfter: 90d
              data:
                password: "{{ randomAlphanumeric 32 }}"
            - name: "{{ .metadata.name }}-tls"
              rotateAfter: 1y
              tls:
                commonName: "{{ .metadata.name }}.{{ .metadata.namespace }}.svc"
`;
  for (const apiVersion of [
    'orkestra.orkspace.io/v1',
    'orkestra.konductor.io/v1Alpha',
    'controller.orkestra.io/v1',
  ])
    it(`keeps a generated Secret's rotateAfter in ${apiVersion}`, () => {
      const result = ok(load(head(apiVersion) + secretEntry));
      const secrets = result.katalog.spec.crds['website']?.operatorBox.onCreate?.secrets ?? [];
      expect(secrets.map((s) => [s.rotateAfter, s.once])).toEqual([
        ['90d', true],
        ['1y', true],
      ]);
      expect(result.warnings.filter((w) => w.path.includes('secrets'))).toEqual([]);
    });

  it('refuses an invalid rotateAfter at its position', () => {
    const text = head() + secretEntry.replace('rotateAfter: 90d', 'rotateAfter: soon');
    const result = load(text);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const line = text.split('\n').findIndex((l) => l.includes('rotateAfter: soon')) + 1;
    expect(result.errors[0]).toMatchObject({
      line,
      path: 'spec.crds.website.operatorBox.onCreate.secrets[0].rotateAfter',
    });
  });

  it("removes the gateway's token secretRef.rotateAfter with the gateway block, in both gateway generations", () => {
    for (const block of ['api', 'applyAPI']) {
      const text = head().replace(
        'spec:\n',
        `gateway:\n  ${block}:\n    enabled: true\n    auth:\n      tokens:\n        - name: ci\n          secretRef:\n            name: ork-apply-token\n            key: token\n            rotateAfter: 90d\nspec:\n`,
      );
      ok(load(text));
      const migrated = migrateKatalog(text);
      expect(migrated.problems).toEqual([]);
      expect(migrated.text).not.toMatch(/gateway:|rotateAfter|ork-apply-token/);
      const change = migrated.changes.find((c) => JSON.stringify(c).includes('gateway'));
      expect(JSON.stringify(change)).toMatch(/not part of Orkestra/);
    }
  });
});

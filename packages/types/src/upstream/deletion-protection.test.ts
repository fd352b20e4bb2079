import { describe, expect, it } from 'vitest';
import { migrateKatalog } from './migrate.js';
import { loadKatalog } from '../load-katalog.js';

/** Upstream's `security.deletionProtection` (fixtures written from upstream's docs, not copied). */

const katalog = (security: string, extraSpec = ''): string => `apiVersion: orkestra.orkspace.io/v1
kind: Katalog
metadata:
  name: demo
security:
${security}
spec:
${extraSpec}  crds:
    website:
      apiTypes: {group: demo.example.io, version: v1alpha1, kind: Website, plural: websites}
`;

const load = (text: string) => loadKatalog({ text, file: 'katalog.yaml' });

describe('security.deletionProtection', () => {
  it('becomes spec.deletionProtection {crds: true}; its webhook settings are dropped with a note', () => {
    const text = katalog(
      '  deletionProtection:\n    enabled: true\n    cleanupOnShutdown: true\n    failurePolicy: Fail',
    );
    const result = load(text);
    if (!result.ok) throw new Error(result.errors.map((e) => e.message).join('\n'));
    expect(result.katalog.spec.deletionProtection).toEqual({ crds: true, children: false });
    const migrated = migrateKatalog(text);
    expect(migrated.problems).toEqual([]);
    expect(migrated.changes.map((c) => `${c.path}: ${c.message}`)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^security\.deletionProtection\.cleanupOnShutdown: removed: the protection is a ValidatingAdmissionPolicy/,
        ),
        expect.stringMatching(
          /^security\.deletionProtection\.failurePolicy: removed: a ValidatingAdmissionPolicy is evaluated inside/,
        ),
        expect.stringMatching(
          /^security\.deletionProtection: moved to spec\.deletionProtection: \{crds: true\}/,
        ),
      ]),
    );
    expect(migrated.text).toMatch(/deletionProtection:\s*\n\s+crds: true/);
    expect(migrated.text).not.toContain('security:');
  });

  it('is off when disabled, and absent from a Katalog that does not ask', () => {
    const off = load(katalog('  deletionProtection:\n    enabled: false'));
    expect(off.ok && off.katalog.spec.deletionProtection).toBeUndefined();
    const none = load(katalog('  webhooks: {}'));
    expect(none.ok && none.katalog.spec.deletionProtection).toBeUndefined();
  });

  it('refuses an unknown key of the block at the key, and the block beside spec.deletionProtection', () => {
    const unknown = katalog('  deletionProtection:\n    enabled: true\n    protectOperator: true');
    const result = load(unknown);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const line = unknown.split('\n').findIndex((l) => l.includes('protectOperator')) + 1;
    expect(result.errors[0]).toMatchObject({ line, path: 'security.deletionProtection.protectOperator' });
    const twice = load(
      katalog('  deletionProtection:\n    enabled: true', '  deletionProtection: {children: true}\n'),
    );
    expect(twice.ok).toBe(false);
    if (twice.ok) return;
    expect(twice.errors[0]?.message).toMatch(/written twice/);
  });
});

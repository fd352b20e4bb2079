import { describe, expect, it } from 'vitest';
import { loadKatalog } from '../load-katalog.js';
import { migrateKatalog } from './migrate.js';
import { GADGET_ENTRY, ok } from './dialect-fixtures.test-support.js';

/**
 * Upstream's `lifecycle` and `publish` blocks and the older `metadata.deprecation`
 * (docs/reference/katalog.md §2.5, §2.6, §24), one test per written form and generation. Every
 * fixture is written here from upstream's type definitions (KatalogLifecycle, PublishConfig) and
 * documentation, not copied from upstream files.
 */

const entry = GADGET_ENTRY;
const doc = (
  middle: string,
  metadataExtra = '',
  apiVersion = 'orkestra.orkspace.io/v1',
) => `apiVersion: ${apiVersion}
kind: Katalog
metadata:
  name: gadgets
  version: 1.2.0
${metadataExtra}${middle}${entry}`;

const now = () => new Date('2026-12-06T12:00:00Z');
const load = (text: string) => loadKatalog({ text, file: 'katalog.yaml' }, { now });

describe('lifecycle (newer generation, top level)', () => {
  it('loads maturity, deprecation and compatibility and warns at the deprecation', () => {
    const result = ok(
      load(
        doc(`lifecycle:
  maturity: deprecated
  deprecation:
    message: Use gizmos instead
    migratedTo: gizmos:v1
    timeline:
      from: "2026-10-01"
      to: "2027-02-01"
  compatibility:
    kubernetes: ">=1.28"
    orkestra: ">=0.7.0"
`),
      ),
    );
    expect(result.katalog.lifecycle).toEqual({
      maturity: 'deprecated',
      deprecation: {
        message: 'Use gizmos instead',
        migratedTo: 'gizmos:v1',
        timeline: { from: '2026-10-01', to: '2027-02-01' },
      },
      compatibility: { kubernetes: '>=1.28', orkestra: '>=0.7.0' },
    });
    const warning = result.warnings.find((w) => w.path === 'lifecycle.deprecation');
    expect(warning).toMatchObject({ line: 8, column: 3 });
    expect(warning?.message).toBe(
      'this Katalog is deprecated: Use gizmos instead; migrate to gizmos:v1; end of life in 57 days (2027-02-01)',
    );
  });

  it('the same block in the canonical apiVersion loads unchanged', () => {
    const result = ok(load(doc('lifecycle:\n  maturity: beta\n', '', 'orkestra.konductor.io/v1alpha1')));
    expect(result.katalog.lifecycle).toEqual({ maturity: 'beta' });
    expect(result.warnings.map((w) => [w.line, w.column, w.path])).toEqual([[7, 3, 'lifecycle.maturity']]);
  });

  it.each([
    ['deprecation:\n    migratedTo: x', 8, 5, 'lifecycle.deprecation', /needs `message`/],
    ['maturity: experimental', 7, 13, 'lifecycle.maturity', /alpha, beta, stable, deprecated/],
    [
      'compatibility:\n    kubernetes: "!!!invalid"',
      8,
      17,
      'lifecycle.compatibility.kubernetes',
      /not a valid version range/,
    ],
    [
      'deprecation:\n    message: m\n    timeline:\n      to: "2027-13-01"',
      10,
      11,
      'lifecycle.deprecation.timeline.to',
      /not a valid date/,
    ],
    [
      'deprecation:\n    message: m\n    timeline:\n      from: "2027-02-01"\n      to: "2027-01-01"',
      10,
      13,
      'lifecycle.deprecation.timeline.from',
      /must be before/,
    ],
  ])('refuses %j at its position', (block, line, column, path, message) => {
    const result = load(doc(`lifecycle:\n  ${block}\n`));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors).toEqual([
      expect.objectContaining({ line, column, path, message: expect.stringMatching(message) }),
    ]);
  });
});

describe('lifecycle.accept', () => {
  it('is refused in a Katalog for upstream’s reason, at the key', () => {
    const result = load(doc('lifecycle:\n  accept:\n    patterns: []\n'));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((e) => [e.line, e.column, e.path])).toEqual([[7, 3, 'lifecycle.accept']]);
    expect(result.errors[0]?.message).toMatch(/only valid in a Komposer/);
  });
});

describe('metadata.deprecation (older generation)', () => {
  const older = doc(
    '',
    `  deprecation:
    message: Use gizmos instead
    migratedTo: gizmos:v1
    timeline:
      from: "2026-10-01"
      to: "2027-02-01"
    accept:
      beforeEol: true
`,
  );

  it('becomes lifecycle.deprecation; accept is removed with a note', () => {
    const result = ok(load(older));
    expect(result.katalog.lifecycle?.deprecation?.message).toBe('Use gizmos instead');
    expect(result.katalog.metadata).not.toHaveProperty('deprecation');
    // The warning points at the block where the user wrote it.
    expect(result.warnings.find((w) => w.path === 'lifecycle.deprecation')).toMatchObject({
      line: 6,
      column: 3,
    });
  });

  it('ork migrate writes the lifecycle block below metadata', () => {
    const migrated = migrateKatalog(older);
    expect(migrated.problems).toEqual([]);
    expect(migrated.text).toContain(`  version: 1.2.0
lifecycle:
  deprecation:
    message: Use gizmos instead
    migratedTo: gizmos:v1
    timeline:
      from: "2026-10-01"
      to: "2027-02-01"
spec:`);
    expect(migrated.text).not.toContain('accept');
  });

  it('a missing message is refused where the user wrote the block', () => {
    const result = load(doc('', '  deprecation:\n    migratedTo: gizmos:v1\n'));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors).toEqual([
      expect.objectContaining({
        line: 7,
        column: 5,
        path: 'lifecycle.deprecation',
        message: expect.stringMatching(/needs `message`/),
      }),
    ]);
  });
});

describe('publish', () => {
  it('accepts signing and says it is not verified', () => {
    const result = ok(
      load(
        doc(`publish:
  signing:
    verify: true
    expectedIdentities:
      - https://ci.example.com/release@refs/heads/main
`),
      ),
    );
    expect(result.katalog.publish?.signing?.verify).toBe(true);
    expect(result.warnings.find((w) => w.path === 'publish.signing')).toMatchObject({
      line: 7,
      column: 3,
      message: 'publish.signing is recorded; Orkestra does not verify signatures of published Katalogs yet',
    });
  });

  it('refuses an empty expected identity', () => {
    const result = load(doc('publish:\n  signing:\n    expectedIdentities: [""]\n'));
    expect(result.ok).toBe(false);
  });
});

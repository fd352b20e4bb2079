import type { LoadKatalogResult } from '../load-katalog.js';
import { describe, expect, it } from 'vitest';
import { migrateKatalog } from './migrate.js';
import { gadgetHead, load, ok } from './dialect-fixtures.test-support.js';

/**
 * Upstream's `preReconcile` (docs/reference/katalog.md §20.3, ADR 0047) in each generation that has
 * it. Every fixture is written here from upstream's type definitions (PreReconcileConfig,
 * GateConditions, the sentinel names) and release notes, not copied from upstream files.
 */

const head = (apiVersion?: string): string => gadgetHead('gates', apiVersion);

const entryOf = (result: LoadKatalogResult) => ok(result).katalog.spec.crds['gadget'];

describe('preReconcile', () => {
  it('G2 (v0.7.15, anyOf): operatorBox.preReconcile moves to the entry with both gates', () => {
    const text = `${head()}      operatorBox:
        default: true
        preReconcile:
          enqueueGate:
            when:
              - field: "{{ .spec.active }}"
                equals: "true"
          reconcileGate:
            failPolicy: closed
            anyOf:
              - field: "{{ .spec.environment }}"
                equals: production
              - field: "{{ .spec.environment }}"
                equals: staging
`;
    const pre = entryOf(load(text))?.preReconcile;
    expect(pre?.enqueueGate).toEqual({
      sentinels: [],
      external: [],
      failPolicy: 'open',
      eventAware: false,
      when: [expect.objectContaining({ field: '{{ .spec.active }}', operator: 'equals', value: 'true' })],
      anyOf: [],
    });
    expect(pre?.reconcileGate?.failPolicy).toBe('closed');
    expect(pre?.reconcileGate?.anyOf).toHaveLength(2);
    const migrated = migrateKatalog(text);
    expect(migrated.problems).toEqual([]);
    expect(migrated.text).toMatch(/\n {6}preReconcile:\n {8}enqueueGate:/);
    expect(migrated.text).not.toContain('operatorBox:\n        default');
  });

  it('G3 (v0.7.17+, or): sentinels, eventAware and a sentinel called as upstream writes it', () => {
    const text = `${head()}      operatorBox:
        preReconcile:
          sentinels: [generationChanged, labelsChanged]
          enqueueGate:
            sentinels: [generationChanged]
          reconcileGate:
            eventAware: true
            or:
              - field: "{{ labelsChanged }}"
                equals: "true"
              - field: "{{ .spec.force }}"
                equals: "yes"
        reconcile:
          workers: 2
`;
    const pre = entryOf(load(text))?.preReconcile;
    expect(pre?.sentinels).toEqual(['generationChanged', 'labelsChanged']);
    expect(pre?.enqueueGate?.sentinels).toEqual(['generationChanged']);
    expect(pre?.reconcileGate?.eventAware).toBe(true);
    expect(pre?.reconcileGate?.anyOf[0]).toMatchObject({ field: '{{ .sentinels.labelsChanged }}' });
  });

  it('a sentinel called in a gate but not declared is an error at the template', () => {
    const text = `${head()}      operatorBox:
        preReconcile:
          sentinels: [generationChanged]
          enqueueGate:
            when:
              - field: "{{ labelsChanged }}"
                equals: "true"
`;
    const result = load(text);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors[0]?.message).toMatch(
      /sentinel labelsChanged is used in enqueueGate but not declared/,
    );
    expect(result.errors[0]?.line).toBe(18); // the `- field:` item
  });

  it('a gate sentinel outside the declared ones, or an unknown name, is refused at the item', () => {
    const undeclared = load(`${head()}      preReconcile:
        sentinels: [generationChanged]
        reconcileGate:
          sentinels: [finalizersChanged]
`);
    expect(undeclared.ok).toBe(false);
    if (!undeclared.ok)
      expect(undeclared.errors[0]).toMatchObject({
        path: expect.stringContaining('reconcileGate.sentinels[0]'),
        message: expect.stringMatching(/not declared in preReconcile.sentinels/),
      });
    const unknown = load(`${head()}      preReconcile:
        enqueueGate:
          sentinels: [specChanged]
`);
    expect(unknown.ok).toBe(false);
  });

  it('G2 (v0.7.15, anyOf): a gate external call loads; conditions read it as external.<name>', () => {
    const text = `${head()}      operatorBox:
        preReconcile:
          reconcileGate:
            failPolicy: closed
            external:
              - name: flags
                url: https://flags.example.com/v1/{{ .metadata.name }}
                timeout: 2s
            anyOf:
              - field: "{{ .external.flags.enabled }}"
                equals: "true"
`;
    const gate = entryOf(load(text))?.preReconcile?.reconcileGate;
    expect(gate?.failPolicy).toBe('closed');
    expect(gate?.external).toEqual([
      expect.objectContaining({
        name: 'flags',
        url: 'https://flags.example.com/v1/{{ .metadata.name }}',
        timeout: '2s',
      }),
    ]);
    // Upstream's `external.<name>.<field>` is the canonical `external.<name>.json.<field>`.
    expect(gate?.anyOf[0]).toMatchObject({ field: '{{ .external.flags.json.enabled }}' });
    expect(migrateKatalog(text).problems).toEqual([]);
  });

  it('G3 (v0.7.17+, or): the shared preReconcile.external and an enqueueGate call, with the protocol key', () => {
    const text = `${head()}      operatorBox:
        preReconcile:
          external:
            - name: region
              protocol: https
              url: https://meta.example.com/region
          enqueueGate:
            failPolicy: open
            external:
              - name: window
                url: https://window.example.com/open
            or:
              - field: "{{ .external.window.json.open }}"
                equals: "true"
`;
    const pre = entryOf(load(text))?.preReconcile;
    expect(pre?.external.map((c) => c.name)).toEqual(['region']);
    expect(pre?.external[0]?.protocol).toBe('http');
    expect(pre?.enqueueGate?.external.map((c) => c.name)).toEqual(['window']);
    expect(pre?.enqueueGate?.anyOf).toHaveLength(1);
  });

  it('a gate call named as a shared preReconcile call is refused at the name', () => {
    const result = load(`${head()}      preReconcile:
        external:
          - name: flags
            url: https://flags.example.com
        reconcileGate:
          external:
            - name: flags
              url: https://other.example.com
`);
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(result.errors[0]).toMatchObject({
        path: expect.stringContaining('reconcileGate.external[0].name'),
        message: expect.stringMatching(/declared twice/),
      });
  });
});

import { describe, expect, it } from 'vitest';
import { migrateKatalog } from './migrate.js';
import { head, ok, load } from './dialect-fixtures.test-support.js';
import { loadKatalog } from '../load-katalog.js';

/**
 * Upstream's declarative outcomes: `emit.events` (docs/reference/katalog.md §20.5) and
 * `runtime.cleanup` (§20.6), in the sectioned (G3) and flat (G2) layouts and the canonical form.
 * Fixtures written here from upstream's EmitConfig/CleanupConfig types and its v0.7.18 notes, not
 * copied from upstream files.
 */
const indent = (text: string): string => text.replace(/^(?=.)/gm, '  ');
const events = `          synced:
            reason: Synced
            message: "{{ .metadata.name }} reconciled"
            type: Normal
            on: [success]
          degraded:
            reason: Degraded
            message: "failed {{ .consecutiveFails }} times: {{ .lastError }}"
            type: Warning
            on: [failure]
            when:
              - field: "{{ .health.consecutiveFails }}"
                greaterThan: "3"
`;
const cleanup = `          or:
            - field: status.phase
              equals: Completed
            - field: status.phase
              equals: Failed
          deleteAfter: 60s
`;

describe('emit.events and runtime.cleanup', () => {
  it('G3: operatorBox.emit.events and operatorBox.runtime.cleanup become the entry’s events and cleanup', () => {
    const text = `${head()}      operatorBox:
        runtime:
          cleanup:
${indent(cleanup)}        emit:
          events:
${indent(events)}`;
    const entry = ok(load(text)).katalog.spec.crds['website'];
    expect(entry?.events?.['synced']).toEqual({
      type: 'Normal',
      reason: 'Synced',
      message: '{{ .metadata.name }} reconciled',
      on: ['success'],
      when: [],
      anyOf: [],
    });
    expect(entry?.events?.['degraded']?.when[0]).toMatchObject({ field: '{{ .health.consecutiveFails }}' });
    expect(entry?.cleanup?.deleteAfter).toBe('60s');
    expect(entry?.cleanup?.anyOf).toHaveLength(2);
    const migrated = migrateKatalog(text);
    expect(migrated.problems).toEqual([]);
    expect(migrated.text).toMatch(/\n {6}cleanup:\n/);
    expect(migrated.text).toMatch(/\n {6}events:\n {8}synced:/);
  });

  it('G2 (flat operatorBox): events and cleanup move to the entry', () => {
    const text = `${head()}      operatorBox:
        default: true
        cleanup:
${cleanup}        events:
${events}`;
    const entry = ok(load(text)).katalog.spec.crds['website'];
    expect(Object.keys(entry?.events ?? {})).toEqual(['synced', 'degraded']);
    expect(entry?.cleanup?.anyOf[1]).toMatchObject({ field: 'status.phase' });
  });

  it('the canonical form loads as written; on defaults to [] (always) and deleteAfter to 0s', () => {
    const text = `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: demo}
spec:
  crds:
    website:
      apiTypes: {group: demo.example.io, version: v1alpha1, kind: Website, plural: websites}
      events:
        seen: {type: Normal, reason: Seen, message: ok}
      cleanup:
        when: [{field: status.phase, equals: Done}]
`;
    const entry = ok(loadKatalog({ text, file: 'katalog.yaml' })).katalog.spec.crds['website'];
    expect(entry?.events?.['seen']?.on).toEqual([]);
    expect(entry?.cleanup).toEqual({
      deleteAfter: '0s',
      when: [{ field: 'status.phase', operator: 'equals', value: 'Done', negate: false }],
      anyOf: [],
    });
  });

  it('refuses a bad event type, an unknown trigger and a cleanup without a condition, each at its key', () => {
    const text = `${head()}      operatorBox:
        emit:
          events:
            a: {type: Info, reason: A, message: a}
            b: {type: Normal, reason: B, message: b, on: [sometimes]}
        runtime:
          cleanup:
            deleteAfter: 1m
`;
    const result = load(text);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const byPath = Object.fromEntries(result.errors.map((e) => [e.path, e]));
    expect(byPath['spec.crds.website.events.a.type']?.message).toBe('type must be Normal or Warning');
    expect(byPath['spec.crds.website.events.b.on[0]']?.message).toBe(
      'on is a list of always, success and failure',
    );
    expect(byPath['spec.crds.website.cleanup']?.message).toBe(
      'cleanup needs a condition (when or or) naming the terminal state',
    );
    const lines = text.split('\n');
    expect(byPath['spec.crds.website.events.a.type']?.line).toBe(
      lines.findIndex((l) => l.includes('type: Info')) + 1,
    );
  });
});

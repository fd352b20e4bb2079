import { describe, expect, it } from 'vitest';
import { KATALOG_API_VERSION } from '../metadata.js';
import { migrateKatalog } from './migrate.js';
import { load, ok } from './dialect-fixtures.test-support.js';

/**
 * Upstream's `rollback` / `rollBackOnError` (docs/reference/katalog.md §20.4) in the flat (G2) and
 * sectioned (G3, `operatorBox.runtime`) layouts. Fixtures written here from upstream's
 * RollbackBlock/RollBackOnError types and its rollback document, not copied from upstream files.
 */
const head = `apiVersion: orkestra.orkspace.io/v1
kind: Katalog
metadata:
  name: rb
spec:
  crds:
    gadget:
      apiTypes: {group: demo.example.io, version: v1, kind: Gadget, plural: gadgets}
`;
describe('rollback', () => {
  it('G2: rollBackOnError with a trigger becomes rollback {trigger, reapplyPreviousSpec}', () => {
    const text = `${head}      operatorBox:
        default: true
        rollBackOnError: true
        rollback:
          trigger:
            consecutiveFailures: 5
            withinDuration: 10m
`;
    expect(ok(load(text)).katalog.spec.crds['gadget']?.rollback).toEqual({
      trigger: { consecutiveFailures: 5, withinDuration: '10m' },
      reapplyPreviousSpec: true,
    });
    const migrated = migrateKatalog(text);
    expect(migrated.problems).toEqual([]);
    expect(migrated.text).toMatch(/\n {6}rollback:\n {8}trigger:/);
  });

  it('G3: the shorthand alone under operatorBox.runtime takes the default trigger (3 failures)', () => {
    const text = `${head}      operatorBox:
        runtime:
          rollBackOnError: true
`;
    expect(ok(load(text)).katalog.spec.crds['gadget']?.rollback).toEqual({
      trigger: { consecutiveFailures: 3 },
      reapplyPreviousSpec: true,
    });
  });

  it('a rollback block without the shorthand stops the CR without re-applying', () => {
    const block = `${head}      operatorBox:
        rollback:
          trigger: {consecutiveFailures: 2}
`;
    expect(ok(load(block)).katalog.spec.crds['gadget']?.rollback?.reapplyPreviousSpec).toBe(false);
  });

  it('G2: onRollback kind lists over .previous load as the rollback group (labels list upgraded)', () => {
    const text = `${head}      operatorBox:
        rollback:
          trigger: {consecutiveFailures: 2, withinDuration: 5m}
          onRollback:
            configMaps:
              - name: "{{ .previous.metadata.name }}-config"
                labels:
                  - key: tier
                    value: fallback
                data:
                  image: "{{ .previous.spec.image }}"
                reconcile: true
`;
    const rollback = ok(load(text)).katalog.spec.crds['gadget']?.rollback;
    expect(rollback?.trigger).toEqual({ consecutiveFailures: 2, withinDuration: '5m' });
    expect(rollback?.reapplyPreviousSpec).toBe(false);
    const configMap = rollback?.onRollback?.configMaps[0] as Record<string, unknown> | undefined;
    expect(configMap?.['name']).toBe('{{ .previous.metadata.name }}-config');
    expect(configMap?.['labels']).toEqual({ tier: 'fallback' });
    expect(configMap?.['data']).toEqual({ image: '{{ .previous.spec.image }}' });
    const migrated = migrateKatalog(text);
    expect(migrated.problems).toEqual([]);
    expect(migrated.text).toMatch(/\n {6}rollback:\n(.*\n)* {8}onRollback:\n {10}configMaps:/);
    // The migrated (canonical) text loads to the same block.
    expect(ok(load(migrated.text)).katalog.spec.crds['gadget']?.rollback).toEqual(rollback);
  });

  it('G3: onRollback beside rollBackOnError under operatorBox.runtime keeps both (onRollback wins at run time)', () => {
    const text = `${head}      operatorBox:
        runtime:
          rollBackOnError: true
          rollback:
            onRollback:
              deployments:
                - name: "{{ .previous.metadata.name }}"
                  image: "{{ .previous.spec.image }}"
`;
    const rollback = ok(load(text)).katalog.spec.crds['gadget']?.rollback;
    expect(rollback?.reapplyPreviousSpec).toBe(true);
    expect(rollback?.trigger).toEqual({ consecutiveFailures: 3 });
    expect(rollback?.onRollback?.deployments).toHaveLength(1);
  });

  it('canonical: onRollback takes resource lists only, with a positioned error for a hook block', () => {
    const text = `apiVersion: ${KATALOG_API_VERSION}
kind: Katalog
metadata:
  name: rb
spec:
  crds:
    gadget:
      apiTypes: {group: demo.example.io, version: v1, kind: Gadget, plural: gadgets}
      rollback:
        onRollback:
          external:
            - name: ping
              url: https://example.com/ping
`;
    const result = load(text);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.errors[0]?.path).toBe('spec.crds.gadget.rollback.onRollback.external');
      expect(result.errors[0]?.message).toMatch(/onRollback holds resource lists only/);
      expect(result.errors[0]?.line).toBe(12);
    }
  });
});

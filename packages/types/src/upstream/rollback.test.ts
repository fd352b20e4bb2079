import { describe, expect, it } from 'vitest';
import { loadKatalog } from '../load-katalog.js';
import type { LoadKatalogResult } from '../load-katalog.js';
import { migrateKatalog } from './migrate.js';

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
const load = (text: string) => loadKatalog({ text, file: 'katalog.yaml' });
function ok(result: LoadKatalogResult) {
  if (!result.ok)
    throw new Error(result.errors.map((e) => `${e.line}:${e.column} ${e.path}: ${e.message}`).join('\n'));
  return result;
}

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

  it('a rollback block without the shorthand stops the CR without re-applying; onRollback is refused', () => {
    const block = `${head}      operatorBox:
        rollback:
          trigger: {consecutiveFailures: 2}
`;
    expect(ok(load(block)).katalog.spec.crds['gadget']?.rollback?.reapplyPreviousSpec).toBe(false);
    const templates = `${block}          onRollback:
            configMaps:
              - name: "{{ .previous.metadata.name }}-config"
`;
    const result = load(templates);
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(result.errors[0]?.message).toMatch(/`onRollback` has no counterpart.*rollBackOnError: true/);
  });
});

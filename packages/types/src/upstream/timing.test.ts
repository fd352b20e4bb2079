import type { LoadKatalogResult } from '../load-katalog.js';
import { describe, expect, it } from 'vitest';
import { migrateKatalog } from './migrate.js';
import { gadgetHead, load, ok } from './dialect-fixtures.test-support.js';

/**
 * Upstream's `requeue` and `retryBackoff` (docs/reference/katalog.md §20), one test per written form
 * and generation. Every fixture is written here from upstream's type definitions (RequeueConfig,
 * Queue.RetryBackoff, ExternalCallSpec.RetryBackoff) and release notes, not copied from upstream files.
 */

const head = (apiVersion?: string): string => gadgetHead('timing', apiVersion);

const entryOf = (result: LoadKatalogResult) => ok(result).katalog.spec.crds['gadget'];

describe('requeue', () => {
  it('G2: operatorBox.reconciler.requeue {after, when} becomes the entry key, one rule', () => {
    const text = `${head()}      operatorBox:
        reconciler:
          requeue:
            after: '{{ .spec.every | default "45s" }}'
            when:
              - field: spec.active
                equals: "yes"
`;
    expect(entryOf(load(text))?.requeue).toEqual([
      {
        after: '{{ .spec.every | default "45s" }}',
        when: [expect.objectContaining({ field: 'spec.active' })],
        anyOf: [],
      },
    ]);
    const migrated = migrateKatalog(text);
    expect(migrated.problems).toEqual([]);
    expect(migrated.text).toMatch(/\n {6}requeue:\n {8}after: '\{\{ \.spec\.every/);
    expect(migrated.text).not.toContain('reconciler:');
  });

  it('G3: operatorBox.reconcile.requeue with `or` maps `or` onto anyOf', () => {
    const text = `${head()}      operatorBox:
        reconcile:
          requeue:
            after: 2m
            or:
              - field: status.phase
                equals: Pending
`;
    const rules = entryOf(load(text))?.requeue;
    expect(rules?.[0]?.after).toBe('2m');
    expect(rules?.[0]?.anyOf).toHaveLength(1);
  });

  it('the release that introduced it: a list of rules under operatorBox, with timeUntil', () => {
    const text = `${head()}      operatorBox:
        requeue:
          - when:
              - field: status.phase
                equals: Issued
            after: '{{ timeUntil .status.notAfter }}'
          - after: 10m
`;
    const rules = entryOf(load(text))?.requeue;
    expect(rules?.map((r) => r.after)).toEqual(['{{ timeUntil .status.notAfter }}', '10m']);
    expect(migrateKatalog(text).text).toMatch(/\n {6}requeue:\n {8}- when:/);
  });

  it('canonical shorthand: requeue: 2s', () => {
    const text = `${head('orkestra.konductor.io/v1alpha1')}      requeue: 2s
`;
    expect(entryOf(load(text))?.requeue).toEqual([{ after: '2s', when: [], anyOf: [] }]);
  });

  it('refuses an `after` that is neither a duration nor a template, at the key', () => {
    const text = `${head()}      operatorBox:
        reconciler:
          requeue:
            after: "soon-ish"
`;
    const result = load(text);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors[0]?.message).toMatch(/requeue `after` must be a duration/);
    expect(result.errors[0]?.line).toBe(16);
    expect(result.errors.map((e) => e.message).join('\n')).not.toMatch(/no counterpart/);
  });
});

describe('retryBackoff', () => {
  it('queue shorthand `retryBackoff: 5s` sets initial only; migrate writes the map', () => {
    const text = `${head()}      operatorBox:
        reconciler:
          queue:
            retryBackoff: 5s
`;
    expect(entryOf(load(text))?.queue.retryBackoff).toEqual({
      initial: '5s',
      max: '1000s',
      multiplier: 2,
      maxAttempts: 0,
    });
    const migrated = migrateKatalog(text);
    expect(migrated.text).toMatch(/retryBackoff:\n {10}initial: 5s/);
    expect(migrated.changes.some((c) => c.message.includes('shorthand'))).toBe(true);
  });

  it('full form on the queue and on an external call', () => {
    const text = `${head()}      operatorBox:
        reconciler:
          queue:
            retryBackoff:
              initial: 250ms
              max: 20s
              multiplier: 3
              maxAttempts: 4
        onReconcile:
          external:
            - name: probe
              url: http://probe.example/ready
              retryBackoff:
                initial: 2s
                max: 8s
                multiplier: 1.5
                maxAttempts: 2
            - name: short
              url: http://probe.example/short
              retryBackoff: 3s
`;
    const entry = entryOf(load(text));
    expect(entry?.queue.retryBackoff).toEqual({
      initial: '250ms',
      max: '20s',
      multiplier: 3,
      maxAttempts: 4,
    });
    const calls = entry?.operatorBox.external ?? [];
    expect(calls.find((c) => c.name === 'probe')?.retryBackoff).toEqual({
      initial: '2s',
      max: '8s',
      multiplier: 1.5,
      maxAttempts: 2,
    });
    expect(calls.find((c) => c.name === 'short')?.retryBackoff).toMatchObject({
      initial: '3s',
      maxAttempts: 3,
    });
  });

  it('refuses max below initial and a multiplier under 1', () => {
    const text = `${head('orkestra.konductor.io/v1alpha1')}      queue:
        retryBackoff: {initial: 10s, max: 1s, multiplier: 0.5}
`;
    const result = load(text);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const messages = result.errors.map((e) => e.message).join('\n');
    expect(messages).toMatch(/multiplier must be at least 1/);
  });
});

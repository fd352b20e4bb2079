import { describe, expect, it } from 'vitest';
import {
  compareInventoryItems,
  inventoryKey,
  mergeInventory,
  normalizeInventoryItem,
  parseInventory,
  removeFromInventory,
  sortInventory,
} from './inventory.js';
import type { InventoryItem } from './inventory.js';

const deployment: InventoryItem = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  namespace: 'shop',
  name: 'shop-web',
  mode: 'apply',
  source: 'onReconcile.deployments[0]',
};
const job: InventoryItem = {
  apiVersion: 'batch/v1',
  kind: 'Job',
  namespace: 'shop',
  name: 'shop-migrate',
  mode: 'create',
  source: 'onCreate.jobs[0]',
  completed: true,
};
const ns: InventoryItem = {
  apiVersion: 'v1',
  kind: 'Namespace',
  name: 'shop',
  mode: 'apply',
  source: 'onReconcile.namespaces[0]',
};
const secret: InventoryItem = {
  apiVersion: 'v1',
  kind: 'Secret',
  namespace: 'shop',
  name: 'db',
  mode: 'apply',
  source: 'onReconcile.secrets[0]',
  prune: false,
};

describe('inventory', () => {
  it('sorts by apiVersion, kind, namespace and name, independent of input order', () => {
    const sorted = sortInventory([secret, job, ns, deployment]);
    expect(sorted.map((i) => `${i.apiVersion} ${i.kind} ${i.name}`)).toEqual([
      'apps/v1 Deployment shop-web',
      'batch/v1 Job shop-migrate',
      'v1 Namespace shop',
      'v1 Secret db',
    ]);
    expect(sortInventory([deployment, ns, job, secret])).toEqual(sorted);
    expect(
      compareInventoryItems({ ...deployment, namespace: 'a' }, { ...deployment, namespace: 'b' }),
    ).toBeLessThan(0);
    expect(compareInventoryItems({ ...deployment, name: 'a' }, { ...deployment, name: 'a' })).toBe(0);
  });

  it('identifies objects by group, kind, namespace and name, not version', () => {
    expect(inventoryKey(deployment)).toBe(inventoryKey({ ...deployment, apiVersion: 'apps/v1beta2' }));
    expect(inventoryKey(deployment)).not.toBe(inventoryKey({ ...deployment, namespace: 'other' }));
    expect(inventoryKey(ns)).toBe(inventoryKey({ ...ns, namespace: '' } as InventoryItem));
  });

  it('removes duplicates, the later item winning', () => {
    const updated = { ...deployment, source: 'onReconcile.deployments[1]' };
    expect(sortInventory([deployment, updated])).toEqual([updated]);
  });

  it('normalizes optional flags and key order', () => {
    const messy = {
      source: 's',
      mode: 'apply',
      name: 'n',
      namespace: '',
      kind: 'K',
      apiVersion: 'v1',
      prune: true,
      completed: false,
    } as unknown as InventoryItem;
    const normal = normalizeInventoryItem(messy);
    expect(normal).toEqual({ apiVersion: 'v1', kind: 'K', name: 'n', mode: 'apply', source: 's' });
    expect(Object.keys(normal)).toEqual(['apiVersion', 'kind', 'name', 'mode', 'source']);
    expect(Object.keys(normalizeInventoryItem(secret))).toEqual([
      'apiVersion',
      'kind',
      'namespace',
      'name',
      'mode',
      'source',
      'prune',
    ]);
  });

  it('merges with updates winning and removes by object', () => {
    const merged = mergeInventory([deployment, secret], [{ ...secret, mode: 'create' }, job]);
    expect(merged).toEqual(sortInventory([deployment, { ...secret, mode: 'create' }, job]));
    expect(
      removeFromInventory(merged, [
        { apiVersion: 'batch/v1', kind: 'Job', namespace: 'shop', name: 'shop-migrate' },
      ]),
    ).toEqual(sortInventory([deployment, { ...secret, mode: 'create' }]));
  });

  it('parses a cached inventory, skipping malformed items', () => {
    const parsed = parseInventory([
      job,
      { ...deployment, mode: 'replace' },
      { ...deployment, name: '' },
      { ...deployment, namespace: 7 },
      'junk',
      null,
      [],
      { ...ns, prune: false, completed: 'yes' },
    ]);
    expect(parsed).toEqual([job, { ...ns, prune: false }]);
    expect(parseInventory(undefined)).toEqual([]);
    expect(parseInventory({ items: [] })).toEqual([]);
  });
});

describe('inventory readiness (docs/reference/runtime.md §7)', () => {
  it('parses well-formed readiness and drops malformed readiness', () => {
    const base = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      name: 'a',
      mode: 'apply',
      source: 'onReconcile.configMaps[0]',
    };
    const [good, bad] = [
      parseInventory([
        { ...base, readiness: { state: 'Current', message: '', since: '2026-11-30T09:00:00Z' } },
      ]),
      parseInventory([{ ...base, readiness: { state: 7, since: 'x' } }]),
    ];
    expect(good[0]?.readiness).toEqual({ state: 'Current', since: '2026-11-30T09:00:00Z' });
    expect(bad[0]).toEqual(base);
  });
});

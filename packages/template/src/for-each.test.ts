import { describe, expect, it } from 'vitest';
import { DuplicateChildError } from './duplicate-child-error.js';
import { compileEntry, compileForEach, expandForEach } from './for-each.js';
import { renderTemplate } from './render-template.js';
import type { TemplateContext } from './template-engine.js';
import { TemplateError } from './template-error.js';

const path = 'website.operatorBox.onReconcile.deployments[0]';
const context = {
  metadata: { name: 'shop' },
  spec: {
    image: 'nginx',
    regions: [
      { name: 'eu', replicas: 2, enabled: true },
      { name: 'us', replicas: '3', enabled: false },
      { name: 'ap', replicas: 1, enabled: true },
    ],
    tiers: { silver: 1, gold: 3, bronze: 0 },
  },
};

/** A minimal stand-in for @orkestra/types' evaluateConditions: `when` entries with field + equals/notEquals. */
function gatePasses(ctx: TemplateContext, gate: { when?: unknown }): boolean {
  const when = (gate.when ?? []) as Array<{ field: string; equals?: unknown; notEquals?: unknown }>;
  return when.every((condition) => {
    const actual = String(
      renderTemplate(condition.field.includes('{{') ? condition.field : `{{ ${condition.field} }}`, ctx) ??
        '',
    );
    if (condition.equals !== undefined)
      return actual === String(renderTemplate(String(condition.equals), ctx));
    return actual !== String(renderTemplate(String(condition.notEquals), ctx));
  });
}

describe('compileForEach', () => {
  it('yields one copy per list element with item, index and <as>', () => {
    const forEach = compileForEach({ field: 'spec.regions', as: 'region' });
    const copies = forEach.expand(context);
    expect(copies.map((c) => [c.index, (c.item as { name: string }).name])).toEqual([
      [0, 'eu'],
      [1, 'us'],
      [2, 'ap'],
    ]);
    expect(copies[1]?.context['region']).toBe(context.spec.regions[1]);
    expect(copies[1]?.context['item']).toBe(context.spec.regions[1]);
    expect(copies[1]?.context['index']).toBe(1);
    expect(copies[1]?.context['spec']).toBe(context.spec);
    expect('value' in (copies[0]?.context ?? {})).toBe(false);
  });

  it('yields one copy per map key in code-point order, with value', () => {
    const copies = compileForEach({ field: '.spec.tiers', as: 'tier' }).expand(context);
    expect(copies.map((c) => [c.index, c.item, c.value, c.context['tier'], c.context['value']])).toEqual([
      [0, 'bronze', 0, 'bronze', 0],
      [1, 'gold', 3, 'gold', 3],
      [2, 'silver', 1, 'silver', 1],
    ]);
  });

  it('yields nothing for absent, null or scalar fields', () => {
    for (const spec of [{}, { regions: null }, { regions: 'eu,us' }, { regions: 3 }]) {
      expect(compileForEach({ field: 'spec.regions' }).expand({ spec })).toEqual([]);
    }
  });

  it('accepts a whole-expression template as field', () => {
    const copies = compileForEach({ field: '{{ split spec.csv "," }}' }).expand({ spec: { csv: 'a,b' } });
    expect(copies.map((c) => c.item)).toEqual(['a', 'b']);
  });

  it('reads list indexes in dot paths', () => {
    const copies = compileForEach({ field: 'spec.groups.1' }).expand({
      spec: { groups: [['x'], ['y', 'z']] },
    });
    expect(copies.map((c) => c.item)).toEqual(['y', 'z']);
  });

  it.each([
    [
      { field: 'spec.regions', as: 'spec' },
      `${path}.forEach.as: forEach.as "spec" is a context key; choose another name`,
    ],
    [
      { field: 'spec.regions', as: 'index' },
      `${path}.forEach.as: forEach.as "index" is a context key; choose another name`,
    ],
    [
      { field: 'spec.regions', as: 'upper' },
      `${path}.forEach.as: forEach.as "upper" is a helper name; choose another name`,
    ],
    [{ field: 'spec.regions', as: 'a.b' }, `${path}.forEach.as: forEach.as "a.b" is not a valid name`],
    [
      { field: 'x-{{ spec.regions }}' },
      `${path}.forEach.field: forEach.field must be a dot path or a single {{ … }} expression`,
    ],
  ])('rejects %j', (forEach, message) => {
    expect(() => compileForEach(forEach, { path: `${path}.forEach` })).toThrow(message);
  });

  it('allows as: item, as upstream writes it', () => {
    const copies = compileForEach({ field: 'spec.regions', as: 'item' }).expand(context);
    expect(copies).toHaveLength(3);
  });
});

describe('compileEntry / expandForEach', () => {
  const entry = {
    name: '{{ .metadata.name }}-{{ region.name }}',
    image: '{{ spec.image }}',
    replicas: '{{ region.replicas }}',
    nodeSelector: { 'topology.kubernetes.io/region': '{{ region.name }}' },
    annotations: { position: '{{ index }}/{{ .item.name }}' },
    forEach: { field: 'spec.regions', as: 'region' },
    when: [{ field: 'region.enabled', notEquals: 'false' }],
  };

  it('renders every field of each copy with the copy context, replicas coerced', () => {
    const copies = compileEntry(entry, { path, fieldTypes: { replicas: 'int' } }).expand(context);
    expect(copies.map((c) => c.entry)).toEqual([
      {
        name: 'shop-eu',
        image: 'nginx',
        replicas: 2,
        nodeSelector: { 'topology.kubernetes.io/region': 'eu' },
        annotations: { position: '0/eu' },
      },
      {
        name: 'shop-us',
        image: 'nginx',
        replicas: 3,
        nodeSelector: { 'topology.kubernetes.io/region': 'us' },
        annotations: { position: '1/us' },
      },
      {
        name: 'shop-ap',
        image: 'nginx',
        replicas: 1,
        nodeSelector: { 'topology.kubernetes.io/region': 'ap' },
        annotations: { position: '2/ap' },
      },
    ]);
    expect(copies[0]?.gate).toEqual({ when: entry.when });
  });

  it('lets when/anyOf see item, index and <as> per copy (the upstream fix)', () => {
    const copies = compileEntry(entry, { path }).expand(context, { include: gatePasses });
    expect(copies.map((c) => c.entry['name'])).toEqual(['shop-eu', 'shop-ap']);
    const byIndex = compileEntry(
      { ...entry, when: [{ field: '{{ index }}', equals: '2' }] },
      { path },
    ).expand(context, {
      include: gatePasses,
    });
    expect(byIndex.map((c) => c.entry['name'])).toEqual(['shop-ap']);
    const byItem = compileEntry({
      ...entry,
      when: [{ field: 'item.name', equals: '{{ region.name }}' }],
    }).expand(context, {
      include: gatePasses,
    });
    expect(byItem).toHaveLength(3);
  });

  it('does not render copies the gate drops', () => {
    const failing = { ...entry, replicas: '{{ div 1 region.replicas }}' };
    const ctx = {
      ...context,
      spec: { ...context.spec, regions: [{ name: 'a', replicas: 0, enabled: false }] },
    };
    expect(compileEntry(failing).expand(ctx, { include: gatePasses })).toEqual([]);
    expect(() => compileEntry(failing).expand(ctx)).toThrow(TemplateError);
  });

  it('fails with DuplicateChild naming both items when two copies render the same name', () => {
    const dup = { ...entry, name: '{{ metadata.name }}-{{ lower region.name }}' };
    const ctx = {
      ...context,
      spec: { ...context.spec, regions: [{ name: 'eu' }, { name: 'us' }, { name: 'EU' }] },
    };
    let caught: unknown;
    try {
      compileEntry(dup, { path }).expand(ctx);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(DuplicateChildError);
    const error = caught as DuplicateChildError;
    expect(error.code).toBe('DuplicateChild');
    expect(error.indexes).toEqual([0, 2]);
    expect(error.message).toBe(
      `${path}: forEach items 0 ({"name":"eu"}) and 2 ({"name":"EU"}) both render the name "shop-eu"`,
    );
  });

  it('treats the same name in two namespaces as distinct', () => {
    const spread = { name: 'web', namespace: '{{ item }}', forEach: { field: 'spec.ns' } };
    expect(
      compileEntry(spread)
        .expand({ spec: { ns: ['a', 'b'] } })
        .map((c) => c.entry),
    ).toEqual([
      { name: 'web', namespace: 'a' },
      { name: 'web', namespace: 'b' },
    ]);
  });

  it('gives one copy with the base context when there is no forEach', () => {
    const copies = compileEntry({ name: '{{ metadata.name }}', when: [] }).expand(context);
    expect(copies).toEqual([{ entry: { name: 'shop' }, context, gate: { when: [] } }]);
  });

  it('expandForEach works from the raw entry and caches the compile per entry object', () => {
    const { forEach, ...rest } = entry;
    const first = expandForEach(rest, forEach, context, { path });
    const second = expandForEach(rest, forEach, context, { path });
    expect(first.map((c) => c.entry['name'])).toEqual(['shop-eu', 'shop-us', 'shop-ap']);
    expect(second).toEqual(first);
    expect(expandForEach(rest, undefined, context).map((c) => c.entry['name'])).toEqual(['shop-']);
  });

  it('rejects a forEach without a field', () => {
    expect(() => compileEntry({ name: 'x', forEach: { as: 'y' } }, { path })).toThrow(
      `${path}.forEach: forEach needs a "field" string`,
    );
  });
});

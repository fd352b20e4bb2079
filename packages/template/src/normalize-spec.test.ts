import { describe, expect, it } from 'vitest';
import { compileNormalize, normalizeSpec, readYamlScalar } from './normalize-spec.js';
import { TemplateError } from './template-error.js';

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}

const stored = deepFreeze({
  apiVersion: 'demo.example.com/v1alpha1',
  kind: 'Backup',
  metadata: { name: 'nightly', labels: { tier: 'gold' } },
  spec: {
    schedule: { minute: 30, hour: 2 },
    replicas: '3',
    retention: '7',
    image: 'backup:1',
    nested: { keep: 'me' },
    drop: 'x',
  },
  status: { phase: 'Ready' },
});

describe('normalizeSpec', () => {
  it('returns a normalized deep copy and never touches the (frozen) input', () => {
    const normalize = {
      spec: {
        schedule:
          '{{#if (eq (typeOf .spec.schedule) "map")}}{{ cronExpr spec.schedule.minute spec.schedule.hour }}{{else}}{{ spec.schedule }}{{/if}}',
        replicas: '{{ default spec.replicas 1 }}',
      },
      types: { replicas: 'int' },
    };
    const before = JSON.stringify(stored);
    const out = normalizeSpec(stored, normalize);
    expect(out).not.toBe(stored);
    expect(out.spec.schedule).toBe('30 2 * * *');
    expect(out.spec.replicas).toBe(3);
    expect(out.spec.image).toBe('backup:1');
    expect(out.metadata).toEqual(stored.metadata);
    expect(out.metadata).not.toBe(stored.metadata);
    expect(Object.isFrozen(out.spec)).toBe(false);
    expect(JSON.stringify(stored)).toBe(before);
  });

  it('reads string results as YAML scalars unless typed string; whole expressions stay native', () => {
    const out = normalizeSpec(stored, {
      spec: {
        retention: '{{ spec.retention }}',
        retentionDays: 'x{{ spec.retention }}',
        count: '{{ spec.retention }} ',
        count2: ' {{ add 0 spec.retention }}',
        asText: '{{ add 1 2 }}-',
        flag: '{{#if metadata.labels.tier}}true{{/if}}',
        ratio: '{{#if true}}2.50{{/if}}',
        version: '{{#if true}}1.10{{/if}}',
        kept: '{{#if true}}007{{/if}}',
        str: '{{#if true}}42{{/if}}',
      },
      types: { str: 'string' },
    }) as { spec: Record<string, unknown> };
    expect(out.spec).toMatchObject({
      retention: '7',
      retentionDays: 'x7',
      count: '7',
      count2: 7,
      asText: '3-',
      flag: true,
      ratio: 2.5,
      version: 1.1,
      kept: 7,
      str: '42',
    });
  });

  it('removes the path on an empty or null result, and creates intermediate maps otherwise', () => {
    const out = normalizeSpec(stored, {
      spec: {
        drop: '{{ spec.missing }}',
        'nested.keep': '{{#if false}}x{{/if}}',
        'deep.er.value': '{{ metadata.name }}',
        'nothing.here': '{{ spec.missing }}',
      },
    }) as { spec: Record<string, unknown> };
    expect(out.spec['drop']).toBeUndefined();
    expect('drop' in out.spec).toBe(false);
    expect(out.spec['nested']).toEqual({});
    expect(out.spec['deep']).toEqual({ er: { value: 'nightly' } });
    expect(out.spec['nothing']).toBeUndefined();
  });

  it('renders every template against the stored CR, not against other normalized values', () => {
    const out = normalizeSpec(stored, {
      spec: { a: '{{ spec.image }}-a', image: 'changed', z: '{{ spec.image }}-z' },
    }) as {
      spec: Record<string, unknown>;
    };
    expect(out.spec).toMatchObject({ a: 'backup:1-a', image: 'changed', z: 'backup:1-z' });
  });

  it('sees spec, metadata and status only', () => {
    const out = normalizeSpec(stored, {
      spec: { probe: '[{{ kind }}|{{ status.phase }}|{{ metadata.name }}]' },
    }) as {
      spec: Record<string, unknown>;
    };
    expect(out.spec['probe']).toBe('[|Ready|nightly]');
  });

  it('fails with TemplateError when a typed result cannot be converted', () => {
    expect(() =>
      normalizeSpec(
        stored,
        { spec: { image: '{{ spec.image }}' }, types: { image: 'int' } },
        { path: 'backup.normalize' },
      ),
    ).toThrow(
      new TemplateError('expected an integer, got "backup:1"', {
        katalogPath: 'backup.normalize.spec.image',
      }),
    );
  });

  it('fails with TemplateError when a non-map value is in the way', () => {
    expect(() => normalizeSpec(stored, { spec: { 'image.tag': 'x' } }, { path: 'backup.normalize' })).toThrow(
      'backup.normalize.spec["image.tag"]: cannot write spec.image.tag: spec.image is a string, not a map',
    );
  });

  it('rejects unknown types at compile time', () => {
    expect(() => compileNormalize({ spec: {}, types: { a: 'quantity' } }, { path: 'n' })).toThrow(
      'n.types.a: unknown type "quantity"; use string, int, float or bool',
    );
  });

  it('creates spec when the CR has none and copies the CR when there is nothing to do', () => {
    expect(normalizeSpec({ metadata: { name: 'x' } }, { spec: { a: '{{ metadata.name }}' } })).toEqual({
      metadata: { name: 'x' },
      spec: { a: 'x' },
    });
    const empty = normalizeSpec(stored, {});
    expect(empty).toEqual(stored);
    expect(empty).not.toBe(stored);
  });

  it('lists the paths its templates read', () => {
    expect(
      compileNormalize({ spec: { a: '{{ spec.x }}', b: '{{ metadata.name }}' } }).referencedPaths,
    ).toEqual(['metadata.name', 'spec.x']);
  });
});

describe('readYamlScalar', () => {
  it.each([
    ['3', 3],
    ['-2.5', -2.5],
    ['1e3', 1000],
    ['true', true],
    ['False', false],
    ['null', null],
    ['~', null],
    ['', null],
    ['0x1F', '0x1F'],
    ['.inf', '.inf'],
    ['yes', 'yes'],
    ['12345678901234567890', '12345678901234567890'],
    ['a: b', 'a: b'],
  ])('%j → %j', (text, expected) => {
    expect(readYamlScalar(text)).toBe(expected);
  });
});

describe('normalize paths that name Object.prototype members', () => {
  it('refuses a `__proto__` segment instead of writing through the object prototype', () => {
    expect(() => compileNormalize({ spec: { '__proto__.polluted': 'x' }, types: {} })).toThrow(
      'invalid path "__proto__.polluted"',
    );
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('writes `constructor` and `toString` as ordinary fields and gives them no type from the prototype', () => {
    const out = normalizeSpec(stored, { spec: { 'constructor.name': '7', toString: '{{ spec.image }}' } });
    expect(out.spec).toMatchObject({ constructor: { name: 7 }, toString: 'backup:1' });
  });
});

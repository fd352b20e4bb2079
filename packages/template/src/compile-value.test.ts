import { describe, expect, it } from 'vitest';
import { compileValue, hasTemplate } from './compile-value.js';
import { TemplateError } from './template-error.js';

const path = 'website.operatorBox.onReconcile.deployments[0]';
const context = {
  metadata: { name: 'shop' },
  spec: {
    replicas: '3',
    image: 'nginx',
    resources: { limits: { cpu: 2, memory: '1Gi' } },
    labels: { team: 'web' },
    ports: [80, '443'],
  },
};

describe('compileValue', () => {
  it('renders every templated leaf, keeps map keys literal and native values native', () => {
    const value = compileValue(
      {
        name: '{{ metadata.name }}-web',
        image: '{{ spec.image }}',
        labels: { '{{ literal }}': '{{ spec.labels.team }}', 'app.kubernetes.io/name': 'shop' },
        podLabels: '{{ spec.labels }}',
        args: ['--port', '{{ spec.ports.0 }}'],
        static: { a: [1, true, null] },
      },
      { path },
    );
    expect(value.render(context)).toEqual({
      name: 'shop-web',
      image: 'nginx',
      labels: { '{{ literal }}': 'web', 'app.kubernetes.io/name': 'shop' },
      podLabels: { team: 'web' },
      args: ['--port', 80],
      static: { a: [1, true, null] },
    });
    expect(value.isStatic).toBe(false);
    expect(value.referencedPaths).toEqual([
      'metadata.name',
      'spec.image',
      'spec.labels',
      'spec.labels.team',
      'spec.ports.0',
    ]);
    expect(value.templates.map((t) => t.path)).toEqual([
      `${path}.name`,
      `${path}.image`,
      `${path}.labels["{{ literal }}"]`,
      `${path}.podLabels`,
      `${path}.args[1]`,
    ]);
  });

  it('leaves out fields whose whole expression is absent, so defaults apply', () => {
    const value = compileValue({ replicas: '{{ spec.missing }}', env: ['{{ spec.none }}', 'x'], name: 'n' });
    expect(value.render({ spec: {} })).toEqual({ env: ['x'], name: 'n' });
  });

  it('coerces known fields, including inside native values', () => {
    const value = compileValue(
      {
        replicas: '{{ spec.replicas }}',
        ports: [{ containerPort: '{{ lookup spec.ports 1 }}' }],
        resources: '{{ spec.resources }}',
        paused: 'TRUE',
      },
      {
        path,
        fieldTypes: {
          replicas: 'int',
          'ports[].containerPort': 'int',
          'resources.limits.*': 'quantity',
          paused: 'bool',
        },
      },
    );
    expect(value.render(context)).toEqual({
      replicas: 3,
      ports: [{ containerPort: 443 }],
      resources: { limits: { cpu: 2, memory: '1Gi' } },
      paused: true,
    });
  });

  it('names the path and value when a rendered field cannot be coerced', () => {
    const value = compileValue(
      { replicas: '{{ spec.replicas }}' },
      { path, fieldTypes: { replicas: 'int' } },
    );
    expect(() => value.render({ spec: { replicas: 'three' } })).toThrow(
      `${path}.replicas: expected an integer, got "three"`,
    );
    const nested = compileValue(
      { resources: '{{ spec.resources }}' },
      { path, fieldTypes: { 'resources.limits.*': 'quantity' } },
    );
    expect(() => nested.render({ spec: { resources: { limits: { cpu: 'lots' } } } })).toThrow(
      `${path}.resources.limits.cpu: expected a Kubernetes quantity, got "lots"`,
    );
  });

  it('coerces literal values at compile time, so a bad literal fails at load', () => {
    expect(() => compileValue({ replicas: 'three' }, { path, fieldTypes: { replicas: 'int' } })).toThrow(
      TemplateError,
    );
    expect(compileValue({ replicas: '2' }, { fieldTypes: { replicas: 'int' } }).render({})).toEqual({
      replicas: 2,
    });
  });

  it('returns a fresh deep copy on every render, never sharing context objects', () => {
    const value = compileValue({ labels: '{{ spec.labels }}', fixed: { a: [1] } });
    const first = value.render(context) as { labels: Record<string, string>; fixed: { a: number[] } };
    first.labels['team'] = 'changed';
    first.fixed.a.push(2);
    expect(context.spec.labels.team).toBe('web');
    expect(value.render(context)).toEqual({ labels: { team: 'web' }, fixed: { a: [1] } });
  });

  it('omits the given top-level keys', () => {
    const value = compileValue({ name: 'x', when: [{ field: '{{ item }}' }] }, { omitKeys: ['when'] });
    expect(value.render({})).toEqual({ name: 'x' });
    expect(value.isStatic).toBe(true);
  });

  it('reports a compile error with the leaf path', () => {
    expect(() => compileValue({ containers: [{ image: '{{ nope 1 }}' }] }, { path })).toThrow(
      `${path}.containers[0].image: unknown helper "nope" (column 4)`,
    );
  });

  it('rejects an unknown field type', () => {
    expect(() => compileValue({}, { fieldTypes: { a: 'number' as 'int' } })).toThrow(
      'unknown field type "number" for a',
    );
  });

  it('hasTemplate finds templates anywhere in a value', () => {
    expect(hasTemplate({ a: [{ b: 'x {{ y }}' }] })).toBe(true);
    expect(hasTemplate({ '{{ k }}': 'v' })).toBe(false);
  });
});

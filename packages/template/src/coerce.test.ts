import { describe, expect, it } from 'vitest';
import { coerce, isCoerceType } from './coerce.js';
import { TemplateError } from './template-error.js';

describe('coerce', () => {
  it.each([
    [3, 'int', 3],
    ['3', 'int', 3],
    ['-12', 'int', -12],
    [true, 'bool', true],
    ['TRUE', 'bool', true],
    ['False', 'bool', false],
    ['500m', 'quantity', '500m'],
    ['1Gi', 'quantity', '1Gi'],
    ['1.5', 'quantity', '1.5'],
    ['2e3', 'quantity', '2e3'],
    [2, 'quantity', 2],
    [3, 'intOrPercent', 3],
    ['3', 'intOrPercent', 3],
    ['25%', 'intOrPercent', '25%'],
    ['x', 'string', 'x'],
    [2.5, 'string', '2.5'],
    [false, 'string', 'false'],
    ['2.5', 'float', 2.5],
    [7, 'float', 7],
    [undefined, 'int', undefined],
    [null, 'string', undefined],
  ] as const)('%j as %s → %j', (value, type, expected) => {
    expect(coerce(value, type, 'p')).toBe(expected);
  });

  it.each([
    ['three', 'int', 'expected an integer, got "three"'],
    [2.5, 'int', 'expected an integer, got 2.5'],
    ['3.0', 'int', 'expected an integer, got "3.0"'],
    [' 3', 'int', 'expected an integer, got " 3"'],
    [true, 'int', 'expected an integer, got true'],
    ['yes', 'bool', 'expected a boolean, got "yes"'],
    [1, 'bool', 'expected a boolean, got 1'],
    ['1 Gi', 'quantity', 'expected a Kubernetes quantity, got "1 Gi"'],
    ['1GB', 'quantity', 'expected a Kubernetes quantity, got "1GB"'],
    ['25 %', 'intOrPercent', 'expected an integer or a percentage like "25%", got "25 %"'],
    [{ a: 1 }, 'string', 'expected a string, got {"a":1}'],
    [['a'], 'string', 'expected a string, got ["a"]'],
    ['abc', 'float', 'expected a number, got "abc"'],
  ] as const)('%j as %s fails: %s', (value, type, message) => {
    let caught: unknown;
    try {
      coerce(value, type, 'web.operatorBox.onReconcile.deployments[0].replicas');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(TemplateError);
    expect((caught as TemplateError).message).toBe(
      `web.operatorBox.onReconcile.deployments[0].replicas: ${message}`,
    );
  });

  it('isCoerceType knows the type names only', () => {
    expect(isCoerceType('intOrPercent')).toBe(true);
    expect(isCoerceType('toString')).toBe(false);
    expect(isCoerceType(3)).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import {
  compareCodePoints,
  isEmpty,
  isTruthy,
  looseEqual,
  numberForm,
  parseDecimal,
  stringForm,
  typeName,
} from './string-form.js';

describe('stringForm (8.4)', () => {
  it.each([
    [undefined, ''],
    [null, ''],
    ['a b', 'a b'],
    [3, '3'],
    [2.5, '2.5'],
    [-0.000001, '-0.000001'],
    [1e-7, '0.0000001'],
    [1.5e21, '1500000000000000000000'],
    [true, 'true'],
    [{ a: [1, 'x'] }, '{"a":[1,"x"]}'],
    [[], '[]'],
  ])('%j → %j', (value, expected) => {
    expect(stringForm(value)).toBe(expected);
  });

  it('numberForm leaves non-finite numbers readable', () => {
    expect(numberForm(Infinity)).toBe('Infinity');
    expect(numberForm(-1.25e-10)).toBe('-0.000000000125');
  });
});

describe('value predicates', () => {
  it('isEmpty: absent, null, "", [] and {} are empty; 0 and false are not', () => {
    expect([undefined, null, '', [], {}].map(isEmpty)).toEqual([true, true, true, true, true]);
    expect([0, false, ' ', [0], { a: 1 }].map(isEmpty)).toEqual([false, false, false, false, false]);
  });

  it('isTruthy follows Handlebars', () => {
    expect([undefined, null, false, 0, '', [], NaN].map(isTruthy)).toEqual(Array(7).fill(false));
    expect([{}, 'x', 1, [0], true].map(isTruthy)).toEqual(Array(5).fill(true));
  });

  it('typeName uses upstream names', () => {
    expect([{}, [], 'x', 1, true, null, undefined].map(typeName)).toEqual([
      'map',
      'slice',
      'string',
      'number',
      'bool',
      'null',
      'null',
    ]);
  });

  it('parseDecimal reads whole decimal strings only', () => {
    expect(['3', '-2.5', '.5', '1e3', '+7'].map(parseDecimal)).toEqual([3, -2.5, 0.5, 1000, 7]);
    expect(['', ' 3', '3px', '0x10', 'NaN', 'Infinity', true, null].map(parseDecimal)).toEqual(
      Array(8).fill(undefined),
    );
  });

  it('looseEqual compares JSON values and numbers with numeric strings', () => {
    expect(looseEqual({ a: 1, b: [1] }, { b: [1], a: 1 })).toBe(true);
    expect(looseEqual(3, '3.0')).toBe(true);
    expect(looseEqual('3', 3)).toBe(true);
    expect(looseEqual('3', '3.0')).toBe(false);
    expect(looseEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(looseEqual([1, 2], [2, 1])).toBe(false);
  });

  it('compareCodePoints orders astral characters after U+FFFF', () => {
    expect(compareCodePoints('\uffff', '😀')).toBe(-1);
    expect('\uffff' < '😀').toBe(false); // UTF-16 order differs, which is why the helper exists
    expect(compareCodePoints('a', 'ab')).toBe(-1);
    expect(compareCodePoints('é', 'é')).toBe(0);
  });
});

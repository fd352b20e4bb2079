import { describe, expect, it } from 'vitest';
import { CrInputError, checkCustomResource, readCustomResources } from './cr-input.js';

const HEAD = 'apiVersion: demo.example.com/v1alpha1\nkind: Website\n';

function messageOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(CrInputError);
    return (error as Error).message;
  }
  throw new Error('expected a CrInputError');
}

describe('checkCustomResource', () => {
  it('returns a well-formed CR as it is', () => {
    const cr = { apiVersion: 'a/v1', kind: 'K', metadata: { name: 'n', namespace: 'ns' }, spec: { a: 1 } };
    expect(checkCustomResource(cr, 'cr.yaml')).toBe(cr);
  });

  it.each([
    [null, 'cr.yaml: expected a custom resource (a YAML mapping), got null'],
    ['text', 'cr.yaml: expected a custom resource (a YAML mapping), got "text"'],
    [3, 'cr.yaml: expected a custom resource (a YAML mapping), got number 3'],
    [[], 'cr.yaml: expected a custom resource (a YAML mapping), got a list'],
    [{ kind: 'K', metadata: { name: 'n' } }, 'cr.yaml: apiVersion is missing'],
    [
      { apiVersion: { a: 1 }, kind: 'K', metadata: { name: 'n' } },
      'cr.yaml: apiVersion must be a string, got a map',
    ],
    [
      { apiVersion: ['x', {}], kind: 'K', metadata: { name: 'n' } },
      'cr.yaml: apiVersion must be a string, got a list',
    ],
    [
      { apiVersion: 'a/v1', kind: [[], { toString: 'x' }], metadata: { name: 'n' } },
      'cr.yaml: kind must be a string, got a list',
    ],
    [{ apiVersion: 'a/v1', kind: 'K' }, 'cr.yaml: metadata.name is missing'],
    [{ apiVersion: 'a/v1', kind: 'K', metadata: 'n' }, 'cr.yaml: metadata must be a map, got "n"'],
    [
      { apiVersion: 'a/v1', kind: 'K', metadata: { name: { toString: 'P1D' } } },
      'cr.yaml: metadata.name must be a string, got a map',
    ],
    [{ apiVersion: 'a/v1', kind: 'K', metadata: { name: '' } }, 'cr.yaml: metadata.name must not be empty'],
    [
      { apiVersion: 'a/v1', kind: 'K', metadata: { name: 'n', namespace: 7 } },
      'cr.yaml: metadata.namespace must be a string, got number 7',
    ],
    [
      { apiVersion: 'a/v1', kind: 'K', metadata: { name: 'n' }, spec: [1] },
      'cr.yaml: spec must be a map, got a list',
    ],
  ])('refuses %j naming the field', (value, message) => {
    expect(messageOf(() => checkCustomResource(value, 'cr.yaml'))).toBe(message);
  });
});

describe('readCustomResources', () => {
  it('reads every document of a file and skips empty ones', () => {
    const crs = readCustomResources(
      `${HEAD}metadata: {name: a}\n---\n---\n${HEAD}metadata: {name: b}\n`,
      'crs.yaml',
    );
    expect(crs.map((cr) => cr.metadata.name)).toEqual(['a', 'b']);
  });

  it.each([
    ['null\n', 'cr.yaml: expected a custom resource (a YAML mapping), got null'],
    ['', 'cr.yaml: expected a custom resource (a YAML mapping), got an empty file'],
    ['# only a comment\n', 'cr.yaml: expected a custom resource (a YAML mapping), got an empty file'],
    ['42\n', 'cr.yaml: expected a custom resource (a YAML mapping), got number 42'],
    [
      `${HEAD}metadata: {name: a}\n---\nnull\n`,
      'cr.yaml (document 2): expected a custom resource (a YAML mapping), got null',
    ],
  ])('refuses %j', (text, message) => {
    expect(messageOf(() => readCustomResources(text, 'cr.yaml'))).toBe(message);
  });

  it('reports a YAML syntax error with the file name', () => {
    expect(messageOf(() => readCustomResources('a: [1\n', 'cr.yaml'))).toMatch(/^cr\.yaml: /);
  });
});

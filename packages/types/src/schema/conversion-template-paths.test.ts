import { describe, expect, it } from 'vitest';
import { loadKatalog } from '../load-katalog.js';
import { goFieldKey, templatePathsOf } from './conversion-template-paths.js';

/** Conversion template paths against the source version's schema (docs/reference/katalog.md §3.4, ADR 0088). */

const katalog = (
  forward: string,
  back = '{databaseEngine: "{{ .Spec.Engine }}", size: "{{ .Spec.Replicas }}"}',
) => `apiVersion: orkestra.orkspace.io/v1
kind: Katalog
metadata:
  name: db
spec:
  crds:
    database:
      apiTypes: {group: db.example.org, version: v1, kind: Database, plural: databases}
      versions:
        - name: v1alpha1
          schema:
            openAPIV3Schema:
              type: object
              properties:
                spec:
                  type: object
                  properties:
                    databaseEngine: {type: string}
                    size: {type: integer}
                    tlsCert: {type: string}
        - name: v1
          schema:
            openAPIV3Schema:
              type: object
              properties:
                spec:
                  type: object
                  properties:
                    engine: {type: string}
                    replicas: {type: integer}
                    cert: {type: string}
                    owner: {type: string}
      conversion:
        storageVersion: v1
        paths:
          - from: v1alpha1
            to: v1
            spec: ${forward}
          - from: v1
            to: v1alpha1
            spec: ${back}
`;

const lineOf = (text: string, needle: string): number =>
  text.split('\n').findIndex((l) => l.includes(needle)) + 1;

describe('Go-struct field names', () => {
  it('name the JSON key with the first letter lowered, else the one key equal ignoring case', () => {
    const keys = ['databaseEngine', 'tlsCert', 'apiVersion', 'id'];
    expect(goFieldKey('DatabaseEngine', keys)).toBe('databaseEngine');
    expect(goFieldKey('TLSCert', keys)).toBe('tlsCert');
    expect(goFieldKey('APIVersion', keys)).toBe('apiVersion');
    expect(goFieldKey('ID', keys)).toBe('id');
    expect(goFieldKey('databaseengine', keys)).toBeUndefined(); // only a capitalised (exported) name
    expect(goFieldKey('Missing', keys)).toBeUndefined();
    expect(goFieldKey('Size', ['size', 'SIZE'])).toBe('size');
    expect(goFieldKey('SiZe', ['sIze', 'SIZE'])).toBeUndefined(); // ambiguous
  });

  it('lists the paths a template reads from the top, not inside strings or scoped blocks', () => {
    expect(templatePathsOf('{{ .Spec.DatabaseEngine }}')).toEqual([['Spec', 'DatabaseEngine']]);
    expect(templatePathsOf('{{ default "x" .spec.size }}-{{ $.Metadata.Name | upper }}')).toEqual([
      ['spec', 'size'],
      ['Metadata', 'Name'],
    ]);
    expect(templatePathsOf('{{ printf ".Spec.Nope" }}')).toEqual([]);
    expect(templatePathsOf('{{ range .spec.items }}{{ .Name }}{{ end }}')).toBeUndefined();
  });
});

describe('ork validate on conversion template paths', () => {
  it('loads upstream’s Go-struct form and the JSON form', () => {
    const text = katalog(
      '{engine: "{{ .Spec.DatabaseEngine }}", replicas: "{{ .spec.size }}", cert: "{{ .Spec.TLSCert }}", owner: "{{ .Name }}-{{ .ObjectMeta.Namespace }}"}',
    );
    const result = loadKatalog({ text, file: 'k.yaml' });
    expect(result.ok ? [] : result.errors.map((e) => e.message)).toEqual([]);
  });

  it('refuses a path the source version’s schema can never hold, at the template’s field with file:line:col', () => {
    const text = katalog(
      '\n              engine: "{{ .Spec.Engine }}"\n              replicas: "{{ .spec.size }}"',
    );
    const result = loadKatalog({ text, file: 'k.yaml' });
    const errors = result.ok ? [] : result.errors;
    expect(errors.map((e) => [e.file, e.path, e.line])).toEqual([
      [
        'k.yaml',
        'spec.crds.database.conversion.paths[0].spec.engine',
        lineOf(text, 'engine: "{{ .Spec.Engine }}"'),
      ],
    ]);
    expect(errors[0]?.column).toBeGreaterThan(0);
    expect(errors[0]?.message).toContain('spec.Engine, which version v1alpha1');
    expect(errors[0]?.message).toContain('spec has: databaseEngine, size, tlsCert');
  });

  it('refuses a field the object can never have at the top or in metadata', () => {
    const text = katalog('{engine: "{{ .Sepc.DatabaseEngine }}", owner: "{{ .metadata.owner }}"}');
    const result = loadKatalog({ text, file: 'k.yaml' });
    const errors = result.ok ? [] : result.errors;
    expect(errors.map((e) => e.path)).toEqual([
      'spec.crds.database.conversion.paths[0].spec.engine',
      'spec.crds.database.conversion.paths[0].spec.owner',
    ]);
  });
});

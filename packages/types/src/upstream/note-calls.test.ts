import { describe, expect, it } from 'vitest';
import { expandNoteCalls, isNoteName, prepareNotes } from './note-calls.js';

function notes(defs: Record<string, string>) {
  const prepared = prepareNotes(new Map(Object.entries(defs)));
  if (!prepared.ok) throw new Error(prepared.message);
  return prepared.notes;
}

const NOTES = notes({
  appLabel: '{{ .metadata.namespace }}-{{ .metadata.name }}',
  isProd: '{{ eq .spec.env "prod" }}',
  tier: '{{ if .spec.gold }}gold{{ else }}basic{{ end }}',
});

const expand = (source: string) => {
  const result = expandNoteCalls(source, NOTES);
  if (!result.ok) throw new Error(result.message);
  return result.text;
};

describe('expandNoteCalls', () => {
  it('writes a whole-action call out as the note, text and actions as written', () => {
    expect(expand('{{ appLabel }}')).toBe('{{ .metadata.namespace }}-{{ .metadata.name }}');
    expect(expand('app={{ appLabel }}!')).toBe('app={{ .metadata.namespace }}-{{ .metadata.name }}!');
    expect(expand('{{ tier }}')).toBe('{{ if .spec.gold }}gold{{ else }}basic{{ end }}');
  });

  it('keeps the trim markers of the call: the text beside it is trimmed', () => {
    expect(expand('a  {{- appLabel -}}  b')).toBe('a{{ .metadata.namespace }}-{{ .metadata.name }}b');
  });

  it('renders against the CR inside range and with: the call is wrapped in `with $`', () => {
    expect(expand('{{ range .spec.items }}{{ appLabel }}{{ end }}')).toBe(
      '{{ range .spec.items }}{{ with $ }}{{ .metadata.namespace }}-{{ .metadata.name }}{{ end }}{{ end }}',
    );
    // After the block is closed, the dot is the CR's again.
    expect(expand('{{ with .spec }}x{{ end }}{{ appLabel }}')).toBe(
      '{{ with .spec }}x{{ end }}{{ .metadata.namespace }}-{{ .metadata.name }}',
    );
  });

  it('writes a call inside a larger action as one operand', () => {
    expect(expand('{{ if isProd }}3{{ else }}1{{ end }}')).toBe(
      '{{ if (eq .spec.env "prod") }}3{{ else }}1{{ end }}',
    );
    expect(expand('{{ appLabel | upper }}')).toBe(
      '{{ (printf "%v-%v" (.metadata.namespace) (.metadata.name)) | upper }}',
    );
    expect(expand('{{ range .spec.items }}{{ printf "%s/%s" . appLabel }}{{ end }}')).toBe(
      '{{ range .spec.items }}{{ printf "%s/%s" . (printf "%v-%v" ($.metadata.namespace) ($.metadata.name)) }}{{ end }}',
    );
  });

  it('refuses a note with blocks inside an expression, naming the whole-action form', () => {
    const result = expandNoteCalls('{{ tier | upper }}', NOTES);
    expect(result.ok ? '' : result.message).toContain('can only be called as a whole action `{{ tier }}`');
  });

  it('leaves fields, variables, strings and comments that spell a note name alone', () => {
    for (const source of [
      '{{ .spec.appLabel }}',
      '{{ index .spec "appLabel" }}',
      '{{ $appLabel := 1 }}{{ $appLabel }}',
      '{{/* appLabel */}}',
      'appLabel',
    ])
      expect(expandNoteCalls(source, NOTES)).toEqual({ ok: true, text: source, calls: 0 });
  });
});

describe('prepareNotes', () => {
  it('writes out the notes a note calls', () => {
    const prepared = notes({ host: '{{ appLabel }}.svc', appLabel: '{{ .metadata.name }}' });
    expect(expandNoteCalls('{{ host }}', prepared)).toEqual({
      ok: true,
      text: '{{ .metadata.name }}.svc',
      calls: 1,
    });
  });

  it('refuses a note that calls itself, naming the cycle', () => {
    const prepared = prepareNotes(
      new Map([
        ['a', '{{ b }}'],
        ['b', 'x{{ a }}'],
      ]),
    );
    expect(prepared).toMatchObject({ ok: false, name: 'a', message: expect.stringContaining('a → b → a') });
  });

  it('refuses an action that is not closed', () => {
    expect(prepareNotes(new Map([['a', '{{ .spec.x ']]))).toMatchObject({ ok: false, name: 'a' });
  });

  it('takes Go identifiers that are not keywords as names', () => {
    expect(['fullImage', '_x1'].map(isNoteName)).toEqual([true, true]);
    expect(['1x', 'full-image', 'range', 'true', ''].map(isNoteName)).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});

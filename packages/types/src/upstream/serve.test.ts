import { describe, expect, it } from 'vitest';
import { migrateKatalog } from './migrate.js';
import { head, load, ok } from './dialect-fixtures.test-support.js';

/**
 * Upstream's `serve` block (docs/reference/katalog.md §24): removed, but refused where upstream
 * refuses it. Fixtures are written here from upstream's type definitions, not copied.
 */

const serve = (body: string) => `${head()}      serve:
        enabled: true
${body}`;

const errorsOf = (text: string) => {
  const result = load(text);
  expect(result.ok).toBe(false);
  return result.ok ? [] : result.errors.map((e) => [e.line, e.column, e.path, e.message]);
};

describe('serve', () => {
  it('a coherent block is removed with a note', () => {
    const result = ok(
      load(serve('        target: website\n        fields:\n          size:\n            path: spec.size\n')),
    );
    expect(result.katalog.spec.crds['website']).not.toHaveProperty('serve');
  });

  it('a target while modes.target is false is refused at the target', () => {
    expect(
      errorsOf(
        serve(
          '        modes:\n          target: false\n        target:\n          primary: {primary: true}\n',
        ),
      ),
    ).toEqual([
      [
        17,
        9,
        'spec.crds.website.serve.target',
        'serve.modes.target is false but serve.target is set: a target is meaningful only in target mode (upstream refuses it)',
      ],
    ]);
  });

  it('both modes off is refused', () => {
    const [error] = errorsOf(serve('        modes:\n          target: false\n          cr: false\n'));
    expect(error?.[2]).toBe('spec.crds.website.serve.modes');
  });

  it('path and values on one field are refused at values', () => {
    expect(
      errorsOf(
        serve(
          '        fields:\n          when:\n            path: spec.cron\n            values:\n              spec.minute: "{{ .value }}"\n',
        ),
      ),
    ).toEqual([
      [
        18,
        13,
        'spec.crds.website.serve.fields.when.values',
        'serve.fields.when: path and values are mutually exclusive (upstream refuses both)',
      ],
    ]);
  });

  /**
   * The older generation's `idp` block (upstream's IDPConfig: `enabled`, `include`, `fields` of
   * `{label, order, …}`, beside `gateway.applyAPI`) is the block upstream later named `serve`.
   */
  const idp = (body: string) => `${head()}      idp:
        enabled: true
${body}`;

  it('the older `idp` block loads as `serve` and is removed with a note', () => {
    const text = idp('        fields:\n          size:\n            label: Size\n            order: 1\n');
    const result = ok(load(text));
    expect(result.katalog.spec.crds['website']).not.toHaveProperty('idp');
    expect(result.katalog.spec.crds['website']).not.toHaveProperty('serve');
    expect(migrateKatalog(text).changes).toContainEqual(
      expect.objectContaining({
        path: 'spec.crds.website.idp',
        line: 13,
        message: 'renamed to serve (upstream’s later name of the block)',
      }),
    );
  });

  it('an `idp` block upstream refuses is refused at `idp`, by line and column', () => {
    expect(errorsOf(idp('        fields:\n          my-size:\n            label: Size\n'))).toEqual([
      [
        16,
        11,
        'spec.crds.website.idp.fields.my-size',
        'serve.fields.my-size: a field name must not contain a hyphen; it is a Go template identifier ({{ .request.my-size }} does not parse); write my_size (upstream refuses it)',
      ],
    ]);
  });

  it('`idp` beside `serve` is refused at `idp`, saying which to keep', () => {
    expect(errorsOf(idp('      serve:\n        enabled: true\n'))).toEqual([
      [
        13,
        7,
        'spec.crds.website.idp',
        '`idp` is the older name of `serve` and this entry declares both; keep the `serve` block and delete `idp`',
      ],
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import { head, load } from './dialect-fixtures.test-support.js';

/** Upstream's `enrichAll` / `enrich` (docs/reference/katalog.md §24); fixtures written here, not copied. */

describe('enrichAll', () => {
  it('with enrich is refused for upstream’s reason, once, at enrichAll', () => {
    const result = load(`${head()}      enrichAll: true\n      enrich: [pods]\n`);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((e) => [e.line, e.column, e.path, e.message])).toEqual([
      [
        13,
        7,
        'spec.crds.website.enrichAll',
        'enrichAll and enrich are mutually exclusive: use enrichAll: true or enrich: [...] (upstream refuses both)',
      ],
    ]);
  });

  it('alone is refused with the reason enrich is', () => {
    const result = load(`${head()}      enrichAll: true\n`);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors[0]?.message).toMatch(
      /^upstream key `enrichAll` has no counterpart in Orkestra: pods and events/,
    );
  });

  it('enrichAll: false is removed', () => {
    expect(load(`${head()}      enrichAll: false\n`).ok).toBe(true);
  });
});

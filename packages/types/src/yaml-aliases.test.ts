import { parseDocument } from 'yaml';
import { describe, expect, it } from 'vitest';
import { expandAliases } from './yaml-aliases.js';

const expand = (text: string, aliases = false) => {
  const doc = parseDocument(text);
  const result = expandAliases(doc, { aliases });
  return { doc, result, js: doc.toJS({ maxAliasCount: -1 }) as Record<string, unknown> };
};

describe('expandAliases', () => {
  it('merges an anchored map; keys of the map itself win', () => {
    const { js, result } = expand('base: &b {image: nginx, replicas: 1}\nweb:\n  <<: *b\n  replicas: 3\n');
    expect(js['web']).toEqual({ image: 'nginx', replicas: 3 });
    expect(result.merges).toBe(1);
  });

  it('merges a list of sources, earlier sources winning, and an inline map', () => {
    const { js } = expand(
      'a: &a {x: 1, y: 1}\nb: &b {y: 2, z: 2}\nm:\n  <<: [*a, *b]\nn:\n  <<: {k: v}\n  j: 1\n',
    );
    expect(js['m']).toEqual({ x: 1, y: 1, z: 2 });
    expect(js['n']).toEqual({ k: 'v', j: 1 });
  });

  it('applies merges inside the anchored map before copying it', () => {
    const { js } = expand('a: &a {x: 1}\nb: &b\n  <<: *a\n  y: 2\nc:\n  <<: *b\n');
    expect(js['c']).toEqual({ x: 1, y: 2 });
  });

  it('keeps the anchor’s positions on the copies, so errors point at the definition', () => {
    const text = 'defs:\n  base: &b\n    image: nginx\nweb:\n  <<: *b\n';
    const { doc } = expand(text);
    const image = (doc.getIn(['web', 'image'], true) as { range: [number, number, number] }).range[0];
    expect(text.slice(image, image + 5)).toBe('nginx');
    expect(image).toBe(text.indexOf('nginx'));
  });

  it('with aliases, replaces every alias so the anchors’ holder can be removed', () => {
    const { doc } = expand(
      'anchors:\n  v: &v v1\n  t: &t {kind: Web}\nspec:\n  version: *v\n  type:\n    <<: *t\n',
      true,
    );
    doc.delete('anchors');
    expect(doc.toJS()).toEqual({ spec: { version: 'v1', type: { kind: 'Web' } } });
    expect(doc.toString()).not.toContain('&');
  });

  it('reports a merge key that is not given a map', () => {
    const { result } = expand('s: &s hello\nm:\n  <<: *s\n');
    expect(result.problems).toHaveLength(1);
    expect(result.problems[0]?.message).toMatch(/merge key `<<` takes an alias of a map/);
  });

  it('refuses a document whose copies exceed the budget (billion laughs)', () => {
    const lines = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 8; i++) {
      const prev = String.fromCharCode(96 + i);
      const name = String.fromCharCode(97 + i);
      lines.push(`${name}: &${name} [${Array(10).fill(`*${prev}`).join(', ')}]`);
    }
    const doc = parseDocument(lines.join('\n'));
    const result = expandAliases(doc, { aliases: true, budget: 10_000 });
    expect(result.problems.some((p) => p.message.includes('budget'))).toBe(true);
  });
});

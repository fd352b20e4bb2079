import { describe, expect, it } from 'vitest';
import { loadKatalog } from '../load-katalog.js';

/** A Katalog whose `reader` entry holds the given `cross` items (YAML, indented for the list). */
const load = (items: string) =>
  loadKatalog({
    file: 'katalog.yaml',
    text: `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: { name: demo }
spec:
  crds:
    reader:
      apiTypes: { group: demo.example.io, version: v1, kind: Reader, plural: readers }
      operatorBox:
        cross:
${items}`,
  });

const errors = (result: ReturnType<typeof load>) =>
  result.ok ? [] : result.errors.map((e) => [e.path.replace('spec.crds.reader.operatorBox.', ''), e.message]);

describe('cross reads by label over HTTP (docs/reference/katalog.md §15.2, ADR 0101)', () => {
  it('loads matchLabels with endpoint and protocol cr (or none), with strategy first or all', () => {
    const result = load(`          - crd: loader
            selector: { matchLabels: { tier: "{{ spec.tier }}" } }
            endpoint: http://loader:8082
            protocol: cr
            strategy: all
            as: loaders
          - crd: loader
            selector: { matchLabels: { tier: gold } }
            endpoint: http://loader:8082
            as: oldest
`);
    expect(errors(result)).toEqual([]);
  });

  it('loads strategy all with a name selector over HTTP: one CR, answered as a list (ADR 0108)', () => {
    const result = load(`          - crd: loader
            selector: { name: "{{ metadata.name }}-loader" }
            endpoint: http://loader:8082
            protocol: cr
            strategy: all
            as: loaders
          - crd: loader
            selector: { name: one }
            endpoint: http://loader:8082
            strategy: all
            as: objects
`);
    expect(errors(result)).toEqual([]);
  });

  it('refuses at the key what answers one object: matchLabels or all with a url or another protocol', () => {
    const result = load(`          - crd: loader
            selector: { matchLabels: { tier: gold } }
            url: http://loader:8082/katalog/loader/cr
            as: a
          - crd: loader
            selector: { matchLabels: { tier: gold } }
            endpoint: http://loader:8082
            protocol: events
            as: b
          - crd: loader
            selector: { name: one }
            endpoint: http://loader:8082
            protocol: events
            strategy: all
            as: c
          - crd: loader
            selector: { name: one }
            url: http://loader:8082/katalog/loader/cr/shop/one
            strategy: all
            as: d
`);
    expect(errors(result)).toEqual([
      ['cross[0].selector.matchLabels', expect.stringMatching(/a whole `url` answers one object/)],
      ['cross[1].selector.matchLabels', expect.stringMatching(/`protocol: events` answers one object/)],
      ['cross[2].strategy', expect.stringMatching(/`protocol: events` answers one object/)],
      ['cross[3].strategy', expect.stringMatching(/a whole `url` answers one object/)],
    ]);
  });
});

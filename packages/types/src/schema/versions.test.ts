import { describe, expect, it } from 'vitest';
import { loadKatalog } from '../load-katalog.js';

const katalog = (entry: string): string => `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: { name: v }
spec:
  crds:
    db:
      apiTypes: { group: demo.example.io, version: v1, kind: Database, plural: databases }
${entry}`;

function errors(text: string): string[] {
  const result = loadKatalog({ text, file: 'k.yaml' });
  return result.ok ? [] : result.errors.map((e) => `${e.line}:${e.column} ${e.path}: ${e.message}`);
}

describe('versions and conversion (docs/reference/katalog.md §3.4)', () => {
  it('loads versions with rules paths (a rules path gives its opposite)', () => {
    expect(
      errors(
        katalog(`      versions:
        - { name: v1alpha1 }
        - { name: v1, storage: true }
      conversion:
        paths:
          - { from: v1alpha1, to: v1, rules: [ { rename: { from: spec.size, to: spec.replicas } } ] }
`),
      ),
    ).toEqual([]);
  });

  it('refuses several versions without conversion, two storage versions, and a rule with two kinds, each at its position', () => {
    expect(
      errors(
        katalog(`      versions:
        - { name: v1alpha1, storage: true }
        - { name: v1, storage: true }
`),
      ),
    ).toEqual([
      expect.stringMatching(/^9:9 spec\.crds\.db\.versions: exactly one version is stored/),
      expect.stringMatching(/^9:9 spec\.crds\.db\.versions: several versions need conversion/),
    ]);
    expect(
      errors(
        katalog(`      versions: [ { name: v1alpha1 }, { name: v1, storage: true } ]
      conversion:
        paths:
          - from: v1alpha1
            to: v1
            rules:
              - { drop: { field: spec.x }, default: { field: spec.y, value: 1 } }
              - { rename: { from: spec.a, to: spec.b.c } }
`),
      ),
    ).toEqual([
      expect.stringMatching(
        /^14:17 .*rules\[0\]: a conversion rule has exactly one of .* \(got default, drop\)/,
      ),
      expect.stringMatching(/^15:47 .*rules\[1\]\.rename\.to: rename keeps the field under the same parent/),
    ]);
  });

  it('refuses a served version with no way to the storage version', () => {
    expect(
      errors(
        katalog(`      versions: [ { name: v1alpha1 }, { name: v1, storage: true }, { name: v2 } ]
      conversion:
        paths:
          - { from: v1alpha1, to: v1, rules: [] }
`),
      ),
    ).toEqual([
      expect.stringMatching(/conversion\.paths: no conversion path v2 → v1/),
      expect.stringMatching(/conversion\.paths: no conversion path v1 → v2/),
    ]);
  });

  it('takes a direction declared refuse: true as declared, except between the read and the stored version', () => {
    const entry = (paths: string) =>
      katalog(`      versions: [ { name: v1alpha1 }, { name: v1 }, { name: v2, storage: true } ]
      conversion:
        paths:
          - { from: v1, to: v2, rules: [] }
${paths}`);
    expect(
      errors(
        entry(
          '          - { from: v1alpha1, to: v2, rules: [] }\n          - { from: v2, to: v1alpha1, refuse: true }\n',
        ),
      ),
    ).toEqual([]);
    expect(
      errors(
        entry(
          '          - { from: v1alpha1, to: v2, rules: [] }\n          - { from: v2, to: v1, refuse: true }\n',
        ),
      ),
    ).toEqual([
      expect.stringMatching(
        /^13:41 .*paths\[2\]\.refuse: the path v2 → v1 may not refuse: the runtime reads and writes its CRs at apiTypes\.version v1, stored at v2/,
      ),
    ]);
    expect(errors(entry('          - { from: v1alpha1, to: v2, rules: [], refuse: true }\n'))).toEqual([
      expect.stringMatching(
        /paths\[1\]: a conversion path has exactly one of spec \(a template\), rules and refuse: true/,
      ),
    ]);
  });

  it('loads wrap, unwrap, enum and forEach rules', () => {
    expect(
      errors(
        katalog(`      versions: [ { name: v1alpha1 }, { name: v1, storage: true } ]
      conversion:
        paths:
          - from: v1alpha1
            to: v1
            rules:
              - wrap: { field: spec.backup, key: schedule }
              - unwrap: { field: spec.image, key: name }
              - enum: { field: spec.engine, map: { postgres: pg, postgresql: pg }, back: { pg: postgres } }
              - forEach:
                  field: spec.ports
                  rules:
                    - rename: { from: port, to: containerPort }
                    - default: { field: protocol, value: TCP }
                    - enum: { field: scheme, map: { http: HTTP } }
`),
      ),
    ).toEqual([]);
  });

  it('refuses a rule that cannot round-trip, each at its position: an enum with no way back, two rules on one field', () => {
    expect(
      errors(
        katalog(`      versions: [ { name: v1alpha1 }, { name: v1, storage: true } ]
      conversion:
        paths:
          - from: v1alpha1
            to: v1
            rules:
              - enum: { field: spec.engine, map: { postgres: pg, postgresql: pg } }
              - enum: { field: spec.tier, map: { a: A }, back: { B: a } }
              - wrap: { field: spec.engine, key: name }
              - forEach:
                  field: spec.ports
                  rules:
                    - drop: { field: legacy }
                    - default: { field: legacy, value: 1 }
                    - forEach: { field: inner, rules: [] }
`),
      ),
    ).toEqual([
      expect.stringMatching(
        /^14:78 .*rules\[0\]\.enum\.map\.postgresql: enum map is not one-to-one: postgres, postgresql all become pg.*write back: \{ pg: postgres \}/,
      ),
      expect.stringMatching(
        /^15:69 .*rules\[1\]\.enum\.back\.B: enum back B → a is not the opposite of a map entry/,
      ),
      expect.stringMatching(/^16:32 .*rules\[2\]\.wrap\.field: spec\.engine is already the field of rule 0/),
      expect.stringMatching(
        /^21:41 .*rules\[3\]\.forEach\.rules\[1\]\.default\.field: legacy is already the field of rule 0/,
      ),
      expect.stringMatching(/^22:23 .*rules\[3\]\.forEach\.rules\[2\]\.forEach: unknown key `forEach`/),
      expect.stringMatching(/^22:23 .*rules\[3\]\.forEach\.rules\[2\]: a conversion rule has exactly one of/),
    ]);
  });

  it('loads a forEach key (a field or a list of fields) and refuses a key only one version has, at the rule', () => {
    expect(
      errors(
        katalog(`      versions: [ { name: v1alpha1 }, { name: v1, storage: true } ]
      conversion:
        paths:
          - from: v1alpha1
            to: v1
            rules:
              - forEach: { field: spec.ports, key: name, rules: [{ rename: { from: port, to: containerPort } }] }
              - forEach: { field: spec.volumes, key: [name, mount.path], rules: [] }
`),
      ),
    ).toEqual([]);
    expect(
      errors(
        katalog(`      versions: [ { name: v1alpha1 }, { name: v1, storage: true } ]
      conversion:
        paths:
          - from: v1alpha1
            to: v1
            rules:
              - forEach:
                  field: spec.ports
                  key: [name, id]
                  rules:
                    - drop: { field: id }
`),
      ),
    ).toEqual([
      expect.stringMatching(
        /^18:38 .*rules\[0\]\.forEach\.rules\[0\]\.drop\.field: id is the forEach key, so both versions have it: it cannot be the field of drop/,
      ),
    ]);
  });
});

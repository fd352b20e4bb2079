import { describe, expect, it } from 'vitest';
import { head, load } from './dialect-fixtures.test-support.js';

/**
 * Upstream dialects, one test per mapping. Every fixture is written here from upstream's
 * documentation and type definitions (pkg/types of orkspace/orkestra and inrundev/inrun), not
 * copied from upstream files.
 */

describe('a lifecycle group written as a list', () => {
  it('is refused in an upstream Katalog with the kind list to write, at the list', () => {
    const text = `${head()}      reconciler:
        onCreate:
          - name: "{{ .metadata.name }}"
            image: nginx
`;
    const result = load(text);
    const found = result.ok ? [] : result.errors;
    expect(found.map((e) => [e.path, e.line, e.column])).toEqual([
      ['spec.crds.website.operatorBox.onCreate', 15, 11],
    ]);
    expect(found[0]?.message).toContain('`onCreate: {deployments: [...]}`');
  });
});

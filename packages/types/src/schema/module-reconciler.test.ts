import { describe, expect, it } from 'vitest';
import { loadKatalog } from '../load-katalog.js';

/** `operatorBox.remote` with `module` + `function` (docs/reference/katalog.md §15.3.1, ADR 0064). */
function load(remote: string) {
  const text = `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: { name: demo }
spec:
  crds:
    site:
      apiTypes: { group: demo.example.io, version: v1, kind: Site, plural: sites }
      operatorBox:
        remote:
${remote}
`;
  return loadKatalog({ text, file: 'katalog.yaml' });
}

describe('a module reconciler reference', () => {
  it('loads module@range + function, the range split off into version', () => {
    const result = load(`          module: "@acme/site@^1.2.0"
          function: reconcile`);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.katalog.spec.crds['site']?.operatorBox.remote).toMatchObject({
      module: '@acme/site',
      version: '^1.2.0',
      function: 'reconcile',
    });
  });

  it.each([
    [
      'no endpoint and no module',
      '          timeout: 10s',
      'spec.crds.site.operatorBox.remote',
      /needs `endpoint`.*or `module` \+ `function`/,
    ],
    [
      'a module without function',
      '          module: "@acme/site"',
      'spec.crds.site.operatorBox.remote.module',
      /needs `function`/,
    ],
    [
      'both endpoint and module',
      '          module: "@acme/site"\n          function: reconcile\n          endpoint: http://x.example.com/',
      'spec.crds.site.operatorBox.remote.endpoint',
      /is for an HTTP service/,
    ],
    [
      'function beside endpoint',
      '          endpoint: http://x.example.com/\n          function: reconcile',
      'spec.crds.site.operatorBox.remote.function',
      /goes with `module`/,
    ],
    [
      'a Go path as module',
      '          module: github.com/acme/rec\n          function: reconcile',
      'spec.crds.site.operatorBox.remote.module',
      /expected an npm package name/,
    ],
  ])('refuses %s at the key', (_what, remote, path, message) => {
    const result = load(remote);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors[0]).toMatchObject({
      file: 'katalog.yaml',
      path,
      message: expect.stringMatching(message),
    });
    expect(result.errors[0]?.line).toBeGreaterThan(0);
  });
});

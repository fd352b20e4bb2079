import { describe, expect, it } from 'vitest';
import { loadKatalogText } from './katalog-file.js';

/**
 * Upstream's `serve.clusters` templates (docs/reference/katalog.md §24, ADR 0094) are compiled with
 * the real template engine before the gateway is dropped, upstream's notes written out first. The
 * fixtures are written here from upstream's validator rules, not copied from upstream files.
 */

const catalog = (clusters: string, notes = ''): string => `apiVersion: inrun.dev/v1
kind: Catalog
metadata:
  name: fanout
${notes}spec:
  crds:
    shop:
      apiTypes:
        group: demo.example.io
        version: v1
        kind: Shop
        plural: shops
      serve:
        enabled: true
        namespace: default
        clusters:
          - '${clusters}'
gateway:
  enabled: true
  clusters:
    east:
      endpoint: https://east.example:6443
      secretRef: {name: east-creds, key: kubeconfig}
`;

const NOTES = `notes:
  functions:
    - name: region
      expression: '{{ if eq .request.zone "a" }}east{{ else }}west{{ end }}'
`;

const errorsOf = (text: string) => {
  const result = loadKatalogText('catalog.yaml', text, { cwd: '/nonexistent' });
  return result.ok ? [] : result.errors.map((e) => `${e.line}:${e.column} ${e.path}: ${e.message}`);
};

describe('upstream serve.clusters templates', () => {
  it('a Go template and a call of a declared note load', () => {
    expect(errorsOf(catalog('{{ if eq .request.zone "a" }}east{{ end }}'))).toEqual([]);
    expect(errorsOf(catalog('{{ region }}', NOTES))).toEqual([]);
  });

  it('an unclosed action is refused at the item', () => {
    expect(errorsOf(catalog('{{ .request.zone }'))).toEqual([
      '17:13 spec.crds.shop.serve.clusters[0]: invalid cluster template: syntax error: missing }} to close this {{ (column 1)',
    ]);
  });

  it('a function that is neither a helper nor a declared note is refused', () => {
    const [error] = errorsOf(catalog('{{ regionOf .request.zone }}', NOTES));
    expect(error).toMatch(
      /^21:13 spec\.crds\.shop\.serve\.clusters\[0\]: invalid cluster template: unknown helper "regionOf"/,
    );
  });
});

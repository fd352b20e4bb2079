import { describe, expect, it } from 'vitest';
import { head, load, ok } from './dialect-fixtures.test-support.js';

/**
 * Upstream's `resources.profile` (docs/reference/katalog.md §24, ADR 0094). Fixtures are written
 * here from upstream's documented presets, not copied.
 */

const child = (resources: string, apiVersion?: string) => `${head(apiVersion)}      operatorBox:
        onCreate:
          deployments:
            - name: web
              image: nginx
              resources:
${resources}`;

const resourcesOf = (text: string) => {
  const entry = ok(load(text)).katalog.spec.crds['website'] as unknown as {
    operatorBox: { onCreate: { deployments: { resources: unknown }[] } };
  };
  return entry.operatorBox.onCreate.deployments[0]?.resources;
};

describe('upstream resources.profile', () => {
  it.each(['orkestra.orkspace.io/v1', 'inrun.dev/v1'])(
    'a literal preset becomes its requests and limits (%s)',
    (v) => {
      expect(resourcesOf(child('                profile: Memory-Heavy\n', v))).toEqual({
        requests: { cpu: '250m', memory: '1Gi' },
        limits: { cpu: '500m', memory: '2Gi' },
      });
    },
  );

  it('a templated preset becomes four quantities chosen by the rendered name', () => {
    const resources = resourcesOf(
      child(`                profile: '{{ .spec.size | default "small" }}'\n`),
    ) as {
      requests: { cpu: string };
    };
    expect(resources.requests.cpu).toMatch(
      /^\{\{ if eq \(lower \(\.spec\.size \| default "small"\)\) "tiny" \}\}25m/,
    );
    expect(resources.requests.cpu).toContain(
      '{{ else }}unknown resources.profile "{{ .spec.size | default "small" }}"{{ end }}',
    );
  });

  it('an unknown name, a profile beside requests, and a template with text around it are refused at the profile', () => {
    const errorsOf = (text: string) => {
      const result = load(text);
      return result.ok ? [] : result.errors.map((e) => [e.line, e.path, e.message]);
    };
    const path = 'spec.crds.website.operatorBox.onCreate.deployments[0].resources.profile';
    expect(errorsOf(child('                profile: mega\n'))).toEqual([
      [
        19,
        path,
        'unknown resources.profile "mega": allowed tiny, small, medium, large, burst, steady, compute-heavy, memory-heavy (presets under upstream\'s profiles.resources are not read; write requests and limits)',
      ],
    ]);
    expect(
      errorsOf(child('                profile: small\n                limits: {cpu: "1"}\n'))[0]?.[2],
    ).toMatch(/mutually exclusive/);
    expect(errorsOf(child(`                profile: 'x-{{ .spec.size }}'\n`))[0]?.[2]).toMatch(
      /one `\{\{ … \}\}` action/,
    );
  });
});

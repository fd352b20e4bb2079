import { describe, expect, it } from 'vitest';
import { createTemplateEngine } from '@orkestra/template';
import { loadKatalogText } from './katalog-file.js';

/**
 * A templated upstream `resources.profile` (docs/reference/katalog.md §24, ADR 0094) renders, per
 * CR, the preset upstream's documentation gives for the name the CR carries. The expected table is
 * written here from upstream's documented presets; the Katalog is this test's own.
 */

const KATALOG = `apiVersion: inrun.dev/v1
kind: Catalog
metadata:
  name: sized
spec:
  crds:
    app:
      apiTypes:
        group: demo.example.io
        version: v1
        kind: App
        plural: apps
      operatorBox:
        onCreate:
          deployments:
            - name: '{{ .metadata.name }}'
              image: nginx
              resources:
                profile: '{{ .spec.size | default "burst" }}'
`;

// requests cpu/memory, limits cpu/memory
const PRESETS: Record<string, [string, string, string, string]> = {
  tiny: ['25m', '64Mi', '100m', '128Mi'],
  small: ['100m', '128Mi', '500m', '512Mi'],
  medium: ['250m', '256Mi', '1', '1Gi'],
  large: ['500m', '512Mi', '2', '2Gi'],
  burst: ['200m', '256Mi', '2', '2Gi'],
  steady: ['300m', '256Mi', '600m', '512Mi'],
  'compute-heavy': ['1', '512Mi', '2', '1Gi'],
  'memory-heavy': ['250m', '1Gi', '500m', '2Gi'],
};

describe('upstream templated resources.profile', () => {
  const loaded = loadKatalogText('catalog.yaml', KATALOG, { cwd: '/nonexistent' });
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
  const resources = (
    loaded.katalog.spec.crds['app'] as unknown as {
      operatorBox: { onCreate: { deployments: { resources: Record<string, Record<string, string>> }[] } };
    }
  ).operatorBox.onCreate.deployments[0]?.resources;
  const engine = createTemplateEngine();
  const render = (spec: Record<string, unknown>) =>
    ['requests', 'limits'].flatMap((side) =>
      ['cpu', 'memory'].map((r) =>
        String(
          engine.renderTemplate(resources?.[side]?.[r] ?? '', { metadata: { name: 'a' }, spec } as never),
        ),
      ),
    );

  it.each(Object.entries(PRESETS))('%s renders its preset', (name, expected) => {
    expect(render({ size: name })).toEqual(expected);
    expect(render({ size: name.toUpperCase() })).toEqual(expected);
  });

  it('an absent name renders the default the template gives', () => {
    expect(render({})).toEqual(PRESETS['burst']);
  });

  it('an unknown name renders a quantity the API server refuses, naming it', () => {
    expect(render({ size: 'mega' })[0]).toBe('unknown resources.profile "mega"');
  });
});

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTemplateEngine } from '@orkestra/template';
import { runOrk } from '../test/run-ork.js';
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

  it('an unknown name renders a value that is not a quantity, naming it', () => {
    expect(render({ size: 'mega' })[0]).toBe('unknown resources.profile "mega"');
  });
});

describe('ork render with a templated resources.profile', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ork-profile-'));
  writeFileSync(join(dir, 'catalog.yaml'), KATALOG);
  const renderCr = async (size: string) => {
    writeFileSync(
      join(dir, 'cr.yaml'),
      `apiVersion: demo.example.io/v1\nkind: App\nmetadata: {name: shop, namespace: default}\nspec: {size: ${size}}\n`,
    );
    return runOrk(['render', join(dir, 'catalog.yaml'), '--cr', join(dir, 'cr.yaml')]);
  };

  it('writes the Deployment with the preset the CR names', async () => {
    const run = await renderCr('Steady');
    expect(run.stdout).toContain(
      'resources:\n            requests:\n              cpu: 300m\n              memory: 256Mi\n            limits:\n              cpu: 600m\n              memory: 512Mi\n',
    );
  });

  it('stops the reconcile of a CR naming an unknown preset with TemplateError naming it', async () => {
    const run = await renderCr('mega');
    expect(run.stderr).toContain(
      'Ready=False TemplateError: onCreate.deployments[0].resources.requests.cpu: expected a quantity, got "unknown resources.profile \\"mega\\""',
    );
  });
});

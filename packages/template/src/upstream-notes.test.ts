import { loadKatalog } from '@orkestra/types';
import { describe, expect, it } from 'vitest';
import { createTemplateEngine } from './template-engine.js';

/**
 * Upstream's `notes` (user-defined template functions) are written out by the loader where they
 * are called (docs/reference/katalog.md §24). These tests load an upstream Katalog that calls
 * notes in the ways upstream's docs show and render the written-out templates: each value is what
 * upstream's note would produce on the same CR.
 */
const KATALOG = `apiVersion: orkestra.orkspace.io/v1
kind: Katalog
metadata: {name: notes}
spec:
  crds:
    app:
      apiTypes: {group: demo.example.com, version: v1, kind: App, plural: apps}
      operatorBox:
        onReconcile:
          configMaps:
            - name: "{{ appLabel }}"
              data:
                image: "{{ fullImage }}"
                host: "{{ serviceHost }}"
                replicas: "{{ if isProd }}3{{ else }}1{{ end }}"
                upper: "{{ appLabel | upper }}"
                perRegion: "{{ range .spec.regions }}{{ . }}@{{ appLabel }};{{ end }}"
                operand: "{{ range .spec.regions }}{{ printf \\"%s=%s\\" . appLabel }};{{ end }}"
notes:
  functions:
    - name: fullImage
      expression: '{{ .spec.image }}:{{ .spec.tag | default "latest" }}'
    - name: appLabel
      expression: "{{ .metadata.namespace }}-{{ .metadata.name }}"
    - name: serviceHost
      description: calls another note
      expression: "{{ appLabel }}.svc.cluster.local"
    - name: isProd
      expression: '{{ eq .spec.env "prod" }}'
`;

const cr = {
  metadata: { name: 'shop', namespace: 'team-a' },
  spec: { image: 'nginx', env: 'prod', regions: ['eu', 'us'] },
};

describe('upstream notes, written out by the loader', () => {
  it('render what upstream notes render on the same CR', () => {
    const loaded = loadKatalog({ text: KATALOG, file: 'k.yaml' });
    if (!loaded.ok) throw new Error(loaded.errors.map((e) => e.message).join('\n'));
    const configMap = loaded.katalog.spec.crds['app']?.operatorBox.onReconcile.configMaps[0];
    const engine = createTemplateEngine();
    const render = (source: unknown) => engine.renderTemplate(String(source), cr);
    expect(render(configMap?.name)).toBe('team-a-shop');
    const data = Object.fromEntries(Object.entries(configMap?.data ?? {}).map(([k, v]) => [k, render(v)]));
    expect(data).toEqual({
      image: 'nginx:latest',
      host: 'team-a-shop.svc.cluster.local',
      replicas: '3',
      upper: 'TEAM-A-SHOP',
      // Inside range the note still renders against the CR, as upstream's notes do.
      perRegion: 'eu@team-a-shop;us@team-a-shop;',
      operand: 'eu=team-a-shop;us=team-a-shop;',
    });
  });
});

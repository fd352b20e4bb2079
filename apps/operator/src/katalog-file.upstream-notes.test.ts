import { describe, expect, it } from 'vitest';
import { loadKatalogText } from './katalog-file.js';

/**
 * Upstream Katalogs whose status fields call upstream's built-in Kubernetes notes
 * (docs/reference/katalog.md §17.6.1), in both upstream generations. The fixtures are written here
 * from upstream's note documentation, not copied from upstream files.
 */

const katalog = (apiVersion: string, fields: string, extra = ''): string => `apiVersion: ${apiVersion}
kind: Katalog
metadata:
  name: probes
spec:
  crds:
    probe:
      apiTypes:
        group: demo.example.io
        version: v1alpha1
        kind: Probe
        plural: probes
${extra}      operatorBox:
        onCreate:
          deployments:
            - name: "{{ .metadata.name }}"
              image: "{{ .spec.image }}"
        status:
          fields:
${fields}`;

const field = (path: string, value: string): string =>
  `            - path: ${path}\n              value: '${value}'\n`;

const notes = [
  field('childName', '{{ name .children.deployment }}'),
  field('synced', '{{ isSynced .children.deployment }}'),
  field('reason', '{{ conditionReason .children.deployment "Available" }}'),
  field('rollout', '{{ rolloutComplete .children.deployment }}'),
  field('port', '{{ containerPort .children.deployment }}'),
  field('ingress', '{{ ingressReady .children.ingress }}'),
  field('scaling', '{{ hpaScaling .children.hpa }}'),
].join('');

const load = (text: string) => loadKatalogText('katalog.yaml', text, { cwd: '/nonexistent' });

describe('upstream Kubernetes notes in a Katalog', () => {
  it.each([
    ['newer generation', 'orkestra.orkspace.io/v1'],
    ['older generation', 'orkestra.konductor.io/v1Alpha'],
  ])('load in the %s', (_, apiVersion) => {
    const result = load(katalog(apiVersion, notes));
    expect(result.ok ? [] : result.errors).toEqual([]);
  });

  it('a note over enriched pods stays refused at its position, naming what to read instead', () => {
    const result = load(
      katalog('orkestra.orkspace.io/v1', field('pods', '{{ podNames .children.deployment }}')),
    );
    expect(result.ok).toBe(false);
    const [error] = result.ok ? [] : result.errors;
    expect(error).toMatchObject({
      file: 'katalog.yaml',
      line: 21,
      path: 'spec.crds.probe.operatorBox.status.fields[0].value',
    });
    expect(error?.message).toMatch(/unknown helper "podNames".*enrich.*readyReplicas/);
  });

  it('a status field named observedGeneration stays refused, naming what the runtime writes there', () => {
    const result = load(
      katalog(
        'orkestra.orkspace.io/v1',
        field('observedGeneration', '{{ observedGeneration .children.deployment }}'),
      ),
    );
    expect(result.ok).toBe(false);
    const [error] = result.ok ? [] : result.errors;
    expect(error).toMatchObject({ line: 20, path: 'spec.crds.probe.operatorBox.status.fields[0].path' });
    expect(error?.message).toMatch(/Orkestra writes status\.observedGeneration/);
  });
});

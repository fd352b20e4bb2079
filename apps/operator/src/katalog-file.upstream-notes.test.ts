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

  it("upstream's newest notes over enrichment load with their targets (ADR 0087)", () => {
    const fields = [
      field('pods', '{{ backingPodCount .children.service }}'),
      field('warnings', '{{ firstWarning .children.deployment }}'),
      field('label', '{{ getLabel .children.deployment "app" }}'),
    ].join('');
    const result = load(katalog('orkestra.orkspace.io/v1', fields, '      enrich: [backingpods, events]\n'));
    expect(result.ok ? [] : result.errors).toEqual([]);
    if (result.ok) expect(result.katalog.spec.crds['probe']?.enrich).toEqual(['backingpods', 'events']);
  });

  it('a target Orkestra does not add stays refused at its position, naming why', () => {
    const result = load(
      katalog(
        'orkestra.orkspace.io/v1',
        field('n', '{{ name .children.deployment }}'),
        '      enrich: [ingress]\n',
      ),
    );
    expect(result.ok).toBe(false);
    const [error] = result.ok ? [] : result.errors;
    expect(error).toMatchObject({ file: 'katalog.yaml', line: 13, path: 'spec.crds.probe.enrich[0]' });
    expect(error?.message).toMatch(/enrich target `ingress` has no counterpart in Orkestra: .*Secret/);
  });

  it('enrich: [pods] / [endpoints] with the notes over them loads (katalog.md §3.5, §17.6.2)', () => {
    const jobs = [
      field('exitCode', '{{ jobFirstExitCode .children.job }}'),
      field('active', '{{ jobActivePodNames .children.job }}'),
      field('succeeded', '{{ jobSucceededPodNames .children.job }}'),
      field('failed', '{{ jobFailedPodNames .children.job }}'),
    ].join('');
    const services = [
      field('has', '{{ hasEndpoints .children.service }}'),
      field('count', '{{ serviceEndpointCount .children.service }}'),
      field('all', '{{ serviceEndpoints .children.service }}'),
      field('first', '{{ serviceFirstEndpoint .children.service }}'),
    ].join('');
    const workloads = [
      field('pods', '{{ podNames .children.deployment }}'),
      field('ready', '{{ readyPodCount .children.deployment }}'),
      field('crash', '{{ hasCrashingPod .children.statefulset }}'),
      field('primary', '{{ (podByOrdinal .children.statefulset 0).name }}'),
      field('state', '{{ podContainerState .children.statefulset 0 "app" }}'),
      field('oom', '{{ podOOMKilledDetected .children.replicaset }}'),
    ].join('');
    for (const [fields, extra, want] of [
      [jobs, '      enrich:\n        - pods\n', ['pods']],
      [workloads, '      enrich: [pods]\n', ['pods']],
      [services, '      enrich: [endpoints, hpa]\n', ['endpoints']],
    ] as const) {
      const result = load(katalog('orkestra.orkspace.io/v1', fields, extra));
      if (!result.ok) throw new Error(result.errors.map((e) => e.message).join('\n'));
      expect(result.katalog.spec.crds['probe']?.enrich).toEqual(want);
    }
  });

  it('an upstream status field named observedGeneration is removed with a note (katalog.md §24); the rest loads', () => {
    const result = load(
      katalog(
        'orkestra.orkspace.io/v1',
        field('observedGeneration', '{{ observedGeneration .children.deployment }}'),
      ),
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.katalog.spec.crds['probe']?.operatorBox?.status?.fields ?? []).toEqual([]);
  });

  it('in Orkestra’s own dialect it stays refused, naming what the runtime writes there', () => {
    const result = load(
      katalog('orkestra.konductor.io/v1alpha1', field('observedGeneration', '{{ generation }}')),
    );
    expect(result.ok).toBe(false);
    const [error] = result.ok ? [] : result.errors;
    expect(error?.path).toBe('spec.crds.probe.operatorBox.status.fields[0].path');
    expect(error?.message).toMatch(/Orkestra writes status\.observedGeneration/);
  });
});

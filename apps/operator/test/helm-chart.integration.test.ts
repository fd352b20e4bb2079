import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { useControlPlane } from '@orkestra/testenv/vitest';
import { loadKatalogOrThrow } from '@orkestra/types';
import { describe, expect, it } from 'vitest';
import { generateRbac } from '../src/generate-rbac.js';
import { applyAll, documentsOf } from './apply.js';
import { renderHelmTemplate } from './helm-template.js';
import { REPO_ROOT } from './run-ork.js';

// What this proves: the chart's templates, rendered by test/helm-template.ts (a small renderer of
// the Go-template subset the chart uses), produce objects the API server accepts in a server-side
// dry run, with `ork generate rbac` rules in `rbac.rules`. What it does not prove: that real Helm
// renders them identically (no helm binary here), that the image exists or starts, or that the
// RBAC is sufficient for a running operator.

const env = useControlPlane();
const chartDir = join(REPO_ROOT, 'apps/operator/deploy/helm/orkestra');
const chart = parse(readFileSync(join(chartDir, 'Chart.yaml'), 'utf8')) as Record<string, unknown>;
const defaults = parse(readFileSync(join(chartDir, 'values.yaml'), 'utf8')) as Record<string, unknown>;
const templates = readdirSync(join(chartDir, 'templates'))
  .filter((f) => f.endsWith('.yaml'))
  .sort();

function renderChart(values: Record<string, unknown>, release: { Name: string; Namespace: string }): string {
  const scope = {
    Values: values,
    Release: release,
    Chart: { Name: chart['name'], AppVersion: chart['appVersion'], Version: chart['version'] },
  };
  return templates
    .map((t) => `---\n${renderHelmTemplate(readFileSync(join(chartDir, 'templates', t), 'utf8'), scope)}\n`)
    .join('');
}

describe('helm chart', () => {
  const katalogFile = join(REPO_ROOT, 'examples/website/katalog.yaml');
  const katalog = loadKatalogOrThrow({ path: katalogFile });

  it('renders with the website Katalog and generated RBAC, and the API server accepts it (dry run)', async () => {
    const rbac = generateRbac(katalog, { namespace: env.namespace });
    const values = {
      ...defaults,
      katalog: readFileSync(katalogFile, 'utf8'),
      katalogName: katalog.metadata.name,
      rbac: { ...(defaults['rbac'] as object), rules: rbac.rules },
    };
    const objects = documentsOf(renderChart(values, { Name: 'website-operator', Namespace: env.namespace }));
    expect(objects.map((o) => o.kind)).toEqual([
      'ConfigMap',
      'Deployment',
      'ClusterRole',
      'ClusterRoleBinding',
      'Role',
      'RoleBinding',
      'Service',
      'ServiceAccount',
    ]);
    const configMap = objects[0] as { data: Record<string, string> };
    expect(configMap.data['katalog.yaml']).toBe(readFileSync(katalogFile, 'utf8'));
    const deployment = objects[1] as {
      spec: { template: { spec: { containers: { image: string; args: string[] }[] } } };
    };
    const container = deployment.spec.template.spec.containers[0];
    expect(container?.image).toBe(`ghcr.io/orkestra/operator:${String(chart['appVersion'])}`);
    expect(container?.args).toContain('--leader-elect=true');
    expect((objects[2] as { rules: unknown }).rules).toEqual(rbac.rules);
    const applied = await applyAll(env.kubeConfig, objects, { dryRun: true });
    expect(applied).toHaveLength(objects.length);
  });

  it('renders a namespaced Role when rbac.clusterScoped is false (dry run)', async () => {
    const values = {
      ...defaults,
      rbac: { ...(defaults['rbac'] as object), clusterScoped: false, namespace: env.namespace },
      serviceAccount: { create: false },
    };
    const objects = documentsOf(renderChart(values, { Name: 'pinned', Namespace: env.namespace }));
    const kinds = objects.map((o) => o.kind);
    expect(kinds).not.toContain('ClusterRole');
    expect(kinds).not.toContain('ServiceAccount');
    expect(kinds.filter((k) => k === 'Role')).toHaveLength(2);
    await applyAll(env.kubeConfig, objects, { dryRun: true });
  });
});

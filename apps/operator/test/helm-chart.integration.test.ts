import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { useControlPlane } from '@orkestra/testenv/vitest';
import { loadKatalogOrThrow } from '@orkestra/types';
import { describe, expect, it } from 'vitest';
import { generateRbac } from '../src/generate/generate-rbac.js';
import { applyAll, documentsOf } from './apply.js';
import { tempDir } from './e2e/ork-process.js';
import { REPO_ROOT, runOrk } from './run-ork.js';
import { mustRun, runTool } from './tools.js';

// What this proves: real Helm (built by tools/testenv/build.sh) lints the chart strictly, renders
// it to the reviewed goldens in test/golden/helm/, renders what `ork generate helm-values` gives it
// (the rules of `ork generate rbac`), and the API server accepts the result in a server-side dry
// run. install → upgrade → uninstall with a running operator is test/image/install.integration.test.ts.

const env = useControlPlane();
const chartDir = join(REPO_ROOT, 'apps/operator/deploy/helm/orkestra');
const dir = tempDir();
const helmEnv = {
  HELM_CACHE_HOME: join(dir, 'cache'),
  HELM_CONFIG_HOME: join(dir, 'config'),
  HELM_DATA_HOME: join(dir, 'data'),
};
const template = (...args: string[]) =>
  mustRun('helm', ['template', 'website-operator', chartDir, '--namespace', 'orkestra-system', ...args], {
    env: helmEnv,
  });

async function websiteValues(namespace: string): Promise<string> {
  const run = await runOrk(['generate', 'helm-values', 'examples/website/katalog.yaml', '-n', namespace]);
  if (run.code !== 0) throw new Error(run.stderr);
  const file = join(dir, `website-${namespace}.values.yaml`);
  writeFileSync(file, run.stdout);
  return file;
}

describe('helm chart (real helm)', () => {
  it('passes helm lint --strict with its defaults and with generated values', async () => {
    const lint = await runTool('helm', ['lint', '--strict', chartDir], { env: helmEnv });
    expect(lint.stdout + lint.stderr).toContain('1 chart(s) linted, 0 chart(s) failed');
    expect(lint.code).toBe(0);
    const values = await websiteValues('orkestra-system');
    const withValues = await runTool('helm', ['lint', '--strict', chartDir, '-f', values], { env: helmEnv });
    expect(withValues.code, withValues.stdout).toBe(0);
  });

  it('renders the goldens: defaults, the website Katalog, and every optional value', async () => {
    await expect(await template()).toMatchFileSnapshot('golden/helm/default.yaml.golden');
    const values = await websiteValues('orkestra-system');
    await expect(await template('-f', values)).toMatchFileSnapshot('golden/helm/website.yaml.golden');
    const options = join(REPO_ROOT, 'apps/operator/test/fixtures/helm-options.values.yaml');
    await expect(await template('-f', values, '-f', options)).toMatchFileSnapshot(
      'golden/helm/options.yaml.golden',
    );
  });

  it('holds the Katalog verbatim and exactly the rules of ork generate rbac', async () => {
    const katalogFile = join(REPO_ROOT, 'examples/website/katalog.yaml');
    const katalog = loadKatalogOrThrow({ path: katalogFile });
    const objects = documentsOf(await template('-f', await websiteValues('orkestra-system')));
    const configMap = objects.find((o) => o.kind === 'ConfigMap') as unknown as {
      data: Record<string, string>;
    };
    expect(configMap.data['katalog.yaml']).toBe(readFileSync(katalogFile, 'utf8'));
    const role = objects.find((o) => o.kind === 'ClusterRole') as unknown as { rules: unknown };
    expect(role.rules).toEqual(generateRbac(katalog, { namespace: 'orkestra-system' }).rules);
  });

  it('caps the work directory: emptyDir sizeLimits, and --max-work-dir-bytes below the work one', async () => {
    const objects = documentsOf(await template());
    const deployment = objects.find((o) => o.kind === 'Deployment') as unknown as {
      spec: {
        template: {
          spec: {
            volumes: { name: string; emptyDir?: { sizeLimit?: string } }[];
            containers: { args: string[] }[];
          };
        };
      };
    };
    const limits = Object.fromEntries(
      deployment.spec.template.spec.volumes.map((v) => [v.name, v.emptyDir?.sizeLimit]),
    );
    expect(limits).toMatchObject({ work: '2Gi', tmp: '256Mi' });
    expect(deployment.spec.template.spec.containers[0]?.args).toContain('--max-work-dir-bytes=1Gi');
  });

  it('refuses replicas > 1 without leader election, and a missing Katalog', async () => {
    const twoLeaders = await runTool(
      'helm',
      ['template', 'x', chartDir, '--set', 'replicaCount=2,leaderElection.enabled=false'],
      { env: helmEnv },
    );
    expect(twoLeaders.code).not.toBe(0);
    expect(twoLeaders.stderr).toContain('replicaCount > 1 needs leaderElection.enabled: true');
    const noKatalog = await runTool('helm', ['template', 'x', chartDir, '--set', 'katalog.inline='], {
      env: helmEnv,
    });
    expect(noKatalog.code).not.toBe(0);
    expect(noKatalog.stderr).toContain('katalog.inline (or katalog.existingConfigMap.name) is required');
  });

  it('uses an existing ConfigMap instead of its own when asked', async () => {
    const objects = documentsOf(
      await template('--set', 'katalog.existingConfigMap.name=mine,katalog.existingConfigMap.key=k.yaml'),
    );
    expect(objects.map((o) => o.kind)).not.toContain('ConfigMap');
    const deployment = objects.find((o) => o.kind === 'Deployment') as unknown as {
      spec: {
        template: {
          spec: {
            volumes: { name: string; configMap?: { name: string } }[];
            containers: { args: string[] }[];
          };
        };
      };
    };
    expect(deployment.spec.template.spec.volumes[0]?.configMap?.name).toBe('mine');
    expect(deployment.spec.template.spec.containers[0]?.args).toContain('--katalog=/etc/orkestra/k.yaml');
  });

  it('renders objects the API server accepts (server-side dry run), ClusterRole and namespaced Role', async () => {
    const values = await websiteValues(env.namespace);
    const rendered = await mustRun(
      'helm',
      ['template', 'website-operator', chartDir, '--namespace', env.namespace, '-f', values],
      { env: helmEnv },
    );
    const objects = documentsOf(rendered);
    expect(await applyAll(env.kubeConfig, objects, { dryRun: true })).toHaveLength(objects.length);
    const pinned = documentsOf(
      await mustRun(
        'helm',
        [
          'template',
          'pinned',
          chartDir,
          '--namespace',
          env.namespace,
          '--set',
          `rbac.clusterScoped=false,rbac.namespace=${env.namespace},serviceAccount.create=false`,
        ],
        { env: helmEnv },
      ),
    );
    const kinds = pinned.map((o) => o.kind);
    expect(kinds).not.toContain('ClusterRole');
    expect(kinds).not.toContain('ServiceAccount');
    expect(kinds.filter((k) => k === 'Role')).toHaveLength(2);
    await applyAll(env.kubeConfig, pinned, { dryRun: true });
  });

  it('keeps Chart.yaml valid for helm package', async () => {
    const chart = parse(readFileSync(join(chartDir, 'Chart.yaml'), 'utf8')) as Record<string, unknown>;
    expect(chart['apiVersion']).toBe('v2');
    const packaged = await runTool('helm', ['package', chartDir, '--destination', dir], { env: helmEnv });
    expect(packaged.code, packaged.stderr).toBe(0);
  });
});

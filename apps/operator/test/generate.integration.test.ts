import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubernetesObjectApi } from '@kubernetes/client-node';
import type { KubernetesObject } from '@kubernetes/client-node';
import { useControlPlane } from '@orkestra/testenv/vitest';
import { afterAll, describe, expect, it } from 'vitest';
import { applyAll, documentsOf } from './apply.js';
import { REPO_ROOT, runOrk } from './run-ork.js';

// `ork generate crd` output is applied for real and must become Established; `ork generate rbac`
// and `ork generate bundle` output must pass a server-side dry-run apply.

const env = useControlPlane();
const examples = readdirSync(join(REPO_ROOT, 'examples'))
  .filter((name) => existsSync(join(REPO_ROOT, 'examples', name, 'katalog.yaml')))
  .sort();
const work = mkdtempSync(join(tmpdir(), 'ork-generate-'));
const created: KubernetesObject[] = [];

afterAll(async () => {
  const api = KubernetesObjectApi.makeApiClient(env.kubeConfig);
  for (const crd of created) await api.delete(crd).catch(() => undefined);
  rmSync(work, { recursive: true, force: true });
});

/** A copy of an example whose API groups get a unique prefix, so CRDs never clash with other test files. */
function uniqueGroups(example: string): string {
  const prefix = `t${randomBytes(3).toString('hex')}`;
  const text = readFileSync(join(REPO_ROOT, 'examples', example, 'katalog.yaml'), 'utf8').replace(
    /\bgroup: ([a-z0-9.-]+)/g,
    `group: ${prefix}.$1`,
  );
  const file = join(work, `${example}.yaml`);
  writeFileSync(file, text);
  return file;
}

async function established(name: string): Promise<boolean> {
  const api = KubernetesObjectApi.makeApiClient(env.kubeConfig);
  for (let attempt = 0; attempt < 100; attempt++) {
    const crd = (await api.read({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name },
    })) as KubernetesObject & { status?: { conditions?: { type: string; status: string }[] } };
    if (crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

describe.each(examples)('example %s', (example) => {
  it('ork generate crd: every CRD is accepted and becomes Established', async () => {
    const run = await runOrk(['generate', 'crd', uniqueGroups(example)]);
    expect(run.code, run.stderr).toBe(0);
    const crds = documentsOf(run.stdout);
    expect(crds.length).toBeGreaterThan(0);
    const applied = await applyAll(env.kubeConfig, crds, { dryRun: false });
    created.push(...applied);
    for (const crd of applied) expect(await established(crd.metadata?.name ?? '')).toBe(true);
  });

  it('ork generate rbac: a server-side dry-run apply accepts every object', async () => {
    const run = await runOrk(['generate', 'rbac', `examples/${example}/katalog.yaml`, '-n', env.namespace]);
    expect(run.code, run.stderr).toBe(0);
    const objects = documentsOf(run.stdout);
    const applied = await applyAll(env.kubeConfig, objects, { dryRun: true });
    expect(applied.map((o) => o.kind)).toEqual(objects.map((o) => o.kind));
  });

  it('ork generate bundle: a server-side dry-run apply accepts every object', async () => {
    const run = await runOrk(['generate', 'bundle', uniqueGroups(example), '-n', env.namespace]);
    expect(run.code, run.stderr).toBe(0);
    const objects = documentsOf(run.stdout);
    expect(objects.map((o) => o.kind)).toEqual(
      expect.arrayContaining(['Namespace', 'CustomResourceDefinition', 'ConfigMap', 'Deployment', 'Service']),
    );
    const applied = await applyAll(env.kubeConfig, objects, { dryRun: true });
    expect(applied).toHaveLength(objects.length);
  });
});

/**
 * Support for the module e2e tests (hook modules, ADR 0052; module reconcilers, ADR 0064): a
 * module package written outside the workspace, packed and installed with plain npm into a
 * provider directory as the reference says (`--omit=peer`: the operator provides the kit), and
 * `ork run` started with that directory, ready once the module is loaded.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CustomObjectsApi } from '@kubernetes/client-node';
import type { KubeConfig } from '@kubernetes/client-node';
import { spawnOrk, waitFor } from './ork-process.js';
import type { OrkProcess } from './ork-process.js';

const exec = promisify(execFile);

/**
 * installModulePackage writes `@acme/<name>` version 1.2.3 (its `index.js` is `source`, the kit a
 * peer) under `work`, packs it and installs the tarball into `work/modules`; returns that directory.
 */
export async function installModulePackage(work: string, name: string, source: string): Promise<string> {
  const project = join(work, name);
  mkdirSync(project, { recursive: true });
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({
      name: `@acme/${name}`,
      version: '1.2.3',
      type: 'module',
      exports: './index.js',
      // The operator provides the kit; optional, so a plain `npm install --omit=peer` never fetches it.
      peerDependencies: { '@orkestra/provider-kit': '*' },
      peerDependenciesMeta: { '@orkestra/provider-kit': { optional: true } },
    }),
  );
  writeFileSync(join(project, 'index.js'), source);
  await exec('npm', ['pack', '--pack-destination', work], { cwd: project });
  const modules = join(work, 'modules');
  mkdirSync(modules, { recursive: true });
  writeFileSync(join(modules, 'package.json'), JSON.stringify({ name: 'modules', private: true }));
  const tarball = join(work, `acme-${name}-1.2.3.tgz`);
  await exec(
    'npm',
    ['install', '--omit=peer', '--offline', '--no-audit', '--no-fund', '--prefix', modules, tarball],
    { cwd: modules },
  );
  return modules;
}

/** OrkWithModulesOptions configures runOrkWithModules. */
export interface OrkWithModulesOptions {
  readonly kubeConfig: KubeConfig;
  readonly namespace: string;
  readonly work: string;
  readonly katalogFile: string;
  /** The provider directory (`installModulePackage`'s answer). */
  readonly modules: string;
  /** The log message that says the module was loaded. */
  readonly loaded: string;
}

/** runOrkWithModules starts `ork run` with the provider directory and waits for the load and /readyz 200. */
export async function runOrkWithModules(o: OrkWithModulesOptions): Promise<OrkProcess> {
  const kubeconfig = join(o.work, 'kubeconfig.json');
  writeFileSync(kubeconfig, o.kubeConfig.exportConfig());
  const ork = spawnOrk(
    [
      ...['run', '--katalog', o.katalogFile, '--kubeconfig', kubeconfig, '--namespace', o.namespace],
      ...['--install-crds', '--leader-elect=false'],
      ...['--metrics-bind-address', '127.0.0.1:0', '--health-probe-bind-address', '127.0.0.1:0'],
    ],
    { ORKESTRA_PROVIDER_DIR: o.modules },
  );
  await ork.waitForLog(o.loaded, (l) => l.msg === o.loaded);
  const health = await ork.healthUrl();
  await waitFor('/readyz 200', async () => ((await fetch(`${health}/readyz`)).ok ? true : undefined));
  return ork;
}

/** SiteKatalogOptions: the Katalog's name, the Site kind's group and the entry's `operatorBox` lines. */
export interface SiteKatalogOptions {
  readonly work: string;
  readonly name: string;
  readonly group: string;
  /** The `operatorBox` block's lines, indented by eight spaces. */
  readonly box: string;
}

/**
 * writeSiteKatalog writes `work/katalog.yaml`: one entry, `site` (kind Site, `spec.host`, a free
 * status), with the given operatorBox; returns the file.
 */
export function writeSiteKatalog(o: SiteKatalogOptions): string {
  const file = join(o.work, 'katalog.yaml');
  writeFileSync(
    file,
    `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: { name: ${o.name} }
spec:
  crds:
    site:
      apiTypes: { group: ${o.group}, version: v1, kind: Site, plural: sites }
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec: { type: object, properties: { host: { type: string } } }
            status: { type: object, x-kubernetes-preserve-unknown-fields: true }
      operatorBox:
${o.box}`,
  );
  return file;
}

/** SiteView is a Site CR as read back: the module's status fields and the conditions. */
export interface SiteView<Status> {
  readonly status?: Status & {
    readonly conditions?: readonly { type: string; status: string; reason?: string; message?: string }[];
  };
}

/** siteClient creates Site CRs of `group` in `namespace` (`spec.host`) and reads them back. */
export function siteClient<Status>(kubeConfig: KubeConfig, namespace: string, group: string) {
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const cr = { group, version: 'v1', namespace, plural: 'sites' };
  return {
    create: (name: string, host: string) =>
      custom.createNamespacedCustomObject({
        ...cr,
        body: { apiVersion: `${group}/v1`, kind: 'Site', metadata: { name }, spec: { host } },
      }),
    read: (name: string) => custom.getNamespacedCustomObject({ ...cr, name }) as Promise<SiteView<Status>>,
    remove: (name: string) => custom.deleteNamespacedCustomObject({ ...cr, name }),
  };
}

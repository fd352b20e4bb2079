/**
 * ConfigMap copies on the local control plane (docs/reference/katalog.md §7.2, ADR 0048 and 0115),
 * under the Secret copy's rules: a literal source is copied and followed when it changes (watched
 * by name, not waiting for the 1h resync); a source the CR chose in another namespace waits with
 * CopyNotGranted until the source's annotation grants the CR's namespace; a missing source waits
 * with SourceConfigMapMissing and is copied once it exists.
 */
import { randomBytes } from 'node:crypto';
import { CoreV1Api } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { OrkestraAnnotation } from '@orkestra/types';
import { createNamespace, katalogFrom, readyOf, useRuntimeTest, waitFor } from './runtime-helpers.js';

const { env, group, crs, startRuntime, onCleanup } = useRuntimeTest({
  prefix: 'cmc',
  kind: 'Settings',
  plural: 'settings',
});
const platform = `cmc-src-${randomBytes(3).toString('hex')}`;
let core: CoreV1Api;

const readCopy = async (
  name: string,
): Promise<{ data?: Record<string, string>; binaryData?: Record<string, string> } | undefined> => {
  try {
    return await core.readNamespacedConfigMap({ namespace: env.namespace, name });
  } catch {
    return undefined;
  }
};
const reasonOf = async (name: string): Promise<string | undefined> => {
  const cr = await crs.get(env.namespace, name);
  return cr == null ? undefined : readyOf(cr)?.reason;
};

beforeAll(async () => {
  core = env.kubeConfig.makeApiClient(CoreV1Api);
  onCleanup(await createNamespace(env.kubeConfig, platform));
  await core.createNamespacedConfigMap({
    namespace: platform,
    body: { metadata: { name: 'base' }, data: { level: 'info', region: 'eu' }, binaryData: { logo: 'AAEC' } },
  });
  await core.createNamespacedConfigMap({
    namespace: platform,
    body: { metadata: { name: 'shared' }, data: { flag: 'from-the-source' } },
  });
  await startRuntime({
    katalog: katalogFrom(`apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: cmcopy}
spec:
  crds:
    settings:
      apiTypes: {group: ${group}, version: v1, kind: Settings, plural: settings}
      resync: 1h
      operatorBox:
        onReconcile:
          configMaps:
            - name: "{{ metadata.name }}-literal"
              when: [{field: spec.mode, equals: literal}]
              copyFrom: {name: base, namespace: ${platform}}
              data: {level: debug}
            - name: "{{ metadata.name }}-chosen"
              when: [{field: spec.mode, equals: chosen}]
              copyFrom: {name: "{{ spec.source }}", namespace: "{{ spec.from }}"}
`),
  });
});

describe('a ConfigMap copied from a literal source', () => {
  it('copies data and binaryData under the declared keys, and follows the source when it changes', async () => {
    await crs.create(env.namespace, 'lit', { mode: 'literal' });
    await waitFor('lit-literal', async () => (await readCopy('lit-literal')) != null);
    const copy = await readCopy('lit-literal');
    expect(copy?.data).toEqual({ level: 'debug', region: 'eu' });
    expect(copy?.binaryData).toEqual({ logo: 'AAEC' });
    const base = await core.readNamespacedConfigMap({ namespace: platform, name: 'base' });
    base.data = { ...base.data, region: 'us' };
    await core.replaceNamespacedConfigMap({ namespace: platform, name: 'base', body: base });
    // resync is 1h: only the watch on the source (by name) can bring the change this fast.
    await waitFor(
      'the followed change',
      async () => (await readCopy('lit-literal'))?.data?.['region'] === 'us',
      20_000,
    );
  });
});

describe('a ConfigMap copied from a namespace the CR names', () => {
  it('waits with CopyNotGranted until the source grants the CR namespace, then copies', async () => {
    await crs.create(env.namespace, 'chooser', { mode: 'chosen', source: 'shared', from: platform });
    await waitFor('CopyNotGranted', async () => (await reasonOf('chooser')) === 'CopyNotGranted');
    const cr = await crs.get(env.namespace, 'chooser');
    expect(readyOf(cr ?? ({} as never))?.message).toContain(
      `annotate that ConfigMap ${OrkestraAnnotation.CopyTo}: "${env.namespace}"`,
    );
    expect(await readCopy('chooser-chosen')).toBeUndefined();
    const shared = await core.readNamespacedConfigMap({ namespace: platform, name: 'shared' });
    shared.metadata = {
      ...shared.metadata,
      annotations: { [OrkestraAnnotation.CopyTo]: `other,${env.namespace}` },
    };
    await core.replaceNamespacedConfigMap({ namespace: platform, name: 'shared', body: shared });
    await waitFor('chooser-chosen', async () => (await readCopy('chooser-chosen')) != null, 20_000);
    expect((await readCopy('chooser-chosen'))?.data).toEqual({ flag: 'from-the-source' });
  });
});

describe('a ConfigMap whose source does not exist', () => {
  it('waits with SourceConfigMapMissing, writing no copy, and copies once the source exists', async () => {
    // The CR's own namespace: no grant is needed, so the missing source is named as missing.
    await crs.create(env.namespace, 'early', { mode: 'chosen', source: 'later', from: env.namespace });
    await waitFor(
      'SourceConfigMapMissing',
      async () => (await reasonOf('early')) === 'SourceConfigMapMissing',
    );
    const cr = await crs.get(env.namespace, 'early');
    expect(readyOf(cr ?? ({} as never))?.message).toBe(
      `ConfigMap ${env.namespace}/early-chosen copies ConfigMap ${env.namespace}/later, which does not exist yet`,
    );
    expect(await readCopy('early-chosen')).toBeUndefined();
    await core.createNamespacedConfigMap({
      namespace: env.namespace,
      body: { metadata: { name: 'later' }, data: { ready: 'yes' } },
    });
    await waitFor('early-chosen', async () => (await readCopy('early-chosen')) != null, 20_000);
    expect((await readCopy('early-chosen'))?.data).toEqual({ ready: 'yes' });
  });
});

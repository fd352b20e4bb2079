import { describe, expect, it } from 'vitest';
import { NotFoundError } from '@orkestra/registry';
import type { KubeObject, ObjectRef } from '@orkestra/registry';
import { OrkestraAnnotation } from '@orkestra/types';
import type { DesiredChild, DesiredSet } from '../desired-set.js';
import { fillCopies } from './desired.js';

/** Secrets copied from a source the CR chose (docs/reference/katalog.md §7.2, ADR 0048). */

function source(annotations?: Record<string, string>): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'db', namespace: 'platform', ...(annotations == null ? {} : { annotations }) },
    data: { password: 'c2VjcmV0' },
  };
}

function desired(grantTo: readonly string[] | undefined): DesiredSet {
  const ref: ObjectRef = { apiVersion: 'v1', kind: 'Secret', namespace: 'team-a', name: 'db-copy' };
  const child = {
    entry: { katalogPath: 'app.operatorBox.onReconcile.secrets[0]' },
    ref,
    id: 'v1/Secret/team-a/db-copy',
    manifest: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db-copy', namespace: 'team-a' } },
    mode: 'apply',
    rendered: {},
    copyFrom: {
      namespace: 'platform',
      name: 'db',
      ...(grantTo == null ? {} : { grantTo }),
      withCopy: (from: KubeObject) => ({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'db-copy', namespace: 'team-a' },
        data: from['data'],
      }),
    },
  } as unknown as DesiredChild;
  return { groups: { onCreate: [], onReconcile: [child] }, blocked: [], ids: new Set([child.id]) };
}

function services(secret: KubeObject | undefined, allowed: readonly string[] = []) {
  return {
    client: {
      get: () =>
        secret == null
          ? Promise.reject(new NotFoundError({ status: 404, verb: 'get', message: 'not found' }))
          : Promise.resolve(secret),
    } as never,
    crd: { allowedSourceNamespaces: allowed },
  };
}

const copied = (result: unknown) =>
  (result as DesiredSet).groups.onReconcile[0]?.manifest['data'] as Record<string, string> | undefined;

describe('fillCopies: a source the CR chose', () => {
  it('is not copied without a grant: CopyNotGranted names the annotation and the Katalog key to add', async () => {
    const result = await fillCopies(services(source()), desired(['team-a']));
    expect(result).toMatchObject({ reason: 'CopyNotGranted' });
    expect((result as { message: string }).message).toContain(`${OrkestraAnnotation.CopyTo}: "team-a"`);
    expect((result as { message: string }).message).toContain('spec.allowedSourceNamespaces');
  });

  it('says the same when the source does not exist (nothing is told about Secrets the CR may not read)', async () => {
    const missing = await fillCopies(services(undefined), desired(['team-a']));
    const present = await fillCopies(services(source()), desired(['team-a']));
    expect(missing).toEqual(present);
  });

  it('is copied when the source lists the namespace, or the Katalog allows the source namespace', async () => {
    const granted = await fillCopies(
      services(source({ [OrkestraAnnotation.CopyTo]: 'team-b, team-a' })),
      desired(['team-a']),
    );
    expect(copied(granted)).toEqual({ password: 'c2VjcmV0' });
    const allowed = await fillCopies(services(source(), ['platform']), desired(['team-a']));
    expect(copied(allowed)).toEqual({ password: 'c2VjcmV0' });
  });

  it('needs every namespace of the grant (the CR’s and the copy’s own)', async () => {
    const partly = await fillCopies(
      services(source({ [OrkestraAnnotation.CopyTo]: 'team-a' })),
      desired(['team-a', 'shared']),
    );
    expect(partly).toMatchObject({ reason: 'CopyNotGranted' });
  });

  it('a source the Katalog names (no grantTo) is copied as before', async () => {
    expect(copied(await fillCopies(services(source()), desired(undefined)))).toEqual({
      password: 'c2VjcmV0',
    });
  });
});

/** The same copy for ConfigMaps (ADR 0115): the same grant, its own missing reason, binaryData kept. */
describe('fillCopies: a ConfigMap copy', () => {
  const map = (annotations?: Record<string, string>): KubeObject => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'base', namespace: 'platform', ...(annotations == null ? {} : { annotations }) },
    data: { level: 'info' },
    binaryData: { logo: 'iVBO' },
  });
  const reads: ObjectRef[] = [];
  const client = (object: KubeObject | undefined) => ({
    client: {
      get: (ref: ObjectRef) => {
        reads.push(ref);
        return object == null
          ? Promise.reject(new NotFoundError({ status: 404, verb: 'get', message: 'not found' }))
          : Promise.resolve(object);
      },
    } as never,
    crd: { allowedSourceNamespaces: [] as string[] },
  });
  const wanted = (grantTo?: readonly string[]): DesiredSet => {
    const ref: ObjectRef = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'team-a', name: 'app' };
    const child = {
      entry: { katalogPath: 'app.operatorBox.onReconcile.configMaps[0]' },
      ref,
      id: 'v1/ConfigMap/team-a/app',
      manifest: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'app', namespace: 'team-a' } },
      mode: 'apply',
      rendered: {},
      copyFrom: {
        namespace: 'platform',
        name: 'base',
        ...(grantTo == null ? {} : { grantTo }),
        withCopy: (from: KubeObject) => ({
          ...child.manifest,
          data: from['data'],
          binaryData: from['binaryData'],
        }),
      },
    } as unknown as DesiredChild & { manifest: KubeObject };
    return { groups: { onCreate: [], onReconcile: [child] }, blocked: [], ids: new Set([child.id]) };
  };

  it('reads the source as a ConfigMap and builds the copy from all of it', async () => {
    reads.length = 0;
    const result = (await fillCopies(client(map()), wanted())) as DesiredSet;
    expect(reads).toEqual([{ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'platform', name: 'base' }]);
    expect(result.groups.onReconcile[0]?.manifest).toMatchObject({
      data: { level: 'info' },
      binaryData: { logo: 'iVBO' },
    });
  });

  it('waits with SourceConfigMapMissing for a missing literal source', async () => {
    expect(await fillCopies(client(undefined), wanted())).toMatchObject({
      reason: 'SourceConfigMapMissing',
      message: 'ConfigMap team-a/app copies ConfigMap platform/base, which does not exist yet',
    });
  });

  it('a source the CR chose needs the grant: CopyNotGranted, the same for a missing source, copied once annotated', async () => {
    const refused = await fillCopies(client(map()), wanted(['team-a']));
    expect(refused).toMatchObject({ reason: 'CopyNotGranted' });
    expect((refused as { message: string }).message).toContain(
      `annotate that ConfigMap ${OrkestraAnnotation.CopyTo}: "team-a"`,
    );
    expect(await fillCopies(client(undefined), wanted(['team-a']))).toEqual(refused);
    const granted = (await fillCopies(
      client(map({ [OrkestraAnnotation.CopyTo]: 'team-a' })),
      wanted(['team-a']),
    )) as DesiredSet;
    expect(granted.groups.onReconcile[0]?.manifest['data']).toEqual({ level: 'info' });
  });
});

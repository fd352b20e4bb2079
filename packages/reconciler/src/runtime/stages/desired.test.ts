import { describe, expect, it } from 'vitest';
import { NotFoundError } from '@orkestra/registry';
import type { KubeObject, ObjectRef } from '@orkestra/registry';
import { OrkestraAnnotation } from '@orkestra/types';
import type { DesiredChild, DesiredSet } from '../desired-set.js';
import { fillCopies } from './desired.js';

/** Secrets and ConfigMaps copied from a source (docs/reference/katalog.md §7.2, ADR 0048 and 0115). */

type Kind = 'Secret' | 'ConfigMap';

/** source is the copy source of a kind in namespace platform (`db` or `base`), with its data. */
function source(kind: Kind, annotations?: Record<string, string>): KubeObject {
  const name = kind === 'Secret' ? 'db' : 'base';
  return {
    apiVersion: 'v1',
    kind,
    metadata: { name, namespace: 'platform', ...(annotations == null ? {} : { annotations }) },
    ...(kind === 'Secret'
      ? { data: { password: 'c2VjcmV0' } }
      : { data: { level: 'info' }, binaryData: { logo: 'iVBO' } }),
  };
}

/** desired is one copy in team-a of the source of `kind`, chosen by the CR when `grantTo` is set. */
function desired(kind: Kind, grantTo: readonly string[] | undefined): DesiredSet {
  const name = kind === 'Secret' ? 'db-copy' : 'app';
  const ref: ObjectRef = { apiVersion: 'v1', kind, namespace: 'team-a', name };
  const manifest = { apiVersion: 'v1', kind, metadata: { name, namespace: 'team-a' } };
  const child = {
    entry: { katalogPath: `app.operatorBox.onReconcile.${kind === 'Secret' ? 'secrets' : 'configMaps'}[0]` },
    ref,
    id: `v1/${kind}/team-a/${name}`,
    manifest,
    mode: 'apply',
    rendered: {},
    copyFrom: {
      namespace: 'platform',
      name: kind === 'Secret' ? 'db' : 'base',
      ...(grantTo == null ? {} : { grantTo }),
      withCopy: (from: KubeObject) => ({ ...manifest, data: from['data'], binaryData: from['binaryData'] }),
    },
  } as unknown as DesiredChild;
  return { groups: { onCreate: [], onReconcile: [child] }, blocked: [], ids: new Set([child.id]) };
}

/** services answers every GET with `object` (404 when undefined), recording the refs read. */
function services(object: KubeObject | undefined, allowed: readonly string[] = [], reads: ObjectRef[] = []) {
  return {
    client: {
      get: (ref: ObjectRef) => {
        reads.push(ref);
        return object == null
          ? Promise.reject(new NotFoundError({ status: 404, verb: 'get', message: 'not found' }))
          : Promise.resolve(object);
      },
    } as never,
    crd: { allowedSourceNamespaces: allowed },
  };
}

const copied = (result: unknown) => (result as DesiredSet).groups.onReconcile[0]?.manifest;

describe('fillCopies: a source the CR chose', () => {
  it('is not copied without a grant: CopyNotGranted names the annotation and the Katalog key to add', async () => {
    const result = await fillCopies(services(source('Secret')), desired('Secret', ['team-a']));
    expect(result).toMatchObject({ reason: 'CopyNotGranted' });
    expect((result as { message: string }).message).toContain(`${OrkestraAnnotation.CopyTo}: "team-a"`);
    expect((result as { message: string }).message).toContain('spec.allowedSourceNamespaces');
  });

  it('says the same when the source does not exist (nothing is told about Secrets the CR may not read)', async () => {
    const missing = await fillCopies(services(undefined), desired('Secret', ['team-a']));
    const present = await fillCopies(services(source('Secret')), desired('Secret', ['team-a']));
    expect(missing).toEqual(present);
  });

  it('is copied when the source lists the namespace, or the Katalog allows the source namespace', async () => {
    const granted = await fillCopies(
      services(source('Secret', { [OrkestraAnnotation.CopyTo]: 'team-b, team-a' })),
      desired('Secret', ['team-a']),
    );
    expect(copied(granted)?.['data']).toEqual({ password: 'c2VjcmV0' });
    const allowed = await fillCopies(services(source('Secret'), ['platform']), desired('Secret', ['team-a']));
    expect(copied(allowed)?.['data']).toEqual({ password: 'c2VjcmV0' });
  });

  it('needs every namespace of the grant (the CR’s and the copy’s own)', async () => {
    const partly = await fillCopies(
      services(source('Secret', { [OrkestraAnnotation.CopyTo]: 'team-a' })),
      desired('Secret', ['team-a', 'shared']),
    );
    expect(partly).toMatchObject({ reason: 'CopyNotGranted' });
  });

  it('a source the Katalog names (no grantTo) is copied as before', async () => {
    expect(
      copied(await fillCopies(services(source('Secret')), desired('Secret', undefined)))?.['data'],
    ).toEqual({
      password: 'c2VjcmV0',
    });
  });
});

/** The same copy for ConfigMaps (ADR 0115): the same grant, its own missing reason, binaryData kept. */
describe('fillCopies: a ConfigMap copy', () => {
  it('reads the source as a ConfigMap and builds the copy from all of it', async () => {
    const reads: ObjectRef[] = [];
    const result = await fillCopies(
      services(source('ConfigMap'), [], reads),
      desired('ConfigMap', undefined),
    );
    expect(reads).toEqual([{ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'platform', name: 'base' }]);
    expect(copied(result)).toMatchObject({ data: { level: 'info' }, binaryData: { logo: 'iVBO' } });
  });

  it('waits with SourceConfigMapMissing for a missing literal source', async () => {
    expect(await fillCopies(services(undefined), desired('ConfigMap', undefined))).toMatchObject({
      reason: 'SourceConfigMapMissing',
      message: 'ConfigMap team-a/app copies ConfigMap platform/base, which does not exist yet',
    });
  });

  it('a source the CR chose needs the grant: CopyNotGranted, the same for a missing source, copied once annotated', async () => {
    const refused = await fillCopies(services(source('ConfigMap')), desired('ConfigMap', ['team-a']));
    expect(refused).toMatchObject({ reason: 'CopyNotGranted' });
    expect((refused as { message: string }).message).toContain(
      `annotate that ConfigMap ${OrkestraAnnotation.CopyTo}: "team-a"`,
    );
    expect(await fillCopies(services(undefined), desired('ConfigMap', ['team-a']))).toEqual(refused);
    const granted = await fillCopies(
      services(source('ConfigMap', { [OrkestraAnnotation.CopyTo]: 'team-a' })),
      desired('ConfigMap', ['team-a']),
    );
    expect(copied(granted)?.['data']).toEqual({ level: 'info' });
  });
});

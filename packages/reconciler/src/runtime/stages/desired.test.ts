import { describe, expect, it } from 'vitest';
import { NotFoundError } from '@orkestra/registry';
import type { KubeObject, ObjectRef } from '@orkestra/registry';
import { OrkestraAnnotation } from '@orkestra/types';
import type { DesiredChild, DesiredSet } from '../desired-set.js';
import { copySecrets } from './desired.js';

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
      withCopy: (data: Readonly<Record<string, string>>) => ({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'db-copy', namespace: 'team-a' },
        data,
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

describe('copySecrets: a source the CR chose', () => {
  it('is not copied without a grant: CopyNotGranted names the annotation and the Katalog key to add', async () => {
    const result = await copySecrets(services(source()), desired(['team-a']));
    expect(result).toMatchObject({ reason: 'CopyNotGranted' });
    expect((result as { message: string }).message).toContain(`${OrkestraAnnotation.CopyTo}: "team-a"`);
    expect((result as { message: string }).message).toContain('spec.allowedSourceNamespaces');
  });

  it('says the same when the source does not exist (nothing is told about Secrets the CR may not read)', async () => {
    const missing = await copySecrets(services(undefined), desired(['team-a']));
    const present = await copySecrets(services(source()), desired(['team-a']));
    expect(missing).toEqual(present);
  });

  it('is copied when the source lists the namespace, or the Katalog allows the source namespace', async () => {
    const granted = await copySecrets(
      services(source({ [OrkestraAnnotation.CopyTo]: 'team-b, team-a' })),
      desired(['team-a']),
    );
    expect(copied(granted)).toEqual({ password: 'c2VjcmV0' });
    const allowed = await copySecrets(services(source(), ['platform']), desired(['team-a']));
    expect(copied(allowed)).toEqual({ password: 'c2VjcmV0' });
  });

  it('needs every namespace of the grant (the CR’s and the copy’s own)', async () => {
    const partly = await copySecrets(
      services(source({ [OrkestraAnnotation.CopyTo]: 'team-a' })),
      desired(['team-a', 'shared']),
    );
    expect(partly).toMatchObject({ reason: 'CopyNotGranted' });
  });

  it('a source the Katalog names (no grantTo) is copied as before', async () => {
    expect(copied(await copySecrets(services(source()), desired(undefined)))).toEqual({
      password: 'c2VjcmV0',
    });
  });
});

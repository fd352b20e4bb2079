import { NotFoundError } from '@orkestra/registry';
import type { KubeObject, ObjectRef } from '@orkestra/registry';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../clock.js';
import { KubeReadCache } from './kube-reader.js';

function fakeClient(objects: Record<string, KubeObject>) {
  const gets: string[] = [];
  return {
    gets,
    client: {
      get: (ref: ObjectRef): Promise<KubeObject> => {
        const key = `${ref.kind}/${ref.namespace ?? ''}/${ref.name}`;
        gets.push(key);
        const object = objects[key];
        return object == null
          ? Promise.reject(new NotFoundError({ status: 404, verb: 'get', ref, message: `${key} not found` }))
          : Promise.resolve(object);
      },
    },
  };
}

const secret: KubeObject = {
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'creds', namespace: 'shop' },
  data: { token: Buffer.from('s3cr3t').toString('base64') },
};
const configMap: KubeObject = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'words', namespace: 'shop' },
  data: { en: 'Howdy' },
};

describe('KubeReadCache', () => {
  it('decodes Secrets, returns ConfigMap data and keeps each object for the TTL', async () => {
    const fake = fakeClient({ 'Secret/shop/creds': secret, 'ConfigMap/shop/words': configMap });
    const clock = new ManualClock(0);
    const reads = new KubeReadCache({ client: fake.client, clock, ttlMs: 30_000 });
    const kube = reads.readerFor('shop');
    expect(new TextDecoder().decode((await kube.getSecret('shop', 'creds'))?.['token'])).toBe('s3cr3t');
    expect(await kube.getConfigMap('shop', 'words')).toEqual({ en: 'Howdy' });
    expect(await reads.secretValue('shop', 'creds', 'token')).toBe('s3cr3t');
    expect(await reads.configMapValue('shop', 'words', 'en')).toBe('Howdy');
    expect(await reads.configMapValue('shop', 'words', 'fr')).toBeUndefined();
    expect(fake.gets).toEqual(['Secret/shop/creds', 'ConfigMap/shop/words']);
    clock.advance(30_000);
    await kube.getConfigMap('shop', 'words');
    expect(fake.gets).toHaveLength(3);
  });

  it('returns undefined for a 404 and refuses other namespaces for a namespaced owner', async () => {
    const fake = fakeClient({});
    const reads = new KubeReadCache({ client: fake.client, clock: new ManualClock(0) });
    expect(await reads.readerFor('shop').getSecret('shop', 'missing')).toBeUndefined();
    await expect(reads.readerFor('shop').getConfigMap('other', 'x')).rejects.toThrow(/only namespace shop/);
    expect(await reads.readerFor(undefined).getConfigMap('other', 'x')).toBeUndefined();
    expect(fake.gets).toEqual(['Secret/shop/missing', 'ConfigMap/other/x']);
  });
});

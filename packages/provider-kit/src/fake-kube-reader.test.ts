import { describe, expect, it } from 'vitest';
import { createFakeKubeReader } from './fake-kube-reader.js';

describe('createFakeKubeReader', () => {
  it('serves seeded Secrets (strings encoded) and ConfigMaps, and records every read', async () => {
    const kube = createFakeKubeReader({
      secrets: { 'ns/db': { password: 'pw' } },
      configMaps: { 'ns/cfg': { a: '1' } },
    });
    const secret = await kube.getSecret('ns', 'db');
    expect(new TextDecoder().decode(secret?.['password'])).toBe('pw');
    expect(await kube.reader.getConfigMap('ns', 'cfg')).toEqual({ a: '1' });
    expect(await kube.getSecret('ns', 'missing')).toBeUndefined();
    expect(kube.reads).toEqual([
      { kind: 'Secret', namespace: 'ns', name: 'db', found: true },
      { kind: 'ConfigMap', namespace: 'ns', name: 'cfg', found: true },
      { kind: 'Secret', namespace: 'ns', name: 'missing', found: false },
    ]);
  });

  it('hands out copies, so mutating a result changes nothing', async () => {
    const kube = createFakeKubeReader({ secrets: { 'ns/db': { password: 'pw' } } });
    const first = await kube.getSecret('ns', 'db');
    first?.['password']?.fill(0);
    expect(new TextDecoder().decode((await kube.getSecret('ns', 'db'))?.['password'])).toBe('pw');
  });

  it('records attempts to use write-like members or to modify the reader', () => {
    const kube = createFakeKubeReader();
    const reader = kube.reader as unknown as Record<string, unknown>;
    expect(reader['createSecret']).toBeUndefined();
    expect(Reflect.set(reader, 'getSecret', () => undefined)).toBe(false);
    expect(kube.violations).toEqual(['createSecret', 'set getSecret']);
    kube.clearReads();
    expect(kube.violations).toEqual([]);
  });

  it('lets the test change and remove objects', async () => {
    const kube = createFakeKubeReader();
    kube.setSecret('ns', 's', { k: new Uint8Array([1, 2]) });
    expect(Array.from((await kube.getSecret('ns', 's'))?.['k'] ?? [])).toEqual([1, 2]);
    kube.setSecret('ns', 's', undefined);
    kube.setConfigMap('ns', 'c', { x: 'y' });
    expect(await kube.getSecret('ns', 's')).toBeUndefined();
    expect(await kube.getConfigMap('ns', 'c')).toEqual({ x: 'y' });
  });
});

import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assetVariable, defaultCacheRoot, findBinary } from './find-binary.js';
import { isTestenvError, TestenvErrorCode } from './testenv-error.js';
import type { TestenvVersions } from './versions.js';

const versions: TestenvVersions = {
  kubernetes: 'v1.34.4',
  etcd: 'v3.6.16',
  ferretdb: 'v1.24.2',
  moto: '5.2.5',
  verdaccio: '6.8.0',
  kwok: 'v0.7.0',
  prometheus: '2.42.0+ds-5+deb12u1',
  postgresql: '15',
  redis: '5:7.0.15-1~deb12u10',
  kafka: '3.9.1',
  mailpit: 'v1.33.1',
};

function executable(path: string): string {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, '#!/bin/sh\n');
  chmodSync(path, 0o755);
  return path;
}

describe('assetVariable', () => {
  it('upper-cases the name and turns runs of other characters into one underscore', () => {
    expect(assetVariable('etcd')).toBe('TEST_ASSET_ETCD');
    expect(assetVariable('kube-apiserver')).toBe('TEST_ASSET_KUBE_APISERVER');
    expect(assetVariable('kube-controller-manager')).toBe('TEST_ASSET_KUBE_CONTROLLER_MANAGER');
    expect(assetVariable('moto_server')).toBe('TEST_ASSET_MOTO_SERVER');
  });
});

describe('defaultCacheRoot', () => {
  it('honours XDG_CACHE_HOME', () => {
    expect(defaultCacheRoot({ XDG_CACHE_HOME: '/x' })).toBe('/x/orkestra/testenv');
  });
});

describe('findBinary', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'find-binary-'));
  });
  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
  });

  it('prefers TEST_ASSET_<NAME> over KUBEBUILDER_ASSETS and the cache', () => {
    const asset = executable(join(root, 'mine', 'etcd'));
    executable(join(root, 'kb', 'etcd'));
    executable(join(root, 'cache', 'etcd-v3.6.16', 'etcd'));
    const found = findBinary('etcd', {
      env: { TEST_ASSET_ETCD: asset, KUBEBUILDER_ASSETS: join(root, 'kb') },
      cacheRoot: join(root, 'cache'),
      versions,
    });
    expect(found).toEqual({ path: asset, source: 'TEST_ASSET_ETCD' });
  });

  it('uses KUBEBUILDER_ASSETS before the cache', () => {
    const kb = executable(join(root, 'kb', 'kube-apiserver'));
    executable(join(root, 'cache', 'kube-v1.34.4', 'kube-apiserver'));
    const found = findBinary('kube-apiserver', {
      env: { KUBEBUILDER_ASSETS: join(root, 'kb') },
      cacheRoot: join(root, 'cache'),
      versions,
    });
    expect(found).toEqual({ path: kb, source: 'KUBEBUILDER_ASSETS' });
  });

  it('finds each tool in the cache layout of build.sh at the pinned version', () => {
    const cache = join(root, 'cache');
    const options = { env: {}, cacheRoot: cache, versions };
    const paths = {
      etcd: executable(join(cache, 'etcd-v3.6.16', 'etcd')),
      apiserver: executable(join(cache, 'kube-v1.34.4', 'kube-apiserver')),
      kcm: executable(join(cache, 'kube-v1.34.4', 'kube-controller-manager')),
      ferretdb: executable(join(cache, 'ferretdb-v1.24.2', 'ferretdb')),
      moto: executable(join(cache, 'moto-5.2.5-py3.11', 'bin', 'moto_server')),
      verdaccio: executable(join(cache, 'verdaccio-6.8.0', 'node_modules', '.bin', 'verdaccio')),
    };
    expect(findBinary('etcd', options).path).toBe(paths.etcd);
    expect(findBinary('kube-apiserver', options).path).toBe(paths.apiserver);
    expect(findBinary('kube-controller-manager', options).path).toBe(paths.kcm);
    expect(findBinary('ferretdb', options).path).toBe(paths.ferretdb);
    expect(findBinary('moto_server', options)).toEqual({ path: paths.moto, source: 'cache' });
    expect(findBinary('verdaccio', options).path).toBe(paths.verdaccio);
  });

  it('ignores other versions in the cache and reports where it looked', () => {
    executable(join(root, 'cache', 'etcd-v3.5.0', 'etcd'));
    let caught: unknown;
    try {
      findBinary('etcd', {
        env: { TEST_ASSET_ETCD: join(root, 'missing') },
        cacheRoot: join(root, 'cache'),
        versions,
      });
    } catch (error) {
      caught = error;
    }
    expect(isTestenvError(caught, TestenvErrorCode.BinaryNotFound)).toBe(true);
    expect(String((caught as Error).message)).toContain('etcd-v3.6.16');
    expect(String((caught as Error).message)).toContain('TEST_ASSET_ETCD');
  });

  it('names the server and the command that builds it when it is missing', () => {
    expect(() => findBinary('moto_server', { env: {}, cacheRoot: join(root, 'empty'), versions })).toThrow(
      /^moto_server unavailable: build it with `pnpm testenv:build moto`/,
    );
    expect(() => findBinary('kube-apiserver', { env: {}, cacheRoot: join(root, 'empty'), versions })).toThrow(
      'pnpm testenv:build kube`',
    );
  });
});

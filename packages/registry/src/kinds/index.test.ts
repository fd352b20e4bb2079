import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RESOURCE_KINDS, RESOURCE_LIST_KEYS } from '@orkestra/types';
import { describe, expect, it } from 'vitest';
import { defineKind } from '../kind-module.js';
import { kindForObject, kinds } from './index.js';
import { modules } from './modules.js';

describe('kinds', () => {
  it('lists the kinds in the order of RESOURCE_KINDS', () => {
    expect(Object.keys(kinds)).toEqual([...RESOURCE_LIST_KEYS]);
  });

  it('collects every kind file of the folder (run `pnpm --filter @orkestra/registry generate-kinds` to update modules.ts)', () => {
    const defined = readdirSync(import.meta.dirname)
      .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
      .flatMap((file) => {
        const match = /^export const (\w+)(?: = defineKind\(|: KindModule = )/m.exec(
          readFileSync(join(import.meta.dirname, file), 'utf8'),
        );
        return match?.[1] == null ? [] : [match[1]];
      });
    expect(Object.keys(modules).sort()).toEqual(defined.sort());
  });

  it('takes apiVersion, kind, scope, wave and default-name suffix from RESOURCE_KINDS', () => {
    for (const info of RESOURCE_KINDS) {
      const module = kinds[info.listKey];
      expect(module.listKey, info.listKey).toBe(info.listKey);
      expect(module.apiVersion, info.listKey).toBe(info.apiVersion ?? undefined);
      expect(module.kind, info.listKey).toBe(info.kind ?? undefined);
      expect(module.namespaced, info.listKey).toBe(info.namespaced ?? undefined);
      expect(module.wave, info.listKey).toBe(info.wave);
      expect(module.defaultNameSuffix, info.listKey).toBe(info.defaultNameSuffix ?? undefined);
    }
  });

  it('defineKind rejects a repeated fact that differs from RESOURCE_KINDS', () => {
    const build = () => ({ body: {} });
    expect(() => defineKind({ listKey: 'services', wave: 4, build })).toThrow(/wave 4 differs/);
    expect(defineKind({ listKey: 'services', wave: 3, kind: 'Service', build }).wave).toBe(3);
  });

  it('defineKind needs every fact for a list key RESOURCE_KINDS does not have', () => {
    const build = () => ({ body: {} });
    expect(() => defineKind({ listKey: 'widgets', apiVersion: 'example.com/v1', build })).toThrow(
      /kind is required/,
    );
    const widgets = defineKind({
      listKey: 'widgets',
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      namespaced: true,
      wave: 6,
      build,
    });
    expect([widgets.kind, widgets.defaultNameSuffix]).toEqual(['Widget', undefined]);
  });

  it('answers what the pipeline asks about a kind from its module, found by object kind too', () => {
    expect(kindForObject({ apiVersion: 'batch/v1', kind: 'Job' })).toBe(kinds.jobs);
    expect(kindForObject({ apiVersion: 'v1', kind: 'Secret' })?.hiddenFields).toEqual(['data', 'stringData']);
    expect(kindForObject({ apiVersion: 'example.com/v1', kind: 'Job' })).toBeUndefined();
    const complete = { status: { conditions: [{ type: 'Complete', status: 'True' }] } };
    expect(kinds.jobs.finished?.({ apiVersion: 'batch/v1', kind: 'Job', metadata: {}, ...complete })).toBe(
      'complete',
    );
    expect(kinds.jobs.neverPruned).toBe(true);
    expect([kinds.secrets.createdOnce?.({ once: true }), kinds.secrets.createdOnce?.({})]).toEqual([
      true,
      false,
    ]);
    expect(kinds.namespaces.isNamespace).toBe(true);
    const roles = Object.values(kinds).flatMap((m) =>
      m.sibling == null ? [] : [`${m.listKey}:${m.sibling.role}`],
    );
    expect(roles).toEqual([
      'services:service',
      'deployments:workload',
      'statefulSets:workload',
      'hpa:scaler',
    ]);
    const service = kinds.services.sibling;
    expect(service?.role === 'service' && service.port({ ports: [{ port: '8080' }], port: 1 })).toBe(8080);
  });
});

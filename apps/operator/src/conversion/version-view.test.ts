import { describe, expect, it } from 'vitest';
import { ForbiddenError, NotFoundError } from '@orkestra/registry';
import type { KubeObject, ObjectRef } from '@orkestra/registry';
import { formatVersionView, readCrds, versionViews } from './version-view.js';
import { VERSIONED_KATALOG } from './fixture.test-support.js';
import { loadKatalogOrThrow } from '@orkestra/types';

const katalog = loadKatalogOrThrow({ text: VERSIONED_KATALOG, file: 'versioned.yaml' });
const NAME = 'databases.demo.example.io';

/** crd is a live CRD with these versions (`name*` stored) and storedVersions. */
function crd(versions: string[], storedVersions: string[], name = NAME): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name },
    spec: {
      group: 'demo.example.io',
      versions: versions.map((v) => ({
        name: v.replace(/[*-]$/, ''),
        storage: v.endsWith('*'),
        served: !v.endsWith('-'),
      })),
    },
    status: { storedVersions },
  } as KubeObject;
}

const lineOf = (crds: KubeObject[]): string => {
  const [view] = versionViews(katalog, { crds, missing: 'not installed' });
  return formatVersionView(view!);
};

describe('CRD versions as ork diff and ork rollout status show them (runtime.md §21.1)', () => {
  it('prints the storage and served versions once when the live CRD has them', () => {
    const [view] = versionViews(katalog, { crds: [crd(['v1alpha1', 'v1*', 'v2'], ['v1'])], missing: '' });
    expect(view).toMatchObject({ changed: false, pendingMigration: [] });
    expect(formatVersionView(view!)).toBe(`CRD ${NAME}: storage v1; served v1alpha1, v1, v2`);
  });

  it('shows a version change before → after, and the migration it starts', () => {
    const [view] = versionViews(katalog, { crds: [crd(['v1alpha1*'], ['v1alpha1'])], missing: '' });
    expect(view).toMatchObject({ changed: true, pendingMigration: ['v1alpha1'] });
    expect(formatVersionView(view!)).toBe(
      `CRD ${NAME}: storage v1alpha1 → v1; served v1alpha1 → v1alpha1, v1, v2; stored at v1alpha1: migration to v1 pending`,
    );
  });

  it('shows a migration still pending when the versions are already the Katalog’s', () => {
    const [view] = versionViews(katalog, {
      crds: [crd(['v1alpha1', 'v1*', 'v2'], ['v1alpha1', 'v1'])],
      missing: '',
    });
    expect(view).toMatchObject({ changed: false, pendingMigration: ['v1alpha1'] });
    expect(formatVersionView(view!)).toMatch(/; stored at v1alpha1, v1: migration to v1 pending$/);
  });

  it('compares the served versions only: one served no more is a change, one not served is none', () => {
    expect(lineOf([crd(['v1alpha1', 'v1*', 'v2', 'v3-'], ['v1'])])).toBe(
      `CRD ${NAME}: storage v1; served v1alpha1, v1, v2`,
    );
    expect(lineOf([crd(['v0', 'v1alpha1', 'v1*', 'v2'], ['v1'])])).toBe(
      `CRD ${NAME}: storage v1; served v0, v1alpha1, v1, v2 → v1alpha1, v1, v2`,
    );
  });

  it('says why there is no live CRD: not installed, forbidden', async () => {
    expect(lineOf([crd(['v1*'], ['v1'], 'other.demo.example.io')])).toBe(
      `CRD ${NAME}: storage v1; served v1alpha1, v1, v2; not installed`,
    );
    const refused = (status: number) => (ref: ObjectRef) => {
      const Error = status === 403 ? ForbiddenError : NotFoundError;
      return Promise.reject(
        new Error({
          status,
          reason: status === 403 ? 'Forbidden' : 'NotFound',
          verb: 'get',
          ref,
          message: 'no',
        } as never),
      );
    };
    const forbidden = await readCrds({ get: refused(403) }, katalog);
    expect(forbidden).toEqual({ crds: [], missing: 'not installed', forbidden: [NAME] });
    expect(formatVersionView(versionViews(katalog, forbidden)[0]!)).toMatch(/; not readable \(forbidden\)$/);
    expect(await readCrds({ get: refused(404) }, katalog)).toEqual({
      crds: [],
      missing: 'not installed',
      forbidden: [],
    });
  });
});

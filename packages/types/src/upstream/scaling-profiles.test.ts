import { describe, expect, it } from 'vitest';
import { head, load } from './dialect-fixtures.test-support.js';

/**
 * Upstream's `autoscale.profile` and HPA `behavior.profile` (docs/reference/katalog.md §24), one
 * test per reason. Fixtures are written here from upstream's type definitions, not copied.
 */

const errorsOf = (text: string) => {
  const result = load(text);
  expect(result.ok).toBe(false);
  return result.ok ? [] : result.errors.map((e) => [e.line, e.column, e.path, e.message]);
};

const hpa = (behavior: string) => `${head()}      operatorBox:
        onCreate:
          hpa:
            - name: web
              minReplicas: 1
              maxReplicas: 4
              scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
              behavior:
${behavior}`;

describe('HPA behavior.profile', () => {
  it('an unknown profile is refused for upstream’s reason at the key', () => {
    expect(errorsOf(hpa('                profile: turbo\n'))).toEqual([
      [
        21,
        17,
        'spec.crds.website.operatorBox.onCreate.hpa[0].behavior.profile',
        'HPA web has unknown behavior.profile "turbo" (allowed upstream: web, api, latency-sensitive, batch, cost-optimized)',
      ],
    ]);
  });

  it('a profile beside scaleUp is refused for upstream’s reason', () => {
    const [error] = errorsOf(
      hpa('                profile: web\n                scaleUp: {stabilizationWindowSeconds: 0}\n'),
    );
    expect(error?.[3]).toBe(
      'HPA web declares both behavior.profile and explicit scaleUp; use one or the other, not both',
    );
  });

  it('a known profile is refused: Orkestra does not expand it', () => {
    const [error] = errorsOf(hpa('                profile: batch\n'));
    expect(error?.[3]).toMatch(/not expanded by Orkestra: write behavior.scaleUp and behavior.scaleDown/);
  });
});

describe('autoscale.profile', () => {
  it('mixed with manual fields is refused for upstream’s reason (G2, operatorBox.autoscale)', () => {
    expect(
      errorsOf(`${head()}      operatorBox:
        autoscale:
          profile: steady
          interval: 30s
`),
    ).toEqual([
      [
        15,
        11,
        'spec.crds.website.operatorBox.autoscale.profile',
        'autoscale.profile "steady" cannot be combined with manual autoscale fields (interval); use the profile or the fields, not both',
      ],
    ]);
  });

  it('an unknown profile alone is refused with upstream’s names (entry-level autoscale)', () => {
    const [error] = errorsOf(`${head()}      autoscale:
        profile: wild
`);
    expect(error?.[3]).toBe(
      'unknown autoscale profile "wild" (upstream\'s profiles: burst, steady, batch, latency-sensitive, cost-optimized)',
    );
  });
});

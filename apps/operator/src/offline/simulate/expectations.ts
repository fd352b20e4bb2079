/**
 * Checking a step's `expect` block against what the step did.
 */
import { normalizeChildRef } from './cluster-model.js';
import { ExpectKey } from './scenario.js';
import type { Expectation } from './scenario.js';
import type { CrReport, StepReport } from './simulator.js';
import { isMap } from '../../is-map.js';

/** ExpectationFailure is one expectation that did not hold: the dotted key, expected and actual values. */
export interface ExpectationFailure {
  readonly expectation: Expectation;
  /** e.g. `applies`, `status.phase`. */
  readonly key: string;
  readonly expected: unknown;
  readonly actual: unknown;
}

/**
 * checkExpectations returns the failed expectations of a step. Child lists (`applies`, `creates`,
 * `prunes`, `children`) compare as sets and accept `Kind/name` or `Kind/namespace/name`;
 * `deletionOrder` compares in order; `status` is a partial match (every given leaf equal, `null`
 * meaning absent); `ready` and `reason` compare the Ready condition, `synced` the Synced condition.
 * Rollouts (docs/reference/runtime.md §24): `rollout` is a partial match of the rollout, revisions named by their
 * Katalog file; `revisions` compares each named CR's `status.katalogRevision` (by file or
 * hash); `crs.<name>` checks children, status, ready, synced and reason of that CR.
 * `notifications` compares the step's team notifications in order (docs/reference/katalog.md
 * §15.4): a team name, or a partial match of one notification.
 */
export function checkExpectations(report: StepReport): ExpectationFailure[] {
  return check(report, report.step.expect, '');
}

function check(
  report: StepReport,
  expectations: readonly Expectation[],
  prefix: string,
): ExpectationFailure[] {
  const failures: ExpectationFailure[] = [];
  for (const expectation of expectations) {
    const fail = (key: string, expected: unknown, actual: unknown): void => {
      failures.push({ expectation, key: `${prefix}${key}`, expected, actual });
    };
    const { key, value } = expectation;
    switch (key) {
      case ExpectKey.Applies:
      case ExpectKey.Creates:
      case ExpectKey.Prunes:
      case ExpectKey.Children: {
        const actual = report[key];
        const expected = (value as string[]).map((r) => normalizeChildRef(r, report.crNamespace));
        const same =
          expected.length === actual.length &&
          [...expected].sort().join('\n') === [...actual].sort().join('\n');
        if (!same) fail(key, value, actual);
        break;
      }
      case ExpectKey.DeletionOrder: {
        const actual = report.deletionOrder ?? [];
        const expected = (value as string[]).map((line) =>
          line.replace(/(\S+\/\S+)/g, (ref) => normalizeChildRef(ref, report.crNamespace)),
        );
        if (expected.join('\n') !== actual.join('\n')) fail(key, value, report.deletionOrder ?? null);
        break;
      }
      case ExpectKey.Ready: {
        const expected = typeof value === 'boolean' ? (value ? 'True' : 'False') : value;
        if (report.ready?.status !== expected) fail(key, expected, report.ready?.status ?? null);
        break;
      }
      case ExpectKey.Synced: {
        const expected = typeof value === 'boolean' ? (value ? 'True' : 'False') : value;
        if (report.synced?.status !== expected) fail(key, expected, report.synced?.status ?? null);
        break;
      }
      case ExpectKey.Reason:
        if (report.ready?.reason !== value) fail(key, value, report.ready?.reason ?? null);
        break;
      case ExpectKey.Status:
        matchPartial(value, report.status, 'status', fail);
        break;
      case ExpectKey.Rollout:
        matchPartial(value, report.rollout, 'rollout', fail);
        break;
      case ExpectKey.Revisions:
        for (const [name, expected] of Object.entries(value as Record<string, string>)) {
          const cr = report.crs.find((c) => c.name === name);
          const actual = cr?.revision ?? null;
          const hash = cr?.status?.['katalogRevision'];
          if (actual !== expected && hash !== expected) fail(`revisions.${name}`, expected, actual);
        }
        break;
      case ExpectKey.Notifications: {
        const expected = value as readonly unknown[];
        const actual = report.notifications;
        if (expected.length !== actual.length) {
          fail(
            key,
            expected,
            actual.map((n) => ({ team: n.team, text: n.text })),
          );
          break;
        }
        expected.forEach((item, i) => {
          if (typeof item === 'string') {
            if (actual[i]?.team !== item) fail(`${key}.${i}.team`, item, actual[i]?.team ?? null);
          } else matchPartial(item, actual[i], `${key}.${i}`, fail);
        });
        break;
      }
      case ExpectKey.Crs:
        for (const [name, nested] of Object.entries(value as Record<string, Expectation[]>)) {
          const cr = report.crs.find((c) => c.name === name);
          if (cr == null) {
            fail(`crs.${name}`, 'a CR of this scenario', null);
            continue;
          }
          failures.push(...check(crView(report, cr), nested, `${prefix}crs.${name}.`));
        }
        break;
    }
  }
  return failures;
}

function matchPartial(
  expected: unknown,
  actual: unknown,
  path: string,
  fail: (key: string, expected: unknown, actual: unknown) => void,
): void {
  if (isMap(expected)) {
    if (!isMap(actual)) {
      fail(path, expected, actual ?? null);
      return;
    }
    for (const [key, value] of Object.entries(expected))
      matchPartial(value, actual[key], `${path}.${key}`, fail);
    return;
  }
  if (expected === null) {
    if (actual !== undefined && actual !== null) fail(path, null, actual);
    return;
  }
  if (JSON.stringify(expected) !== JSON.stringify(actual)) fail(path, expected, actual ?? null);
}

/** crView is a step report seen from another CR of the scenario, for its `crs.<name>` expectations. */
function crView(report: StepReport, cr: CrReport): StepReport {
  return {
    ...report,
    crNamespace: cr.crNamespace,
    children: cr.children,
    ready: cr.ready,
    synced: cr.synced,
    status: cr.status,
  };
}

/**
 * Checking a step's `expect` block against what the step did.
 */
import { normalizeChildRef } from './cluster-model.js';
import { ExpectKey } from './scenario.js';
import type { Expectation } from './scenario.js';
import type { StepReport } from './simulator.js';

type Json = Record<string, unknown>;

const isMap = (value: unknown): value is Json =>
  value != null && typeof value === 'object' && !Array.isArray(value);

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
 */
export function checkExpectations(report: StepReport): ExpectationFailure[] {
  const failures: ExpectationFailure[] = [];
  for (const expectation of report.step.expect) {
    const fail = (key: string, expected: unknown, actual: unknown): void => {
      failures.push({ expectation, key, expected, actual });
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

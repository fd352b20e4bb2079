/**
 * The conformance suite of module hooks and module reconcilers (docs/reference/katalog.md §14.5,
 * §15.3, ADR 0064): given an export made with `defineHook` or `defineReconciler` and sample inputs,
 * it runs the export as the operator would and checks the contract — it answers within the time
 * bound, its result is JSON with only the contract's keys, it does not change its input, and the
 * same input gives the same result. `checkModuleConformance` returns the failures (pure);
 * `describeModuleConformance` registers one vitest test per check and case.
 */
import { isDeepStrictEqual } from 'node:util';
import { RECONCILER_RESULT_KEYS, isDefinedHook, isDefinedReconciler, parseDuration } from '@orkestra/types';
import type { JsonObject, KubeReader } from '@orkestra/types';
import { describe, it } from 'vitest';
import { createSilentLogger } from './create-test-request.js';
import { createFakeKubeReader } from './fake-kube-reader.js';
import type { FakeKubeReaderContents } from './fake-kube-reader.js';

/** ModuleConformanceCr is a sample CR; everything but `spec` has a default. */
export interface ModuleConformanceCr {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: {
    readonly name?: string;
    readonly namespace?: string;
    readonly uid?: string;
    readonly generation?: number;
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
  };
  readonly spec: unknown;
  readonly status?: unknown;
}

/** ModuleConformanceCase is one sample input the export must handle. */
export interface ModuleConformanceCase {
  /** Label in test names. Default `case <n>`. */
  readonly title?: string;
  readonly cr: ModuleConformanceCr;
  /** The declaration's `args`. Default `{}`. */
  readonly args?: JsonObject;
  /** A hook's template context so far (`cross`, `external`, `hooks`, …). Default `{}`. */
  readonly context?: JsonObject;
  /** A reconciler's `prepared` (`cross`, `external`, `git`, `children` by kind and name). Default empty. */
  readonly prepared?: JsonObject;
}

/** ModuleConformanceOptions configures the suite. */
export interface ModuleConformanceOptions {
  /** The export under test: `defineHook(…)` or `defineReconciler(…)`. */
  readonly export: unknown;
  readonly cases: readonly ModuleConformanceCase[];
  /** The time bound of one run, in milliseconds. Default 1000. */
  readonly timeoutMs?: number;
  /** Secrets and ConfigMaps the fake reader serves (keys `namespace/name`). */
  readonly kube?: FakeKubeReaderContents;
  /** The CRD entry name the request carries. Default `conformance`. */
  readonly entry?: string;
}

/** ModuleConformanceCheckName names the properties checked. */
export const ModuleConformanceCheckName = {
  Contract: 'made with defineHook or defineReconciler',
  Runs: 'answers within the time bound without throwing',
  Shape: 'returns only the keys of the contract, each of its type',
  Serializable: 'returns JSON (no functions, classes, cycles, NaN or Infinity)',
  NoMutation: 'does not change its input',
  Deterministic: 'gives the same result for the same input',
  DeleteStep: 'onDelete returns nothing within the time bound, twice, without changing its input',
} as const;
export type ModuleConformanceCheckName =
  (typeof ModuleConformanceCheckName)[keyof typeof ModuleConformanceCheckName];

/** ModuleConformanceFailure is one property that does not hold for one case. */
export interface ModuleConformanceFailure {
  readonly check: ModuleConformanceCheckName;
  readonly case: string;
  readonly message: string;
}

type Kind = 'hook' | 'reconciler';
type RunOutcome = { ok: true; value: unknown } | { ok: false; message: string };

const HOOK_RESULT_KEYS: readonly string[] = ['outputs', 'requeueAfter'];

function fullCr(cr: ModuleConformanceCr): Record<string, unknown> {
  const meta = cr.metadata ?? {};
  return {
    apiVersion: cr.apiVersion ?? 'example.com/v1',
    kind: cr.kind ?? 'Example',
    metadata: {
      name: meta.name ?? 'sample',
      namespace: meta.namespace ?? 'default',
      uid: meta.uid ?? '00000000-0000-4000-8000-000000000001',
      generation: meta.generation ?? 1,
      labels: { ...meta.labels },
      annotations: { ...meta.annotations },
    },
    spec: cr.spec,
    status: cr.status ?? {},
  };
}

/** The input as the operator would hand it, minus the live parts: what must not change. */
function dataOf(kind: Kind, kase: ModuleConformanceCase): Record<string, unknown> {
  const cr = fullCr(kase.cr);
  const meta = cr['metadata'] as { name: string; namespace: string };
  const common = { cr, args: kase.args ?? {} };
  if (kind === 'hook') return structuredClone({ ...common, context: kase.context ?? {} });
  return structuredClone({
    ...common,
    key: `${meta.namespace}/${meta.name}`,
    prepared: { cross: {}, external: {}, git: {}, children: {}, ...kase.prepared },
  });
}

async function runOnce(
  run: (request: never) => unknown,
  data: Record<string, unknown>,
  options: ModuleConformanceOptions,
  kube: KubeReader,
): Promise<RunOutcome> {
  const timeoutMs = options.timeoutMs ?? 1000;
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<RunOutcome>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new Error(`timed out after ${timeoutMs} ms`));
      resolve({ ok: false, message: `no answer within ${timeoutMs} ms` });
    }, timeoutMs);
  });
  const request = {
    entry: options.entry ?? 'conformance',
    ...data,
    kube,
    logger: createSilentLogger(),
    signal: controller.signal,
  };
  const answer = (async (): Promise<RunOutcome> => {
    try {
      return { ok: true, value: await run(request as never) };
    } catch (error) {
      return { ok: false, message: `threw: ${error instanceof Error ? error.message : String(error)}` };
    }
  })();
  try {
    return await Promise.race([answer, bound]);
  } finally {
    clearTimeout(timer);
  }
}

/** jsonProblem names the first part of `value` that JSON cannot carry as it is. */
function jsonProblem(value: unknown, path: string, seen: Set<object>): string | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined;
  if (typeof value === 'number')
    return Number.isFinite(value) ? undefined : `${path} is ${String(value)}, not a JSON number`;
  if (typeof value !== 'object') return `${path} is a ${typeof value}, not JSON`;
  if (seen.has(value)) return `${path} refers back to itself (a cycle)`;
  const proto = Object.getPrototypeOf(value) as unknown;
  const isArray = Array.isArray(value);
  if (!isArray && proto !== Object.prototype && proto !== null)
    return `${path} is a ${(value as { constructor?: { name?: string } }).constructor?.name ?? 'class instance'}, not a plain object`;
  seen.add(value);
  try {
    for (const [key, child] of Object.entries(value)) {
      if (child === undefined && !isArray) continue;
      const problem = jsonProblem(child, isArray ? `${path}[${key}]` : `${path}.${key}`, seen);
      if (problem != null) return problem;
    }
  } finally {
    seen.delete(value);
  }
  return undefined;
}

function durationProblem(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number')
    return Number.isFinite(value) && value >= 0 ? undefined : 'a negative or non-finite number';
  if (typeof value !== 'string') return `a ${typeof value}`;
  try {
    parseDuration(value);
    return undefined;
  } catch {
    return `${JSON.stringify(value)}, not a duration`;
  }
}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return value != null && typeof value === 'object' && !Array.isArray(value);
}

/** shapeProblem checks the result's keys and their types against the contract. */
function shapeProblem(kind: Kind, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (!isPlainRecord(value))
    return `the result must be an object or nothing, got ${Array.isArray(value) ? 'an array' : typeof value}`;
  const allowed = kind === 'hook' ? HOOK_RESULT_KEYS : RECONCILER_RESULT_KEYS;
  const unknown = Object.keys(value).filter((key) => !allowed.includes(key));
  if (unknown.length > 0)
    return `unknown result key${unknown.length === 1 ? '' : 's'} ${unknown.join(', ')} (a ${kind} returns ${allowed.join(', ')})`;
  const duration = durationProblem(value['requeueAfter']);
  if (duration != null) return `requeueAfter is ${duration}`;
  if (kind === 'hook') {
    const outputs = value['outputs'];
    return outputs === undefined || isPlainRecord(outputs) ? undefined : 'outputs must be an object';
  }
  const status = value['status'];
  if (status !== undefined && !isPlainRecord(status)) return 'status must be an object';
  const resources = value['resources'];
  if (resources === undefined) return undefined;
  if (!Array.isArray(resources)) return 'resources must be a list';
  for (const [i, item] of resources.entries()) {
    if (!isPlainRecord(item)) return `resources[${i}] is not an object`;
    if (typeof item['type'] === 'string') continue;
    const meta = item['metadata'];
    if (
      typeof item['apiVersion'] !== 'string' ||
      typeof item['kind'] !== 'string' ||
      !isPlainRecord(meta) ||
      typeof meta['name'] !== 'string'
    )
      return `resources[${i}] is neither an intent (type, fields) nor an object (apiVersion, kind, metadata.name)`;
  }
  return undefined;
}

/** firstDifference names the first path where `after` differs from `before`. */
function firstDifference(before: unknown, after: unknown, path: string): string | undefined {
  if (isDeepStrictEqual(before, after)) return undefined;
  if (isPlainRecord(before) && isPlainRecord(after)) {
    for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
      const found = firstDifference(before[key], after[key], `${path}.${key}`);
      if (found != null) return found;
    }
  }
  return path;
}

/**
 * checkModuleConformance runs every check on every case and returns the failures (none when the
 * export conforms). Each case runs twice on fresh copies of its input.
 *
 * @example
 * const failures = await checkModuleConformance({ export: reconcile, cases: [{ cr: { spec: { title: 'a' } } }] });
 * expect(failures).toEqual([]);
 */
export async function checkModuleConformance(
  options: ModuleConformanceOptions,
): Promise<readonly ModuleConformanceFailure[]> {
  const exported = options.export;
  const kind: Kind | undefined = isDefinedHook(exported)
    ? 'hook'
    : isDefinedReconciler(exported)
      ? 'reconciler'
      : undefined;
  if (kind == null)
    return [
      {
        check: ModuleConformanceCheckName.Contract,
        case: '-',
        message: 'the export is not made with defineHook or defineReconciler (@orkestra/provider-kit)',
      },
    ];
  const run = (exported as { run: (request: never) => unknown }).run;
  const kube = createFakeKubeReader(options.kube ?? {});
  const failures: ModuleConformanceFailure[] = [];
  for (const [i, kase] of options.cases.entries()) {
    const title = kase.title ?? `case ${i + 1}`;
    const fail = (check: ModuleConformanceCheckName, message: string): void => {
      failures.push({ check, case: title, message });
    };
    const pristine = dataOf(kind, kase);
    const first = dataOf(kind, kase);
    const one = await runOnce(run, first, options, kube);
    const changed = firstDifference(pristine, first, 'request');
    if (changed != null) fail(ModuleConformanceCheckName.NoMutation, `${changed} was changed`);
    if (!one.ok) {
      fail(ModuleConformanceCheckName.Runs, one.message);
      continue;
    }
    const shape = shapeProblem(kind, one.value);
    if (shape != null) fail(ModuleConformanceCheckName.Shape, shape);
    // Nothing is a result the contract allows (`void`), not a value JSON must carry.
    const json = one.value === undefined ? undefined : jsonProblem(one.value, 'result', new Set());
    if (json != null) fail(ModuleConformanceCheckName.Serializable, json);
    const two = await runOnce(run, dataOf(kind, kase), options, kube);
    if (!two.ok) fail(ModuleConformanceCheckName.Deterministic, `the second run ${two.message}`);
    else {
      const differs = firstDifference(one.value, two.value, 'result');
      if (differs != null)
        fail(ModuleConformanceCheckName.Deterministic, `${differs} differs between two runs`);
    }
    const onDelete = (exported as { onDelete?: unknown }).onDelete;
    if (typeof onDelete === 'function') {
      const problem = await deleteStepProblem(
        kind,
        onDelete as (request: never) => unknown,
        kase,
        options,
        kube,
      );
      if (problem != null) fail(ModuleConformanceCheckName.DeleteStep, problem);
    }
  }
  return failures;
}

/**
 * deleteStepProblem runs a hook's or a reconciler's `onDelete` (ADR 0099, ADR 0109) twice on the
 * case, as the operator may (a restart before the finalizer goes calls it again): each call returns
 * nothing, in time, and leaves the request as it was. Its request is the run's without `context`
 * (a hook) or `prepared` (a reconciler).
 */
async function deleteStepProblem(
  kind: Kind,
  onDelete: (request: never) => unknown,
  kase: ModuleConformanceCase,
  options: ModuleConformanceOptions,
  kube: KubeReader,
): Promise<string | undefined> {
  for (const call of ['the first call', 'a second call']) {
    const { context: _context, prepared: _prepared, ...pristine } = dataOf(kind, kase);
    const data = structuredClone(pristine);
    const outcome = await runOnce(onDelete, data, options, kube);
    if (!outcome.ok) return `onDelete: ${call} ${outcome.message}`;
    if (outcome.value !== undefined) return `onDelete: ${call} returned a value; it returns nothing`;
    const changed = firstDifference(pristine, data, 'request');
    if (changed != null) return `onDelete: ${call} changed ${changed}`;
  }
  return undefined;
}

/**
 * describeModuleConformance registers the suite under vitest: one test per case, failing with
 * every property that does not hold.
 *
 * @example
 * import { describeModuleConformance } from '@orkestra/provider-kit/conformance';
 * import { reconcile } from './index.js';
 *
 * describeModuleConformance({ export: reconcile, cases: [{ cr: { spec: { title: 'Hello' } } }] });
 */
export function describeModuleConformance(options: ModuleConformanceOptions): void {
  describe('module conformance', () => {
    const cases = options.cases.length === 0 ? [{ cr: { spec: {} } }] : options.cases;
    for (const [i, kase] of cases.entries()) {
      const title = kase.title ?? `case ${i + 1}`;
      it(`${title}: ${Object.values(ModuleConformanceCheckName).slice(1).join('; ')}`, async () => {
        const failures = await checkModuleConformance({ ...options, cases: [{ ...kase, title }] });
        if (failures.length > 0) throw new Error(failures.map((f) => `${f.check}: ${f.message}`).join('\n'));
      });
    }
  });
}

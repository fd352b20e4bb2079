/**
 * Child readiness with kstatus semantics (sigs.k8s.io/cli-utils/pkg/kstatus): every child object
 * is `Current` (ready), `InProgress` (getting there), `Failed` (will not get there without a
 * change), `NotFound` (not created yet) or `Terminating` (being deleted). Pure: objects in, a
 * verdict out; no clock, no I/O.
 */
import type { KubeObject } from '../kube-object.js';
import { isMap } from '../is-map.js';

/** ReadinessState is a child's kstatus: `Current`, `InProgress`, `Failed`, `NotFound` or `Terminating`. */
export const ReadinessState = {
  /** The object is reconciled by its controller and ready (kstatus `Current`). */
  Current: 'Current',
  /** Its controller is still working towards the spec (kstatus `InProgress`). */
  InProgress: 'InProgress',
  /** Its controller gave up, e.g. a Deployment past its progress deadline or a failed Job. */
  Failed: 'Failed',
  /** The object does not exist (yet). */
  NotFound: 'NotFound',
  /** The object has a deletion timestamp. */
  Terminating: 'Terminating',
} as const;
/** ReadinessState is one of the kstatus states. */
export type ReadinessState = (typeof ReadinessState)[keyof typeof ReadinessState];

/** Readiness is the verdict on one child: its state and a short human-readable reason. */
export interface Readiness {
  readonly state: ReadinessState;
  /** Why, e.g. `1/2 replicas available`; '' when Current with nothing to say. */
  readonly message: string;
}

/** isReady tells whether a verdict counts as ready (only `Current` does). */
export function isReady(readiness: Pick<Readiness, 'state'>): boolean {
  return readiness.state === ReadinessState.Current;
}

/** KindReadiness computes the state of one kind's objects that exist and are not being deleted. */
export type KindReadiness = (object: KubeObject) => Readiness;

/** ObjectCondition is a `status.conditions[]` item as kstatus reads it. */
export interface ObjectCondition {
  readonly type: string;
  readonly status: string;
  readonly reason?: string;
  readonly message?: string;
}

/** current is the `Current` verdict with an optional message. */
export function current(message = ''): Readiness {
  return { state: ReadinessState.Current, message };
}

/** inProgress is an `InProgress` verdict. */
export function inProgress(message: string): Readiness {
  return { state: ReadinessState.InProgress, message };
}

/** failed is a `Failed` verdict. */
export function failed(message: string): Readiness {
  return { state: ReadinessState.Failed, message };
}

/** statusOf returns the object's `status` map ({} when absent or malformed). */
export function statusOf(object: KubeObject): Record<string, unknown> {
  const status = (object as Record<string, unknown>)['status'];
  return isMap(status) ? status : {};
}

/** specOf returns the object's `spec` map ({} when absent or malformed). */
export function specOf(object: KubeObject): Record<string, unknown> {
  const spec = (object as Record<string, unknown>)['spec'];
  return isMap(spec) ? spec : {};
}

/** intField reads an integer field of a map, or `fallback` when it is not a number. */
export function intField(map: Record<string, unknown>, key: string, fallback = 0): number {
  const value = map[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

/** conditionsOf returns the well-formed `status.conditions` of an object. */
function conditionsOf(object: KubeObject): ObjectCondition[] {
  const raw = statusOf(object)['conditions'];
  if (!Array.isArray(raw)) return [];
  const out: ObjectCondition[] = [];
  for (const c of raw as unknown[]) {
    if (!isMap(c) || typeof c['type'] !== 'string' || typeof c['status'] !== 'string') continue;
    out.push({
      type: c['type'],
      status: c['status'],
      ...(typeof c['reason'] === 'string' ? { reason: c['reason'] } : {}),
      ...(typeof c['message'] === 'string' ? { message: c['message'] } : {}),
    });
  }
  return out;
}

/** conditionOf returns the condition of the given type, if present. */
export function conditionOf(object: KubeObject, type: string): ObjectCondition | undefined {
  return conditionsOf(object).find((c) => c.type === type);
}

/**
 * staleGeneration returns an `InProgress` verdict when the controller has not yet observed the
 * object's latest spec (`status.observedGeneration < metadata.generation`), as kstatus does.
 * `requireObserved` (for built-in workloads, whose controllers always write it) also treats a
 * missing `observedGeneration` as not observed.
 */
export function staleGeneration(object: KubeObject, requireObserved: boolean): Readiness | undefined {
  const generation = object.metadata['generation'];
  const observed = statusOf(object)['observedGeneration'];
  if (typeof observed !== 'number') {
    return requireObserved && typeof generation === 'number'
      ? inProgress('not yet observed by its controller')
      : undefined;
  }
  if (typeof generation === 'number' && observed < generation)
    return inProgress(`observed generation ${observed} of ${generation}`);
  return undefined;
}

/**
 * genericReadiness is kstatus' rule for any kind without a specific one: a stale
 * observedGeneration is InProgress, `Stalled=True` Failed, `Reconciling=True` InProgress; custom
 * kinds with a `Ready` condition follow it (Ready=False or Unknown is InProgress with its
 * message). Everything else is Current: a ConfigMap is ready once it exists.
 */
export function genericReadiness(object: KubeObject): Readiness {
  const stale = staleGeneration(object, false);
  if (stale != null) return stale;
  const conditions = conditionsOf(object);
  const stalled = conditions.find((c) => c.type === 'Stalled' && c.status === 'True');
  if (stalled != null) return failed(describe('Stalled', stalled));
  const reconciling = conditions.find((c) => c.type === 'Reconciling' && c.status === 'True');
  if (reconciling != null) return inProgress(describe('Reconciling', reconciling));
  const ready = conditions.find((c) => c.type === 'Ready');
  if (ready != null && ready.status !== 'True') return inProgress(describe('not Ready', ready));
  return current();
}

/** describe joins a label with a condition's reason and message: `not Ready: Pending: waiting for db`. */
export function describe(label: string, condition: ObjectCondition): string {
  const parts = [condition.reason, condition.message].filter((p): p is string => p != null && p !== '');
  return parts.length === 0 ? label : `${label}: ${parts.join(': ')}`;
}

/**
 * Sorting the writes of a request delta into what the benchmark reports per one-field edit:
 * child writes, status writes, other writes to the CR, events and anything else.
 */
import { countRequests } from './api-requests.js';
import type { RequestCounts } from './api-requests.js';
import { CHILD_RESOURCES } from './workload.js';
import type { CrResource } from './workload.js';

/** WriteClasses counts writes by what they wrote to. */
export interface WriteClasses {
  /** The four child kinds. */
  readonly child: number;
  /** The CR's status subresource. */
  readonly status: number;
  /** The CR object itself (finalizers, labels, annotations), the benchmark's own edits left out. */
  readonly cr: number;
  /** Core and events.k8s.io Events. */
  readonly events: number;
  /** Anything else. */
  readonly other: number;
}

const EVENT_RESOURCES: ReadonlySet<string> = new Set(['/events', 'events.k8s.io/events']);

/**
 * classifyWrites sorts the writes of `delta` for CR type `resource`; `ownCrWrites` writes to the
 * CR object were the benchmark's and are not counted.
 */
export function classifyWrites(
  delta: RequestCounts,
  resource: CrResource,
  ownCrWrites: number,
): WriteClasses {
  const crResource = new Set([`${resource.group}/${resource.plural}`]);
  const writes = (filter: Parameters<typeof countRequests>[1] = {}): number =>
    countRequests(delta, { verbs: 'writes', ...filter });
  const child = writes({ resources: CHILD_RESOURCES });
  const status = writes({ resources: crResource, subresource: 'status' });
  const cr = writes({ resources: crResource, subresource: '' }) - ownCrWrites;
  const events = writes({ resources: EVENT_RESOURCES });
  const other = writes() - ownCrWrites - child - status - cr - events;
  return { child, status, cr, events, other };
}

/**
 * netOfBackground subtracts from `observed` (seen over `observedMs`) what `background` (seen over
 * `backgroundMs` with nothing happening) predicts for a window that long, never going below 0.
 * Resync writes that fall into the edit window are removed this way, so they are not charged to
 * the edits (they are reported as writes per no-op resync).
 */
export function netOfBackground(
  observed: WriteClasses,
  observedMs: number,
  background: WriteClasses,
  backgroundMs: number,
): WriteClasses {
  const scale = backgroundMs > 0 ? observedMs / backgroundMs : 0;
  const net = (key: keyof WriteClasses): number => Math.max(0, observed[key] - background[key] * scale);
  return {
    child: net('child'),
    status: net('status'),
    cr: net('cr'),
    events: net('events'),
    other: net('other'),
  };
}

/** perEdit divides every class by `edits` (or by any other count: CRs). */
export function perEdit(classes: WriteClasses, edits: number): WriteClasses {
  const d = (n: number): number => (edits > 0 ? n / edits : 0);
  return {
    child: d(classes.child),
    status: d(classes.status),
    cr: d(classes.cr),
    events: d(classes.events),
    other: d(classes.other),
  };
}

/** totalWrites adds up every class. */
export function totalWrites(classes: WriteClasses): number {
  return classes.child + classes.status + classes.cr + classes.events + classes.other;
}

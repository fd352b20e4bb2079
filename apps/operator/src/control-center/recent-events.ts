/**
 * RecentEvents keeps the last Events the runtime recorded per CR, in memory, so the Control Center
 * shows them without listing Events from the API server (docs/reference/runtime.md §23.3).
 */

/** RecentEvent is one Event as the Control Center shows it. */
export interface RecentEvent {
  readonly type: string;
  readonly reason: string;
  readonly message: string;
  /** RFC 3339. */
  readonly time: string;
}

/** RecentEventSubject names the CR an Event is about. */
export interface RecentEventSubject {
  readonly kind: string;
  readonly metadata: { readonly namespace?: string | undefined; readonly name?: string | undefined };
}

/** RecentEventsOptions configures RecentEvents. */
export interface RecentEventsOptions {
  /** Events kept per CR, newest last. Default 20. */
  readonly perObject?: number;
  /** Objects remembered, oldest forgotten first. Default 5 000. */
  readonly objects?: number;
  /** Source of time (epoch ms). Default Date.now. */
  readonly now?: () => number;
}

/** eventKey is `Kind/namespace/name` (`Kind//name` when cluster-scoped). */
function eventKey(kind: string, namespace: string | undefined, name: string): string {
  return `${kind}/${namespace ?? ''}/${name}`;
}

/**
 * RecentEvents is a bounded ring of Events by CR.
 *
 * @example
 * const events = new RecentEvents();
 * events.add(subject, 'Warning', 'ChildNotReady', 'Deployment web: 0/2 available');
 * events.list('Website', 'default', 'hello');
 */
export class RecentEvents {
  readonly #perObject: number;
  readonly #objects: number;
  readonly #now: () => number;
  readonly #byKey = new Map<string, RecentEvent[]>();
  readonly #listeners = new Set<(key: string) => void>();

  constructor(options: RecentEventsOptions = {}) {
    this.#perObject = options.perObject ?? 20;
    this.#objects = options.objects ?? 5_000;
    this.#now = options.now ?? Date.now;
  }

  /** add remembers one Event about `subject`. */
  add(subject: RecentEventSubject, type: string, reason: string, message: string): void {
    const key = eventKey(subject.kind, subject.metadata.namespace, subject.metadata.name ?? '');
    const list = this.#byKey.get(key) ?? [];
    this.#byKey.delete(key);
    list.push({ type, reason, message, time: new Date(this.#now()).toISOString() });
    if (list.length > this.#perObject) list.splice(0, list.length - this.#perObject);
    this.#byKey.set(key, list);
    if (this.#byKey.size > this.#objects) {
      const oldest = this.#byKey.keys().next().value;
      if (oldest != null) this.#byKey.delete(oldest);
    }
    for (const listener of this.#listeners) listener(key);
  }

  /** list returns the Events of one CR, newest first. */
  list(kind: string, namespace: string | undefined, name: string): RecentEvent[] {
    return [...(this.#byKey.get(eventKey(kind, namespace, name)) ?? [])].reverse();
  }

  /** subscribe calls `listener` with the key of every CR that gets an Event; returns the unsubscribe. */
  subscribe(listener: (key: string) => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }
}

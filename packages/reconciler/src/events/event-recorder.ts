/**
 * Kubernetes Events about CRs and children (docs/reference/runtime.md §12): core v1 Events, source component
 * `orkestra`, written in the background through a bounded buffer, with repeats suppressed.
 */
import { MANAGED_BY } from '@orkestra/types';
import type { Clock } from '../clock.js';
import { systemClock } from '../clock.js';
import { formatRfc3339 } from '../secrets/rotation.js';
import { MAX_MESSAGE_LENGTH, truncateMessage } from '../reason-message.js';
import { truncateRedacted } from '../redact-url.js';

/** EventType is the type of a core v1 Event. */
export const EventType = { Normal: 'Normal', Warning: 'Warning' } as const;
/** EventType is `Normal` or `Warning`. */
export type EventType = (typeof EventType)[keyof typeof EventType];

/** EVENT_SOURCE_COMPONENT is the `source.component` and `reportingComponent` of every Event the runtime writes. */
const EVENT_SOURCE_COMPONENT = MANAGED_BY;

/** EventSubject is the object an Event is about (a cached KubeObject fits). */
export interface EventSubject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {
    readonly name?: string | undefined;
    readonly namespace?: string | undefined;
    readonly uid?: string | undefined;
    readonly resourceVersion?: string | undefined;
  };
}

/** CoreEvent is the core v1 Event body the recorder hands to its writer. */
export interface CoreEvent {
  readonly apiVersion: 'v1';
  readonly kind: 'Event';
  /** `generateName` is `<object name>.`: the API server picks a unique name. */
  readonly metadata: { readonly generateName: string; readonly namespace: string };
  readonly involvedObject: {
    readonly apiVersion: string;
    readonly kind: string;
    readonly name: string;
    readonly namespace?: string;
    readonly uid?: string;
    readonly resourceVersion?: string;
  };
  readonly reason: string;
  readonly message: string;
  readonly type: EventType;
  readonly source: { readonly component: string; readonly host?: string };
  readonly reportingComponent: string;
  readonly reportingInstance?: string;
  /** RFC 3339, second precision. */
  readonly firstTimestamp: string;
  /** RFC 3339, second precision. */
  readonly lastTimestamp: string;
  readonly count: 1;
}

/** EventWriter creates an Event in a namespace; the recorder's only I/O. */
export interface EventWriter {
  create(namespace: string, event: CoreEvent): Promise<void>;
}

/** EventRecorderOptions configures an EventRecorder. */
export interface EventRecorderOptions {
  /** Where Events go. */
  readonly writer: EventWriter;
  /** Source of time for timestamps and the repeat window; `now()` is read as epoch milliseconds. Default systemClock. */
  readonly clock?: Clock | undefined;
  /** Most Events queued at once, including the one being written; more are dropped and counted. Default 1000. */
  readonly bufferSize?: number | undefined;
  /** The same object, reason and message is not recorded again within this window. Default 600 000 ms (10 min). */
  readonly repeatWindowMs?: number | undefined;
  /** `source.host` and `reportingInstance`, e.g. the pod name. Default none. */
  readonly host?: string | undefined;
  /** Called when a write fails; the Event is not retried. Default: ignore. */
  readonly onWriteError?: ((error: unknown, event: CoreEvent) => void) | undefined;
  /** Called for every Event accepted into the buffer (`orkestra_events_total`). Default: none. */
  readonly onRecorded?: ((subject: EventSubject, type: EventType, reason: string) => void) | undefined;
  /** Called for every Event dropped because the buffer was full (`orkestra_events_dropped_total`). Default: none. */
  readonly onDropped?: (() => void) | undefined;
}

/** EventRecorderStats counts what the recorder did since it was created. */
export interface EventRecorderStats {
  /** Events accepted into the buffer. */
  readonly recorded: number;
  /** Events written successfully. */
  readonly written: number;
  /** Events whose write failed. */
  readonly failed: number;
  /** Events dropped because the buffer was full. */
  readonly dropped: number;
  /** Events suppressed as repeats within the window. */
  readonly suppressed: number;
  /** Events waiting, including one being written. */
  readonly pending: number;
}

interface Flusher {
  readonly resolve: (drained: boolean) => void;
}

/**
 * EventRecorder writes core v1 Events about objects (docs/reference/runtime.md §12). `record` never waits and
 * never throws: the Event goes into a bounded buffer (1000 by default; overflow is dropped and
 * counted) that a single background loop writes in order through the injected writer. The same
 * object, reason and message is not recorded again within 10 minutes; a failed write is counted,
 * reported to `onWriteError`, and may be recorded again at once.
 *
 * @example
 * const events = new EventRecorder({ writer: { create: (ns, e) => api.createNamespacedEvent(ns, e) } });
 * events.record(cr, 'Normal', 'ReconcileSucceeded', 'Ready');
 * await events.flush(5_000); // at shutdown
 */
export class EventRecorder {
  readonly #writer: EventWriter;
  readonly #clock: Clock;
  readonly #bufferSize: number;
  readonly #repeatWindowMs: number;
  readonly #host: string | undefined;
  readonly #onWriteError: ((error: unknown, event: CoreEvent) => void) | undefined;
  readonly #onRecorded: ((subject: EventSubject, type: EventType, reason: string) => void) | undefined;
  readonly #onDropped: (() => void) | undefined;
  readonly #buffer: { readonly event: CoreEvent; readonly key: string }[] = [];
  /** Repeat key → time it was last recorded. */
  readonly #recent = new Map<string, number>();
  readonly #flushers = new Set<Flusher>();
  #writing = false;
  #recorded = 0;
  #written = 0;
  #failed = 0;
  #dropped = 0;
  #suppressed = 0;

  constructor(options: EventRecorderOptions) {
    this.#writer = options.writer;
    this.#clock = options.clock ?? systemClock;
    this.#bufferSize = options.bufferSize ?? 1000;
    this.#repeatWindowMs = options.repeatWindowMs ?? 600_000;
    this.#host = options.host;
    this.#onWriteError = options.onWriteError;
    this.#onRecorded = options.onRecorded;
    this.#onDropped = options.onDropped;
    if (!Number.isInteger(this.#bufferSize) || this.#bufferSize < 1) {
      throw new RangeError(`bufferSize must be a positive integer, got ${this.#bufferSize}`);
    }
  }

  /**
   * record queues an Event about `subject` and tells whether it was queued: false when it repeats
   * one recorded within the window or the buffer is full. Credentials in URLs are redacted and the message is cut to 1024 characters.
   */
  record(subject: EventSubject, type: EventType, reason: string, message: string): boolean {
    const now = this.#clock.now();
    // Credentials in URLs never reach an Event.
    const text = truncateRedacted(message, MAX_MESSAGE_LENGTH, truncateMessage);
    const key = repeatKey(subject, reason, text);
    const last = this.#recent.get(key);
    if (last != null && now - last < this.#repeatWindowMs) {
      this.#suppressed++;
      return false;
    }
    if (this.#buffer.length >= this.#bufferSize) {
      this.#dropped++;
      this.#onDropped?.();
      return false;
    }
    this.#forgetExpired(now);
    this.#recent.delete(key); // re-insert so the map stays in time order
    this.#recent.set(key, now);
    this.#buffer.push({ event: this.#build(subject, type, reason, text, now), key });
    this.#recorded++;
    this.#onRecorded?.(subject, type, reason);
    if (!this.#writing) {
      this.#writing = true;
      queueMicrotask(() => void this.#drain());
    }
    return true;
  }

  /** normal records a Normal Event (see `record`). */
  normal(subject: EventSubject, reason: string, message: string): boolean {
    return this.record(subject, EventType.Normal, reason, message);
  }

  /** warning records a Warning Event (see `record`). */
  warning(subject: EventSubject, reason: string, message: string): boolean {
    return this.record(subject, EventType.Warning, reason, message);
  }

  /**
   * flush resolves true once every queued Event has been written (or failed), or false when
   * `timeoutMs` passes first on the recorder's clock.
   */
  flush(timeoutMs: number): Promise<boolean> {
    if (!this.#writing && this.#buffer.length === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      // `timer` is read only after this executor returns: by the drain loop or the timer itself.
      const flusher: Flusher = {
        resolve: (drained) => {
          this.#clock.clearTimeout(timer);
          this.#flushers.delete(flusher);
          resolve(drained);
        },
      };
      this.#flushers.add(flusher);
      const timer = this.#clock.setTimeout(() => flusher.resolve(false), timeoutMs);
    });
  }

  /** stats returns the recorder's counters. */
  get stats(): EventRecorderStats {
    return {
      recorded: this.#recorded,
      written: this.#written,
      failed: this.#failed,
      dropped: this.#dropped,
      suppressed: this.#suppressed,
      pending: this.#buffer.length,
    };
  }

  async #drain(): Promise<void> {
    for (;;) {
      const next = this.#buffer[0];
      if (next == null) break;
      try {
        await this.#writer.create(next.event.metadata.namespace, next.event);
        this.#written++;
      } catch (error) {
        this.#failed++;
        // A failed Event may be recorded again by the next reconcile.
        this.#recent.delete(next.key);
        try {
          this.#onWriteError?.(error, next.event);
        } catch {
          // A failing error callback must not stop the loop.
        }
      }
      this.#buffer.shift();
    }
    this.#writing = false;
    for (const flusher of [...this.#flushers]) flusher.resolve(true);
  }

  #forgetExpired(now: number): void {
    // Entries are inserted in time order, so expired ones are at the front.
    for (const [key, at] of this.#recent) {
      if (now - at < this.#repeatWindowMs) break;
      this.#recent.delete(key);
    }
  }

  #build(subject: EventSubject, type: EventType, reason: string, message: string, now: number): CoreEvent {
    const name = subject.metadata.name ?? '';
    const namespace = subject.metadata.namespace ?? '';
    const timestamp = formatRfc3339(new Date(now));
    return {
      apiVersion: 'v1',
      kind: 'Event',
      // Events about cluster-scoped objects go to `default`, as client-go does.
      metadata: { generateName: `${name}.`, namespace: namespace === '' ? 'default' : namespace },
      involvedObject: {
        apiVersion: subject.apiVersion,
        kind: subject.kind,
        name,
        ...(namespace === '' ? {} : { namespace }),
        ...(subject.metadata.uid == null ? {} : { uid: subject.metadata.uid }),
        ...(subject.metadata.resourceVersion == null
          ? {}
          : { resourceVersion: subject.metadata.resourceVersion }),
      },
      reason,
      message,
      type,
      source: { component: EVENT_SOURCE_COMPONENT, ...(this.#host == null ? {} : { host: this.#host }) },
      reportingComponent: EVENT_SOURCE_COMPONENT,
      ...(this.#host == null ? {} : { reportingInstance: this.#host }),
      firstTimestamp: timestamp,
      lastTimestamp: timestamp,
      count: 1,
    };
  }
}

function repeatKey(subject: EventSubject, reason: string, message: string): string {
  const { uid, namespace, name } = subject.metadata;
  const object = uid ?? `${subject.apiVersion}/${subject.kind}/${namespace ?? ''}/${name ?? ''}`;
  return JSON.stringify([object, reason, message]);
}

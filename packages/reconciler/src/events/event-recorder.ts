/**
 * Kubernetes Events about CRs and children (docs/reference/runtime.md §12): core v1 Events, source component
 * `orkestra`, written in the background through a bounded buffer, repeats aggregated (ADR 0042).
 */
import { MANAGED_BY } from '@orkestra/types';
import type { Clock, TimerHandle } from '../clock.js';
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
  /** Occurrences folded into this Event so far (1 unless repeats arrived before it was written). */
  readonly count: number;
}

/** EventCountUpdate is what a repeat changes on an Event already written (ADR 0042). */
export interface EventCountUpdate {
  readonly count: number;
  /** RFC 3339, second precision. */
  readonly lastTimestamp: string;
}

/** EventWriter writes Events; the recorder's only I/O. */
export interface EventWriter {
  /** create creates an Event in a namespace and returns the name the API server gave it. */
  create(namespace: string, event: CoreEvent): Promise<string | undefined | void>;
  /**
   * update sets `count` and `lastTimestamp` of an Event created earlier (a JSON merge patch). Without
   * it, or when `create` returns no name, repeats are suppressed instead of counted.
   */
  update?(namespace: string, name: string, change: EventCountUpdate): Promise<void>;
}

/** EventRecorderOptions configures an EventRecorder. */
export interface EventRecorderOptions {
  /** Where Events go. */
  readonly writer: EventWriter;
  /** Source of time for timestamps, the repeat window and the rate limit; `now()` is read as epoch milliseconds. Default systemClock. */
  readonly clock?: Clock | undefined;
  /** Most writes queued at once, including the one being written; more are dropped and counted. Default 1000. */
  readonly bufferSize?: number | undefined;
  /**
   * An Event with the same object, type, reason and message as one recorded less than this long ago
   * raises that Event's `count` instead of creating another. Default 600 000 ms (10 min).
   */
  readonly repeatWindowMs?: number | undefined;
  /** Writes (creates and count updates) one object's Events may make at once: the token bucket's size. Default 25. */
  readonly burst?: number | undefined;
  /** One write token returns to an object's bucket every this many ms. Default 300 000 (5 min). */
  readonly refillMs?: number | undefined;
  /** `source.host` and `reportingInstance`, e.g. the pod name. Default none. */
  readonly host?: string | undefined;
  /** Called when a write fails; the Event is not retried. Default: ignore. */
  readonly onWriteError?: ((error: unknown, event: CoreEvent) => void) | undefined;
  /** Called for every new Event accepted into the buffer (`orkestra_events_total`). Default: none. */
  readonly onRecorded?: ((subject: EventSubject, type: EventType, reason: string) => void) | undefined;
  /** Called for every Event dropped because the buffer was full (`orkestra_events_dropped_total`). Default: none. */
  readonly onDropped?: (() => void) | undefined;
}

/** EventRecorderStats counts what the recorder did since it was created. */
export interface EventRecorderStats {
  /** New Events accepted into the buffer. */
  readonly recorded: number;
  /** Writes (creates and count updates) that succeeded. */
  readonly written: number;
  /** Writes that failed. */
  readonly failed: number;
  /** New Events dropped because the buffer was full. */
  readonly dropped: number;
  /** Repeats within the window: folded into an existing Event's count (or suppressed when the writer cannot update). */
  readonly suppressed: number;
  /** New Events dropped because their object's token bucket was empty. */
  readonly throttled: number;
  /** Writes waiting, including one being written. */
  readonly pending: number;
}

interface Flusher {
  readonly resolve: (drained: boolean) => void;
}

/** Series is one Event and the repeats folded into it. */
interface Series {
  readonly key: string;
  readonly bucket: string;
  readonly event: CoreEvent;
  /** Name the API server gave the Event; undefined until it is created. */
  name: string | undefined;
  count: number;
  lastAt: number;
  /** The count the API server has. */
  writtenCount: number;
  /** A write of this series is queued or waits for a token: repeats only raise `count`. */
  pending: boolean;
  timer: TimerHandle | undefined;
}

interface Write {
  readonly series: Series;
  readonly kind: 'create' | 'update';
}

interface Bucket {
  tokens: number;
  at: number;
}

/** Buckets and series kept at most; the oldest go first (client-go keeps 4096 too). */
const MAX_TRACKED = 4096;

/**
 * EventRecorder writes core v1 Events about objects (docs/reference/runtime.md §12, ADR 0042). `record`
 * never waits and never throws: the write goes into a bounded buffer (1000 by default; overflow is
 * dropped and counted) that a single background loop writes in order through the injected writer.
 *
 * Repeats are aggregated as client-go's EventCorrelator does: the same object, type, reason and
 * message within 10 minutes of its last occurrence raises the existing Event's `count` and
 * `lastTimestamp` (one merge patch) instead of creating an Event; repeats arriving while that
 * Event's write is queued or waiting only raise the count the write will carry. Each object has a
 * token bucket (25 writes, one more every 5 minutes): a new Event finding it empty is dropped and
 * counted (`throttled`), a repeat's count update waits for the next token. A failed write is
 * counted, reported to `onWriteError`, and forgets the Event, so the next occurrence creates one.
 *
 * @example
 * const events = new EventRecorder({ writer: createEventWriter(client) });
 * events.record(cr, 'Normal', 'ReconcileSucceeded', 'Ready');
 * await events.flush(5_000); // at shutdown
 */
export class EventRecorder {
  readonly #writer: EventWriter;
  readonly #clock: Clock;
  readonly #bufferSize: number;
  readonly #repeatWindowMs: number;
  readonly #burst: number;
  readonly #refillMs: number;
  readonly #host: string | undefined;
  readonly #onWriteError: ((error: unknown, event: CoreEvent) => void) | undefined;
  readonly #onRecorded: ((subject: EventSubject, type: EventType, reason: string) => void) | undefined;
  readonly #onDropped: (() => void) | undefined;
  readonly #buffer: Write[] = [];
  /** Repeat key → series, in order of last occurrence. */
  readonly #series = new Map<string, Series>();
  /** Object key → its token bucket, in order of last use. */
  readonly #buckets = new Map<string, Bucket>();
  readonly #flushers = new Set<Flusher>();
  #writing = false;
  #recorded = 0;
  #written = 0;
  #failed = 0;
  #dropped = 0;
  #suppressed = 0;
  #throttled = 0;

  constructor(options: EventRecorderOptions) {
    this.#writer = options.writer;
    this.#clock = options.clock ?? systemClock;
    this.#bufferSize = options.bufferSize ?? 1000;
    this.#repeatWindowMs = options.repeatWindowMs ?? 600_000;
    this.#burst = options.burst ?? 25;
    this.#refillMs = options.refillMs ?? 300_000;
    this.#host = options.host;
    this.#onWriteError = options.onWriteError;
    this.#onRecorded = options.onRecorded;
    this.#onDropped = options.onDropped;
    if (!Number.isInteger(this.#bufferSize) || this.#bufferSize < 1) {
      throw new RangeError(`bufferSize must be a positive integer, got ${this.#bufferSize}`);
    }
    if (!Number.isInteger(this.#burst) || this.#burst < 1) {
      throw new RangeError(`burst must be a positive integer, got ${this.#burst}`);
    }
    if (!(this.#refillMs > 0)) throw new RangeError(`refillMs must be positive, got ${this.#refillMs}`);
  }

  /**
   * record queues an Event about `subject` and tells whether it was accepted: true for a new Event
   * queued or a repeat folded into an existing one, false when the buffer is full, the object's
   * token bucket is empty, or a repeat cannot be counted (the writer has no `update`). Credentials
   * in URLs are redacted and the message is cut to 1024 characters.
   */
  record(subject: EventSubject, type: EventType, reason: string, message: string): boolean {
    const now = this.#clock.now();
    // Credentials in URLs never reach an Event.
    const text = truncateRedacted(message, MAX_MESSAGE_LENGTH, truncateMessage);
    const key = repeatKey(subject, type, reason, text);
    this.#forgetExpired(now);
    const series = this.#series.get(key);
    if (series != null) {
      // Within the window (expired series were just forgotten): a repeat.
      this.#suppressed++;
      // Without `update` (or a name from `create`) the Event cannot be counted: suppressed.
      if (this.#writer.update == null || (series.writtenCount > 0 && series.name == null)) return false;
      series.count++;
      series.lastAt = now;
      this.#touch(this.#series, key, series);
      if (!series.pending && series.name != null) this.#scheduleUpdate(series);
      return true;
    }
    if (this.#buffer.length >= this.#bufferSize) {
      this.#dropped++;
      this.#onDropped?.();
      return false;
    }
    const bucket = objectKey(subject);
    if (!this.#take(bucket, now)) {
      this.#throttled++;
      return false;
    }
    const created: Series = {
      key,
      bucket,
      event: this.#build(subject, type, reason, text, now),
      name: undefined,
      count: 1,
      lastAt: now,
      writtenCount: 0,
      pending: true,
      timer: undefined,
    };
    this.#touch(this.#series, key, created);
    this.#evict(this.#series, (s) => this.#forget(s));
    this.#push({ series: created, kind: 'create' });
    this.#recorded++;
    this.#onRecorded?.(subject, type, reason);
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
   * flush resolves true once every queued write has been made (or failed), or false when
   * `timeoutMs` passes first on the recorder's clock. Count updates waiting for a token are not
   * queued yet and are not waited for.
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
      throttled: this.#throttled,
      pending: this.#buffer.length,
    };
  }

  #push(write: Write): void {
    this.#buffer.push(write);
    if (!this.#writing) {
      this.#writing = true;
      queueMicrotask(() => void this.#drain());
    }
  }

  /** Queues a count update now when the object has a token, else when its next token returns. */
  #scheduleUpdate(series: Series): void {
    series.pending = true;
    const now = this.#clock.now();
    if (this.#take(series.bucket, now)) {
      this.#queueUpdate(series);
      return;
    }
    const wait = Math.ceil((1 - this.#bucket(series.bucket, now).tokens) * this.#refillMs);
    series.timer = this.#clock.setTimeout(() => {
      series.timer = undefined;
      if (this.#series.get(series.key) !== series) return; // forgotten meanwhile
      if (this.#take(series.bucket, this.#clock.now())) this.#queueUpdate(series);
      else this.#scheduleUpdate(series);
    }, wait);
  }

  #queueUpdate(series: Series): void {
    if (this.#buffer.length >= this.#bufferSize) {
      // The count stays raised: the next repeat carries it.
      series.pending = false;
      return;
    }
    this.#push({ series, kind: 'update' });
  }

  async #drain(): Promise<void> {
    for (;;) {
      const next = this.#buffer[0];
      if (next == null) break;
      const { series } = next;
      const count = series.count;
      const lastTimestamp = formatRfc3339(new Date(series.lastAt));
      series.pending = false;
      try {
        if (next.kind === 'create') {
          const name = await this.#writer.create(series.event.metadata.namespace, {
            ...series.event,
            count,
            lastTimestamp,
          });
          series.name = typeof name === 'string' && name !== '' ? name : undefined;
        } else if (series.name != null && this.#writer.update != null) {
          await this.#writer.update(series.event.metadata.namespace, series.name, { count, lastTimestamp });
        }
        series.writtenCount = count;
        this.#written++;
        // Repeats that arrived while this write was in flight.
        if (series.count > count && !series.pending && series.name != null && this.#current(series)) {
          this.#scheduleUpdate(series);
        }
      } catch (error) {
        this.#failed++;
        // A failed Event (or an Event gone, e.g. by its TTL) is created again by the next occurrence.
        if (this.#current(series)) this.#forget(series);
        try {
          this.#onWriteError?.(error, series.event);
        } catch {
          // A failing error callback must not stop the loop.
        }
      }
      this.#buffer.shift();
    }
    this.#writing = false;
    for (const flusher of [...this.#flushers]) flusher.resolve(true);
  }

  #current(series: Series): boolean {
    return this.#series.get(series.key) === series;
  }

  #forget(series: Series): void {
    if (series.timer != null) this.#clock.clearTimeout(series.timer);
    series.timer = undefined;
    if (this.#current(series)) this.#series.delete(series.key);
  }

  #forgetExpired(now: number): void {
    // Series are kept in order of last occurrence, so expired ones are at the front.
    for (const series of this.#series.values()) {
      if (now - series.lastAt < this.#repeatWindowMs) break;
      // A series whose count update waits for a token stays until that update is written.
      if (series.timer != null) break;
      this.#forget(series);
    }
  }

  /** Takes one write token from the object's bucket; false when it is empty. */
  #take(key: string, now: number): boolean {
    const bucket = this.#bucket(key, now);
    if (bucket.tokens < 1) return false;
    bucket.tokens--;
    return true;
  }

  /** The object's bucket, refilled up to `now` (one token per `refillMs`, at most `burst`). */
  #bucket(key: string, now: number): Bucket {
    const bucket = this.#buckets.get(key) ?? { tokens: this.#burst, at: now };
    bucket.tokens = Math.min(this.#burst, bucket.tokens + (now - bucket.at) / this.#refillMs);
    bucket.at = now;
    this.#touch(this.#buckets, key, bucket);
    this.#evict(this.#buckets, () => undefined);
    return bucket;
  }

  /** Moves `key` to the end of `map` (most recent). */
  #touch<V>(map: Map<string, V>, key: string, value: V): void {
    map.delete(key);
    map.set(key, value);
  }

  #evict<V>(map: Map<string, V>, onEvict: (value: V) => void): void {
    for (const [key, value] of map) {
      if (map.size <= MAX_TRACKED) break;
      map.delete(key);
      onEvict(value);
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

function objectKey(subject: EventSubject): string {
  const { uid, namespace, name } = subject.metadata;
  return uid ?? `${subject.apiVersion}/${subject.kind}/${namespace ?? ''}/${name ?? ''}`;
}

function repeatKey(subject: EventSubject, type: EventType, reason: string, message: string): string {
  return JSON.stringify([objectKey(subject), type, reason, message]);
}

/**
 * The runtime side of the Live API (docs/reference/runtime.md §18.6, ADR 0043): the Events this
 * process records, kept per CR for `/events`; each entry as the Live API sees it; the handler on the
 * cross-read port beside the object path; and Live API answers built in process for cross reads of
 * this operator's own kinds.
 */
import type { Lifecycle } from '@orkestra/types';
import type { Clock } from '../clock.js';
import type { EventRecorder } from '../events/event-recorder.js';
import type { CrossAuthorize, CrossHandler } from '../hooks/cross-handler.js';
import { createLiveApiHandler, liveAnswer } from '../hooks/live-api.js';
import type { LiveApiEntry, LiveEvent } from '../hooks/live-api.js';
import type { LiveKatalogDocuments } from '../hooks/live-api-katalog.js';
import type { MetricSamples } from '../hooks/live-api-query.js';
import type { HookServices } from '../hooks/hook-unit.js';
import type { RuntimeEntry } from './katalog-runtime.js';
import type { CrossTargetCache } from '../hooks/cross.js';
import { childReadiness } from '../readiness/child-readiness.js';
import { isReady } from '../readiness/readiness.js';
import type { ChildCaches } from './child-caches.js';

/** PeerView is an entry's cross-shard cache in a sharded runtime (shard-peers.ts); undefined otherwise. */
export type PeerView = (entry: string) => CrossTargetCache | undefined;

/** EVENTS_PER_CR and MAX_CRS bound the Events kept for `/events`. */
const EVENTS_PER_CR = 20;
const MAX_CRS = 10_000;

/** LiveEventLog answers which Events this process recorded about a CR. */
export type LiveEventLog = (
  apiVersion: string,
  kind: string,
  namespace: string | undefined,
  name: string,
) => readonly LiveEvent[];

/**
 * recordLiveEvents keeps the Events `events` records, per CR (the last 20, for the 10 000 CRs seen
 * most recently), by watching its one `record` path. No API read answers `/events`.
 */
export function recordLiveEvents(events: EventRecorder, clock: Clock): LiveEventLog {
  const log = new Map<string, LiveEvent[]>();
  const keyOf = (apiVersion: string, kind: string, namespace: string | undefined, name: string): string =>
    `${apiVersion}/${kind}/${namespace ?? ''}/${name}`;
  const record = events.record.bind(events);
  events.record = (subject, type, reason, message) => {
    const queued = record(subject, type, reason, message);
    const key = keyOf(
      subject.apiVersion,
      subject.kind,
      subject.metadata.namespace,
      subject.metadata.name ?? '',
    );
    const list = log.get(key) ?? [];
    const at = clock.now();
    const same = list.find((e) => e.type === type && e.reason === reason && e.message === message);
    const next =
      same == null
        ? { type, reason, message, firstSeen: at, lastSeen: at, count: 1 }
        : { ...same, lastSeen: at, count: same.count + 1 };
    log.delete(key);
    log.set(key, [...list.filter((e) => e !== same), next].slice(-EVENTS_PER_CR));
    if (log.size > MAX_CRS) log.delete(log.keys().next().value ?? '');
    return queued;
  };
  return (apiVersion, kind, namespace, name) => log.get(keyOf(apiVersion, kind, namespace, name)) ?? [];
}

/** LiveRuntimeState is what the Live API reads of the runtime besides the entries. */
export interface LiveRuntimeState {
  readonly leader: () => boolean;
  readonly started: () => boolean;
  /** Entries whose workers wait for their `dependsOn`. */
  readonly waiting: () => readonly string[];
  readonly events: LiveEventLog;
  readonly clock: Clock;
  /** When the runtime was created, epoch ms. */
  readonly startedAt: number;
  /** The child caches, for each child's readiness in a CR's `children` (ADR 0101). Default: none. */
  readonly children?: Pick<ChildCaches, 'get' | 'watches'>;
}

/** liveApiEntry is one runtime entry as the Live API sees it. */
function liveApiEntry(entry: RuntimeEntry, state: LiveRuntimeState, peers?: PeerView): LiveApiEntry {
  const crd = entry.controller.crd;
  // A sharded replica answers for every CR from its cross-shard cache (ADR 0058), else its own cache.
  const cache = (): CrossTargetCache => peers?.(entry.name) ?? entry.cache;
  return {
    name: entry.name,
    crossAccess: crd.entry.crossAccess,
    namespaced: crd.entry.namespaced,
    apiTypes: crd.apiTypes,
    resync: crd.entry.resync,
    ...(crd.entry.queue.degradeThreshold == null
      ? {}
      : { degradeThreshold: crd.entry.queue.degradeThreshold }),
    workersSource:
      entry.autoscaler != null && entry.dispatcher.stats().capacity !== crd.entry.workers
        ? 'autoscaler'
        : 'configured',
    health: () => {
      const stats = entry.controller.stats();
      const dispatcher = entry.dispatcher.stats();
      return {
        synced: stats.synced,
        workersStarted: stats.workersStarted,
        reconciles: stats.reconciles,
        successes: stats.successes,
        consecutiveFailures: stats.consecutiveFailures,
        lastSuccessAt: stats.lastSuccessAt,
        lastError: '',
        queueDepth: entry.queue.stats().depth,
        workers: dispatcher.capacity,
        activeWorkers: dispatcher.inFlight,
        unhealthyDependencies: state.started() && state.waiting().includes(entry.name),
      };
    },
    ...(entry.autoscaler == null
      ? {}
      : {
          autoscale: () => ({
            active: entry.autoscaler?.state.override != null,
            last: entry.autoscaler?.last ?? null,
          }),
        }),
    list: () => cache().list(),
    get: (namespace, name) => cache().getByName(namespace, name),
    events: (namespace, name) => state.events(crd.apiVersion, crd.apiTypes.kind, namespace, name),
    childReadiness: (child) => {
      const caches = state.children;
      if (caches == null || !caches.watches(child)) return undefined;
      const readiness = childReadiness(
        caches.get({
          apiVersion: child.apiVersion,
          kind: child.kind,
          name: child.name,
          ...(child.namespace == null ? {} : { namespace: child.namespace }),
        }),
      );
      return { ready: isReady(readiness), state: readiness.state, reason: readiness.message };
    },
  };
}

/** LiveHandlerOptions configures liveHandlerOf. */
export interface LiveHandlerOptions {
  readonly katalog: {
    readonly name: string;
    readonly version: string;
    readonly lifecycle?: Lifecycle | undefined;
  };
  readonly entries: ReadonlyMap<string, RuntimeEntry>;
  readonly state: LiveRuntimeState;
  readonly authorize: CrossAuthorize | undefined;
  /** The namespace the operator watches, when pinned to one. */
  readonly namespace: string | undefined;
  /** The cross-shard caches of a sharded runtime (ADR 0058). */
  readonly peers?: PeerView;
  /** The Katalog as written and as loaded (`/katalog/raw`, `/katalog/enriched`). */
  readonly documents?: LiveKatalogDocuments;
  /** The process's metrics, for `/api/v1/query` (ADR 0083). */
  readonly metrics?: MetricSamples | undefined;
}

/** liveHandlerOf serves the Live API after the object path of runtime.md §18.5 (`objects`). */
export function liveHandlerOf(objects: CrossHandler, o: LiveHandlerOptions): CrossHandler {
  const liveEntries = new Map(
    [...o.entries.values()].map((entry): [string, LiveApiEntry] => [
      entry.name,
      liveApiEntry(entry, o.state, o.peers),
    ]),
  );
  const live = createLiveApiHandler({
    katalog: {
      name: o.katalog.name,
      ...(o.katalog.version === '' ? {} : { version: o.katalog.version }),
      ...(o.katalog.lifecycle == null ? {} : { lifecycle: o.katalog.lifecycle }),
    },
    entries: () => liveEntries,
    isKonductor: o.state.leader,
    ready: o.state.started,
    authorize:
      o.authorize ??
      (() =>
        Promise.resolve({
          ok: false,
          status: 401,
          message: 'the Live API is not served without an authorizer',
        })),
    now: () => o.state.clock.now(),
    startedAt: o.state.startedAt,
    namespace: o.namespace,
    ...(o.documents == null ? {} : { documents: () => o.documents as LiveKatalogDocuments }),
    ...(o.metrics == null ? {} : { metrics: o.metrics }),
  });
  return async (request, response) => (await objects(request, response)) || live(request, response);
}

/** liveAnswerOf builds Live API answers in process for cross reads of this operator's own kinds. */
export function liveAnswerOf(
  entries: ReadonlyMap<string, RuntimeEntry>,
  state: () => LiveRuntimeState,
  peers?: PeerView,
): NonNullable<HookServices['liveAnswer']> {
  return (crd, protocol, namespace, name) => {
    const entry = entries.get(crd);
    if (entry == null) return undefined;
    const s = state();
    return liveAnswer(liveApiEntry(entry, s, peers), protocol, namespace, name, {
      isKonductor: s.leader(),
      now: () => s.clock.now(),
      startedAt: s.startedAt,
    });
  };
}

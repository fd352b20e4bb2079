/**
 * What re-queues a CR (docs/reference/runtime.md §4), wired from the hook table's `enqueueTable`
 * as controller-runtime's builder wires `For`/`Owns`/`Watches`: each source an entry lists is
 * connected once, here — its own changes (the entry's informer, in CrdController), its
 * children's, the CRs it reads across entries, new commits of the branch it checked out and the
 * end of the image build it waits for.
 */
import { OrkestraAnnotation } from '@orkestra/types';
import { CacheChangeType } from '../cache.js';
import type { CacheChange } from '../cache.js';
import type { Clock } from '../clock.js';
import type { CrossReaders } from '../hooks/cross.js';
import { GitPoller } from '../hooks/git.js';
import type { GitCheckouts, GitRefresh } from '../hooks/git.js';
import type { EnqueueSource } from '../hooks/hook-unit.js';
import { enqueueTable } from '../hooks/table.js';
import type { Logger } from '@orkestra/types';
import type { ChildCaches } from './child-caches.js';
import { routeChildChange } from './child-caches.js';
import { Priority } from '../work-queue.js';
import type { CompiledCrd } from './compile-katalog.js';
import type { CrdController } from './crd-controller.js';
import type { KatalogHooks } from './katalog-hooks.js';
import { parseReaderId } from './katalog-hooks.js';

/** WatchedEntry is what the wiring re-queues: an entry's controller and its primary cache. */
export interface WatchedEntry {
  readonly controller: Pick<CrdController, 'enqueueKey' | 'enqueueOwner'>;
  readonly cache: CrdController['cache'];
}

/** WatchesOptions are the parts the sources connect. */
export interface WatchesOptions {
  readonly crds: readonly CompiledCrd[];
  /** Filled after the wiring is made (controllers take `onPrimaryChange`); read at event time. */
  readonly entries: ReadonlyMap<string, WatchedEntry>;
  readonly children: ChildCaches;
  readonly katalogHooks: Pick<KatalogHooks, 'forget' | 'gitReadersOf'>;
  readonly crossReaders: Pick<CrossReaders, 'size' | 'readersOf' | 'childReadersOf'>;
  readonly gitCheckouts: () => Pick<GitCheckouts, 'refresh' | 'lastCommit'> | undefined;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly gitPollTickMs: number | undefined;
  /** Sharded runtimes: true for entries whose cross readers follow the cross-shard cache (`onPeerChange`), not the primary one (ADR 0058). */
  readonly hasPeerView?: (entry: string) => boolean;
}

/** Watches are the connected sources: the per-entry primary change handler, the build-end handler and the git poller. */
export interface Watches {
  /** The sources the entries list, in the order the table gives them. */
  readonly sources: readonly EnqueueSource[];
  /** onPrimaryChange(entry) handles a change of one of its CRs: forget a deleted CR's reads, re-queue its cross readers. */
  onPrimaryChange(entry: string): (change: CacheChange) => void;
  /** onPeerChange handles a change in an entry's cross-shard cache: re-queue its cross readers (ADR 0058). */
  onPeerChange(entry: string, change: CacheChange): void;
  /** Re-queues the readers (readerIds) that waited for an image build that ended. */
  enqueueReaders(ids: readonly string[]): void;
  /** The git poller; undefined when no entry polls. */
  readonly gitPoller: GitPoller | undefined;
}

/**
 * wireWatches connects every source the entries' enqueue tables list.
 *
 * @example
 * const watches = wireWatches({ crds, entries, children, katalogHooks, crossReaders, gitCheckouts, clock, logger, gitPollTickMs });
 * new CrdController({ ...options, onPrimaryChange: watches.onPrimaryChange(crd.name) });
 */
export function wireWatches(o: WatchesOptions): Watches {
  const { entries } = o;
  const enqueueReader = (id: string): void => {
    const { crd, key } = parseReaderId(id);
    entries.get(crd)?.controller.enqueueKey(key);
  };
  const sources = [...new Set(o.crds.flatMap((crd) => enqueueTable(crd.hooks)))];
  let crossReaders = false;
  let gitPoller: GitPoller | undefined;
  for (const source of sources) {
    switch (source) {
      case 'primary':
        // Each entry's informer (CrdController); deleted CRs are forgotten in onPrimaryChange.
        break;
      case 'children':
        // A child event enqueues its owner: crd label → entry, owner-uid label → primary UID index
        // → key; a readiness transition in the high lane (routeChildChange, docs/reference/runtime.md §5.3).
        o.children.subscribe((change) => {
          const route = routeChildChange(change, (object) => o.children.isOwnVersion(object));
          if (route == null) return;
          const owner = entries.get(route.crd);
          owner?.controller.enqueueOwner(route.ownerUid, route.isOwnWrite, route.priority);
          // The owner's cross readers that read its children readiness (ADR 0101) follow a child
          // that came, went or changed its readiness state, whether or not the owner's status
          // changes with it (ADR 0108).
          if (!crossReaders || o.crossReaders.size === 0 || owner == null) return;
          if (change.type !== CacheChangeType.Add && route.priority !== Priority.High) return;
          const key = owner.cache.keyOfUid(route.ownerUid);
          const object = key == null ? undefined : owner.cache.get(key);
          if (object == null) return;
          for (const reader of o.crossReaders.childReadersOf(route.crd, object)) enqueueReader(reader);
        });
        break;
      case 'cross-readers':
        crossReaders = true;
        break;
      case 'git':
        gitPoller = createGitPoller(o, entries);
        break;
      case 'docker':
        // The builder calls enqueueReaders when a build ends (hook-services.ts).
        break;
    }
  }
  return {
    sources,
    onPrimaryChange: (entry) => (change) => {
      if (change.type === CacheChangeType.Delete) o.katalogHooks.forget(entry, change.key);
      if (!crossReaders || o.crossReaders.size === 0 || o.hasPeerView?.(entry) === true) return;
      for (const reader of o.crossReaders.readersOf(entry, change.object, change.old)) enqueueReader(reader);
    },
    onPeerChange: (entry, change) => {
      if (!crossReaders || o.crossReaders.size === 0) return;
      for (const reader of o.crossReaders.readersOf(entry, change.object, change.old)) enqueueReader(reader);
    },
    enqueueReaders: (ids) => {
      for (const id of ids) enqueueReader(id);
    },
    gitPoller,
  };
}

/** createGitPoller polls the branches the entries check out; new commits re-queue the CRs whose last checkout they change. */
function createGitPoller(
  o: WatchesOptions,
  entries: ReadonlyMap<string, WatchedEntry>,
): GitPoller | undefined {
  const pollMs = o.crds.map((crd) => crd.hooks.git?.pollMs ?? 0).filter((ms) => ms > 0);
  if (pollMs.length === 0) return undefined;
  const enqueueGitReaders = async (refreshes: readonly GitRefresh[]): Promise<void> => {
    for (const refresh of refreshes) {
      for (const reader of o.katalogHooks.gitReadersOf(refresh)) {
        const commit = (await o.gitCheckouts()?.lastCommit(reader.repo, reader.branch, reader.path)) ?? '';
        const cr = entries.get(reader.crd)?.cache.get(reader.key);
        if (cr == null) continue;
        if (commit === '' || cr.metadata.annotations?.[OrkestraAnnotation.LastCommit] !== commit)
          entries.get(reader.crd)?.controller.enqueueKey(reader.key);
      }
    }
  };
  return new GitPoller({
    checkouts: { refresh: (r) => o.gitCheckouts()?.refresh(r) ?? Promise.resolve([]) },
    tickMs: o.gitPollTickMs ?? Math.max(1000, Math.min(15_000, ...pollMs)),
    clock: o.clock,
    onNewCommits: (refreshes) => void enqueueGitReaders(refreshes),
    onError: (refresh) =>
      o.logger.warn({ repo: refresh.repo, branch: refresh.branch, err: refresh.error }, 'git poll failed'),
  });
}

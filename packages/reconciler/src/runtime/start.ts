/**
 * Starting a runtime (docs/reference/runtime.md §2, §2.7): discovery of the custom child kinds'
 * scope, the informers and their first list, then — when leader — the workers in `dependsOn`
 * order (StartGate, with a background check every 5 s for the rest).
 */
import type { KubeClient } from '@orkestra/registry';
import { hasBuiltinKinds } from '@orkestra/types';
import type { Logger } from '@orkestra/types';
import type { Clock } from '../clock.js';
import type { GitPoller } from '../hooks/git.js';
import type { ChildCaches } from './child-caches.js';
import type { CompiledCrd } from './compile-katalog.js';
import type { CrdController } from './crd-controller.js';
import { StartGate } from './depends-on.js';
import type { WatchTriggers } from './watch-triggers.js';

/** StartedEntry is what the start sequence needs of one entry. */
export interface StartedEntry {
  readonly name: string;
  readonly controller: CrdController;
  readonly autoscaler: { start(): void } | undefined;
}

/** StarterOptions are the parts the start sequence starts. */
export interface StarterOptions {
  readonly crds: readonly CompiledCrd[];
  readonly entries: ReadonlyMap<string, StartedEntry>;
  readonly client: Pick<KubeClient, 'discover'>;
  readonly children: ChildCaches;
  /** `watch` items (waited for) and `copyFrom` sources (best effort, docs/reference/runtime.md §4.1: not waited for). */
  readonly watches: WatchTriggers;
  readonly copySources: WatchTriggers;
  /** The watched child kinds (`apiVersion/kind`), for the log. */
  readonly childKinds: readonly string[];
  readonly gitPoller: GitPoller | undefined;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly syncTimeoutMs: number;
  readonly leaderElected: boolean;
  /** Where discovery records a custom child kind's scope (by `apiVersion/kind`). */
  readonly scopes: Map<string, boolean>;
}

/** Starter runs the start sequence once; `startWorkers` may come before the informers synced (it waits for them). */
export interface Starter {
  start(): Promise<void>;
  startWorkers(): void;
  /** Whether `start` has finished its first sync. */
  readonly started: boolean;
  /** Whether this replica may run workers (upstream's `isKonductor`, runtime.md §18.6). */
  readonly leader: boolean;
  waitingEntries(): string[];
  stop(): void;
}

/** createStarter builds the start sequence of one runtime. */
export function createStarter(o: StarterOptions): Starter {
  let leader = o.leaderElected;
  let started = false;
  let gateStarted = false;
  const gate = new StartGate({
    entries: [...o.entries.values()].map((entry) => ({
      name: entry.name,
      dependsOn: entry.controller.crd.entry.dependsOn,
      stats: () => entry.controller.stats(),
      start: () => {
        entry.controller.startWorkers();
        entry.autoscaler?.start();
      },
    })),
    clock: o.clock,
    onStarted: (name) => o.logger.debug({ controller: name }, 'workers started'),
    onWaiting: (name, unmet) =>
      o.logger.debug({ controller: name, waitingFor: unmet }, 'workers wait for dependsOn'),
  });
  const startWorkers = (): void => {
    leader = true;
    if (!started || gateStarted) return;
    gateStarted = true;
    gate.start();
    o.gitPoller?.start();
  };
  return {
    get started() {
      return started;
    },
    get leader() {
      return leader;
    },
    async start() {
      if (started) return;
      for (const crd of o.crds) {
        for (const kind of crd.childKinds) {
          if (kind.apiVersion.includes('/') && !hasBuiltinKinds(kind.apiVersion)) {
            const info = await o.client.discover(kind);
            o.scopes.set(`${kind.apiVersion}/${kind.kind}`, info.namespaced);
          }
        }
      }
      await o.children.start();
      await o.watches.start();
      await o.copySources.start();
      for (const entry of o.entries.values()) entry.controller.startInformer();
      const signal = AbortSignal.timeout(o.syncTimeoutMs);
      await Promise.all([
        o.children.waitForSync(signal),
        o.watches.waitForSync(signal),
        ...[...o.entries.values()].map((e) => e.controller.waitForSync(signal)),
      ]);
      started = true;
      o.logger.info({ entries: [...o.entries.keys()], childKinds: o.childKinds }, 'informers synced');
      if (leader) startWorkers();
    },
    startWorkers,
    waitingEntries: () => (started && gateStarted ? gate.waiting() : [...o.entries.keys()]),
    stop: () => gate.stop(),
  };
}

/**
 * CRD self-healing (docs/reference/runtime.md §2.9, ADR 0055): the CRD of every entry is watched —
 * one watch per entry, `fieldSelector=metadata.name=<plural>.<group>`, so the RBAC rule can name
 * the Katalog's CRDs — and an entry whose CRD is deleted while the runtime runs is deactivated
 * (its primary informer suspended: no list or watch against a resource that does not exist, no
 * retry loop), then reactivated when the CRD is created again (a fresh list, then a watch). A CRD
 * re-created between two watch events (a new UID) restarts the entry's informer the same way.
 * While a CRD is only terminating, its entry stays active: the API server deletes its CRs, and
 * their finalizers must run. Upstream re-checks every 90 s; here the watch tells at once.
 */
import type { Clock } from '../clock.js';
import { CacheChangeType } from '../cache.js';
import type { CacheChange } from '../cache.js';
import type { EventRecorder, EventSubject } from '../events/event-recorder.js';
import { Informer } from '../informer.js';
import type { ListWatchClient } from '../list-watch-client.js';
import type { Logger } from '@orkestra/types';

/** CRD_RESOURCE is the CustomResourceDefinition resource. */
const CRD_RESOURCE = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  plural: 'customresourcedefinitions',
  kind: 'CustomResourceDefinition',
  namespaced: false,
} as const;

/** PresenceTarget is an entry whose CRD is watched. */
export interface PresenceTarget {
  /** The entry's name (for logs). */
  readonly name: string;
  /** `<plural>.<group>`, the CRD's name. */
  readonly crdName: string;
  /** The CRD is gone: stop listing and watching the entry's CRs. */
  deactivate(): void;
  /** The CRD is back (or was re-created): list and watch the entry's CRs again. */
  reactivate(): void;
}

/** CrdPresenceOptions configures a CrdPresence. */
export interface CrdPresenceOptions {
  readonly listWatch: ListWatchClient;
  readonly targets: readonly PresenceTarget[];
  readonly clock: Clock;
  readonly logger: Logger;
  readonly events: Pick<EventRecorder, 'warning' | 'normal'>;
  readonly random?: (() => number) | undefined;
  /** Called when an entry is deactivated or reactivated (`orkestra_crd_active`). Default: none. */
  readonly onChange?: ((entry: string, active: boolean) => void) | undefined;
}

/** CrdPresence watches the CRDs of a runtime's entries and deactivates or reactivates each entry. */
export class CrdPresence {
  readonly #o: CrdPresenceOptions;
  readonly #informers: Informer[] = [];
  /** Entry name → whether it is deactivated. */
  readonly #inactive = new Set<string>();

  constructor(options: CrdPresenceOptions) {
    this.#o = options;
  }

  /** start opens one watch per entry's CRD. */
  start(): void {
    if (this.#informers.length > 0) return;
    for (const target of this.#o.targets) {
      const informer = new Informer({
        client: this.#o.listWatch,
        resource: CRD_RESOURCE,
        fieldSelector: `metadata.name=${target.crdName}`,
        clock: this.#o.clock,
        ...(this.#o.random == null ? {} : { random: this.#o.random }),
        logger: {
          warn: (fields, message) => this.#o.logger.warn({ ...fields, controller: target.name }, message),
        },
      });
      informer.subscribe((change) => {
        // The first list only records what is there: an entry starts as it finds its CRD.
        if (informer.hasSynced()) this.#changed(target, change);
      });
      this.#informers.push(informer);
      informer.start();
    }
  }

  /** inactive lists the entries deactivated because their CRD is gone. */
  inactive(): string[] {
    return [...this.#inactive];
  }

  async stop(): Promise<void> {
    await Promise.all(this.#informers.splice(0).map((informer) => informer.stop()));
  }

  #changed(target: PresenceTarget, change: CacheChange): void {
    const crd = change.object;
    if (change.type === CacheChangeType.Delete) {
      this.#deactivate(target, crd);
      return;
    }
    if (change.type === CacheChangeType.Update && change.old?.metadata.uid !== crd.metadata.uid) {
      // Re-created between two events: the old CRs are gone; start over from a fresh list.
      this.#deactivate(target, change.old ?? crd);
      this.#reactivate(target, crd);
      return;
    }
    if (change.type === CacheChangeType.Add) this.#reactivate(target, crd);
  }

  #deactivate(target: PresenceTarget, crd: EventSubject): void {
    if (this.#inactive.has(target.name)) return;
    this.#inactive.add(target.name);
    target.deactivate();
    this.#o.onChange?.(target.name, false);
    this.#o.logger.warn(
      { controller: target.name, crd: target.crdName },
      'CRD deleted; entry deactivated until it is created again',
    );
    this.#o.events.warning(
      crd,
      'EntryDeactivated',
      `CRD ${target.crdName} was deleted; entry ${target.name} stopped watching its CRs until the CRD is created again`,
    );
  }

  #reactivate(target: PresenceTarget, crd: EventSubject): void {
    if (!this.#inactive.delete(target.name)) return;
    target.reactivate();
    this.#o.onChange?.(target.name, true);
    this.#o.logger.info(
      { controller: target.name, crd: target.crdName },
      'CRD created again; entry reactivated',
    );
    this.#o.events.normal(
      crd,
      'EntryReactivated',
      `CRD ${target.crdName} exists again; entry ${target.name} lists and watches its CRs again`,
    );
  }
}

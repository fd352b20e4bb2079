import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createKatalogRuntime } from '@orkestra/reconciler';
import type { KatalogRuntime } from '@orkestra/reconciler';
import { createScriptedProviders, mergePatch } from '@orkestra/reconciler/offline';
import type { OfflineResults } from '@orkestra/reconciler/offline';
import { NotFoundError, createKubeClient } from '@orkestra/registry';
import type { KubeClient, KubeObject, ObjectRef } from '@orkestra/registry';
import { createNamespace } from '@orkestra/testenv';
import { useControlPlane } from '@orkestra/testenv/vitest';
import { loadKatalog } from '@orkestra/types';
import type { Katalog, Logger } from '@orkestra/types';
import { afterAll, describe, expect, it } from 'vitest';
import { installCrds } from '../src/process/install-crds.js';
import { parseScenario } from '../src/offline/simulate/scenario.js';
import type { ContextPatch, ScenarioStep } from '../src/offline/simulate/scenario.js';
import { Simulator } from '../src/offline/simulate/simulator.js';
import type { StepReport } from '../src/offline/simulate/simulator.js';
import { REPO_ROOT } from './run-ork.js';

// Parity of the one engine's two drivers: every example's scenario runs offline (`ork simulate`'s
// Simulator over @orkestra/reconciler/offline) and, step by step, against the real control plane
// with the real runtime (informers, workqueue, the same pipeline, the same scripted providers).
// After each step both must agree on the child writes (kind and operation), the children, the
// CR's status (timestamps aside) and, for the delete step, the deletion path. The examples' API
// groups and namespaces are made unique, identically on both sides, so files can share the
// control plane.
//
// gated, rollback and retries cover the entry's gates, rollback and RetriesExhausted (katalog.md
// §20.1, §20.3, §20.4): their failures are terminal or the last attempt, never retried on their own,
// so each `context: {}` step's re-queue is the next attempt on both sides. Timed re-queues and retry
// delays (katalog.md §20.1, §20.2) run on the wall clock live and are notes offline (simulator tests and the
// scenarios' notes), so they are not compared here.
// Not covered here: health-gate (its external call would need an HTTP server that the address
// guard allows) and cronjob (its cleanup Job must finish, and no Job controller runs here).

const env = useControlPlane();
const PARITY_EXAMPLES = (
  process.env['PARITY_ONLY'] ??
  'website,multi-region,database-credentials,storage-providers,gated,rollback,retries'
).split(',');
const NOW = '2026-01-01T00:00:00Z';

type Json = Record<string, unknown>;
const isMap = (value: unknown): value is Json =>
  value != null && typeof value === 'object' && !Array.isArray(value);

const silent: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => silent,
};

const stops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const stop of stops.reverse()) await stop();
});

/** exampleKatalog loads an example with its API group made unique. */
function exampleKatalog(
  example: string,
  suffix: string,
): { katalog: Katalog; group: string; unique: string } {
  const text = readFileSync(join(REPO_ROOT, 'examples', example, 'katalog.yaml'), 'utf8');
  const group = /group: ([a-z.]+)/.exec(text)?.[1] ?? '';
  const unique = `p${suffix}.${group}`;
  const loaded = loadKatalog({ text: text.replaceAll(`group: ${group}`, `group: ${unique}`) });
  if (!loaded.ok) throw new Error(loaded.errors.map((e) => e.message).join('\n'));
  return { katalog: loaded.katalog, group, unique };
}

/** localized rewrites a scenario step's CR to the unique group and the test's namespace. */
function localized(step: ScenarioStep, group: string, unique: string, namespace: string): ScenarioStep {
  if (step.apply == null) return step;
  const cr = step.apply.cr;
  return {
    ...step,
    apply: {
      ...step.apply,
      cr: {
        ...cr,
        apiVersion: cr.apiVersion.replace(group, unique),
        metadata: { ...cr.metadata, namespace },
      },
    },
  };
}

/** Results mirrors the simulator's context handling (names kept until changed, null removes). */
function applyContext(results: Json, patch: ContextPatch): void {
  const named = (key: string, items: Readonly<Record<string, Json | null>> | null | undefined): void => {
    const target = (results[key] ??= {}) as Json;
    for (const [name, value] of Object.entries(items ?? {})) {
      if (value == null) delete target[name];
      else target[name] = structuredClone(value);
    }
  };
  if ('cross' in patch) named('cross', patch.cross);
  if ('external' in patch) named('external', patch.external);
  if ('git' in patch) results['git'] = patch.git ?? undefined;
  if ('docker' in patch) results['docker'] = patch.docker ?? undefined;
  for (const [provider, declarations] of Object.entries(patch.providers ?? {})) {
    const providers = (results['providers'] ??= {}) as Json;
    const before = (providers[provider] ?? {}) as Json;
    providers[provider] = before;
    for (const [name, value] of Object.entries(declarations)) {
      if (value == null) delete before[name];
      else before[name] = structuredClone(value);
    }
  }
}

/** comparable drops what differs by clock only: transition and success times. */
function comparable(status: unknown): unknown {
  if (Array.isArray(status)) return status.map(comparable);
  if (!isMap(status)) return status;
  const out: Json = {};
  for (const [key, value] of Object.entries(status)) {
    // Timestamps: the live runtime uses the wall clock, the offline run --now (`since`: docs/reference/runtime.md §7 readiness).
    if (key === 'lastTransitionTime' || key === 'lastSuccessTime' || key === 'since') continue;
    out[key] = comparable(value);
  }
  return out;
}

/** offlineWrites is a step report's child writes as `operation Kind`, sorted. */
function offlineWrites(report: StepReport): string[] {
  const kind = (ref: string): string => ref.split('/')[0] ?? '';
  return [
    ...report.creates.map((r) => `create ${kind(r)}`),
    ...report.applies.map((r) => `apply ${kind(r)}`),
    ...report.prunes.map((r) => `prune ${kind(r)}`),
  ].sort();
}

async function read(client: KubeClient, ref: ObjectRef): Promise<KubeObject | undefined> {
  try {
    return await client.get(ref);
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
}

/**
 * settle waits until the runtime has seen the CR as it is live and holds no work for it, twice in
 * a row with the same live resource version (a status write re-queues the CR once).
 */
async function settle(runtime: KatalogRuntime, client: KubeClient, ref: ObjectRef): Promise<void> {
  const until = Date.now() + 60_000;
  let stableAt: string | undefined;
  for (;;) {
    const live = await read(client, ref);
    const entry = [...runtime.entries.values()][0];
    const cached = entry?.cache.getByName(ref.namespace, ref.name);
    const queue = entry?.queue.stats();
    const idle =
      queue != null &&
      queue.depth === 0 &&
      queue.processing === 0 &&
      queue.dirty === 0 &&
      entry?.dispatcher.stats().inFlight === 0;
    const seen =
      live == null ? cached == null : cached?.metadata.resourceVersion === live.metadata.resourceVersion;
    if (idle && seen) {
      const version = live?.metadata.resourceVersion ?? 'gone';
      if (stableAt === version) return;
      stableAt = version;
    } else stableAt = undefined;
    if (Date.now() > until)
      throw new Error(
        `the runtime did not settle on ${ref.kind} ${ref.name}: ${JSON.stringify({
          live: live?.metadata,
          cached: cached?.metadata.resourceVersion,
          queue,
          inFlight: entry?.dispatcher.stats().inFlight,
        })}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.each(PARITY_EXAMPLES)('offline and runtime parity: examples/%s', (example) => {
  it('agrees on child writes, children, status and the deletion path at every step', async () => {
    const suffix = randomBytes(3).toString('hex');
    const { katalog, group, unique } = exampleKatalog(example, suffix);
    const namespace = `parity-${example}-${suffix}`.slice(0, 60);
    stops.push(await createNamespace(env.kubeConfig, namespace));
    await installCrds(createKubeClient({ kubeConfig: env.kubeConfig }), katalog);
    const scenarioFile = join(REPO_ROOT, 'examples', example, 'scenario.yaml');
    const scenario = parseScenario(readFileSync(scenarioFile, 'utf8'), {
      file: scenarioFile,
      baseDir: dirname(scenarioFile),
      // Scripted answers are checked against each call's protocol result shape, as `ork simulate` does.
      katalog,
    });
    const steps = scenario.steps.map((s) => localized(s, group, unique, namespace));

    const simulator = new Simulator({ katalog, now: new Date(NOW) });
    const results: Json = {};
    let writes: string[] = [];
    const providerCalls: string[] = [];
    const runtime = createKatalogRuntime({
      katalog,
      kubeConfig: env.kubeConfig,
      logger: silent,
      providers: createScriptedProviders({
        names: Object.values(katalog.spec.crds).flatMap((e) => Object.keys(e.operatorBox.providers)),
        results: () => results as OfflineResults,
        onCall: (verb, provider, declaration) => {
          if (verb === 'delete') providerCalls.push(`provider-delete ${provider}/${declaration}`);
        },
      }),
      observer: {
        childWrite: (_controller, kind, operation) => writes.push(`${operation} ${kind}`),
      },
      options: { namespace, resyncMs: 0 },
    });
    await runtime.start();
    stops.push(() => runtime.stop({ timeoutMs: 10_000 }));
    const client = createKubeClient({ kubeConfig: env.kubeConfig });
    let crRef: ObjectRef | undefined;

    for (const step of steps) {
      const where = `${example} step ${step.number} (${step.name})`;
      const report = await simulator.run(step);
      if (step.context != null) applyContext(results, step.context);
      writes = [];
      if (step.apply != null) {
        const cr = step.apply.cr;
        crRef = { apiVersion: cr.apiVersion, kind: cr.kind, name: cr.metadata.name, namespace };
        const live = await read(client, crRef);
        if (live == null) await client.create(cr as unknown as KubeObject);
        else await client.mergePatch(crRef, { spec: cr['spec'] ?? {} });
      } else if (step.update != null && crRef != null) {
        await client.mergePatch(crRef, step.update);
      } else if (step.observe != null && crRef != null) {
        const owner = await read(client, crRef);
        for (const change of step.observe) {
          const [kind, name] = change.ref.split('/');
          const ref = childRef(owner, kind ?? '', name ?? '');
          if (change.patch == null) {
            await client.delete(ref);
            continue;
          }
          const { status, ...rest } = change.patch;
          if (Object.keys(rest).length > 0) await client.mergePatch(ref, rest);
          if (status != null) {
            const current = await client.get(ref);
            await client.patchStatus(ref, mergePatch(current['status'] ?? {}, status) as Json);
          }
        }
      } else if (step.delete === true && crRef != null) {
        const before = await read(client, crRef);
        const uid = before?.metadata.uid ?? '';
        const childrenBefore = ownedChildren(runtime, uid);
        providerCalls.length = 0;
        await client.delete(crRef);
        await settle(runtime, client, crRef);
        const deletionOrder = report.deletionOrder ?? [];
        // Explicit deletes and provider calls happen in the runtime's order; garbage collection is
        // asynchronous on a real cluster, so what it removes compares as a set.
        expect(providerCalls, `${where}: provider calls`).toEqual(
          deletionOrder.filter((line) => line.startsWith('provider-delete ')),
        );
        expect(writes.filter((w) => w.startsWith('delete ')).sort(), `${where}: deletes`).toEqual(
          deletionOrder
            .filter((line) => line.startsWith('delete '))
            .map((line) => `delete ${line.slice('delete '.length).split('/')[0] ?? ''}`)
            .sort(),
        );
        // ADR 0010: the finalizer deletes the inventory's children itself and goes last.
        if (deletionOrder.length > 0)
          expect(deletionOrder.at(-1), `${where}: last step`).toBe('finalizer-removed');
        const collected = deletionOrder
          .filter((line) => line.startsWith('garbage-collected '))
          .map((line) => line.slice('garbage-collected '.length))
          .sort();
        expect(
          childrenBefore.filter((c) => collected.includes(c)).sort(),
          `${where}: garbage collected`,
        ).toEqual(collected);
        // Garbage collection takes the rest: wait for the children to leave the caches.
        const until = Date.now() + 60_000;
        while (ownedChildren(runtime, uid).length > 0) {
          if (Date.now() > until)
            throw new Error(
              `${where}: children left after deletion: ${ownedChildren(runtime, uid).join(', ')}`,
            );
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        crRef = undefined;
        continue;
      }
      if (crRef == null) continue;
      // A step that only changes hook or provider results has no Kubernetes event: the runtime
      // sees new results on its next re-queue, which the offline run takes at once. Enqueue it.
      if (step.context != null)
        [...runtime.entries.values()][0]?.controller.enqueueKey(`${namespace}/${crRef.name}`);
      await settle(runtime, client, crRef);
      const live = await read(client, crRef);
      expect(writes.sort(), `${where}: child writes`).toEqual(offlineWrites(report));
      expect(comparable(live?.['status']), `${where}: status`).toEqual(comparable(report.status));
      expect(live?.metadata['generation'], `${where}: generation`).toBe(report.generation);
    }
  }, 300_000);
});

/** childRef finds the child `Kind/name` in the CR's inventory. */
function childRef(owner: KubeObject | undefined, kind: string, name: string): ObjectRef {
  const inventory =
    (
      owner?.['status'] as
        { inventory?: { apiVersion: string; kind: string; name: string; namespace?: string }[] } | undefined
    )?.inventory ?? [];
  const item = inventory.find((i) => i.kind === kind && i.name === name);
  if (item == null) throw new Error(`no child ${kind}/${name} in the inventory`);
  return {
    apiVersion: item.apiVersion,
    kind: item.kind,
    name: item.name,
    ...(item.namespace == null ? {} : { namespace: item.namespace }),
  };
}

/** ownedChildren lists the CR's children as `Kind/name` from the runtime's child caches. */
function ownedChildren(runtime: KatalogRuntime, uid: string): string[] {
  return runtime.children.listAllOwned(uid).map((o) => `${o.kind}/${o.metadata.name ?? ''}`);
}

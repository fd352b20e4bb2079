/**
 * The deletion stage (docs/reference/runtime.md §10.2): for a CR with a deletion timestamp and our
 * finalizer — onDelete cleanup jobs, then ordered onDelete groups, then the module hooks' onDelete
 * steps (once per CR, ADR 0099), then provider deletions (once per CR), then every child explicitly in reverse wave order (ADR 0010), then the finalizers
 * released. Each wait is a Deleting status and a timed re-queue; past `onDelete.timeout` it is
 * DeletionTimedOut.
 */
import { AlreadyExistsError, NotFoundError, kindFor, refOf } from '@orkestra/registry';
import type { KubeObject, ObjectRef, Owner } from '@orkestra/registry';
import type { TemplateContext } from '@orkestra/template';
import {
  ConditionReason,
  OrkestraError,
  OrkestraFinalizer,
  OrkestraLabel,
  RESOURCE_KINDS,
  evaluateConditions,
  parseDuration,
  toOrkestraError,
} from '@orkestra/types';
import type { Condition } from '@orkestra/types';
import { formatReasonMessage } from '../../reason-message.js';
import { idOf } from '../desired-set.js';
import type { HookInput, ProviderDeletion, RunContext, RunResult } from '../reconcile-pipeline.js';
import type { StatusWriter } from '../status-writer.js';
import { toWriteError } from '../write-error.js';
import { crContext } from './admission.js';
import { hookEffects, recordedProviders } from './hooks.js';
import { inventoryOf, recordRef } from './inventory.js';
import { childWritten, crWritten, formatChild, ownerOf, stringOrUndefined } from './run-state.js';
import type { RunState, StageServices } from './run-state.js';

const DELETE_WAIT_MS = 3000;
const JOB_WAIT_MS = 5000;
const CLEANUP_JOB_TTL_SECONDS = 600;
/** CLEANUP_JOBS_FINISHED lists the finished onDelete jobs (`namespace/name`, comma-separated) on a CR being deleted. */
const CLEANUP_JOBS_FINISHED = 'orkestra.konductor.io/cleanup-jobs-finished';

/** DeletionMemory is what the pipeline remembers about CRs being deleted until the primary cache reports them gone. */
export interface DeletionMemory {
  /** UIDs of CRs being deleted whose provider deletions have completed in this process. */
  readonly providersDeleted: Set<string>;
  /** UIDs of CRs being deleted whose module hooks' `onDelete` steps have completed in this process (ADR 0099). */
  readonly hooksDeleted: Set<string>;
  /** UIDs of CRs whose finalizer this process removed; the cache may still hold them until DELETED arrives. */
  readonly finalized: Set<string>;
}

/** DeletionDeps is what the deletion stage needs besides the stage services. */
export interface DeletionDeps {
  readonly status: Pick<StatusWriter, 'writeDeleting'>;
  /** The `deleteProviders` slot (docs/reference/runtime.md §10.2 step 5); throws `ProviderDeleteFailed`. */
  readonly deleteProviders: ((input: HookInput) => Promise<ProviderDeletion>) | undefined;
  /** The module hooks' `onDelete` steps (ADR 0099), before provider deletions; throws `HookFailed`. */
  readonly deleteModuleHooks?: ((input: HookInput) => Promise<void>) | undefined;
  readonly memory: DeletionMemory;
}

/** runDeletion is the deletion path for one CR (a private copy of the cached object). */
export async function runDeletion(
  services: StageServices,
  deps: DeletionDeps,
  cr: KubeObject,
  ctx: RunContext,
  state: RunState,
): Promise<RunResult> {
  services.drift.forget(cr.metadata.uid ?? '');
  const finalizers = (cr.metadata['finalizers'] as string[] | undefined) ?? [];
  if (!finalizers.includes(OrkestraFinalizer.Finalizer)) return { wroteCr: false, writes: 0 };
  // A pass queued before the DELETED event sees the cached CR that still lists the finalizer.
  if (deps.memory.finalized.has(cr.metadata.uid ?? '')) return { wroteCr: false, writes: 0 };
  const crd = services.crd;
  const deleting = async (reason: ConditionReason, message: string): Promise<void> => {
    await deps.status.writeDeleting(cr, { ready: false, reason, message }, ctx.logger).then((w) => {
      if (w) crWritten(state);
    });
  };
  const current = (
    cr['status'] as { conditions?: { type: string; reason?: string }[] } | undefined
  )?.conditions?.find((c) => c.type === 'Ready');
  if (current?.reason !== ConditionReason.Deleting && current?.reason !== ConditionReason.DeletionTimedOut) {
    services.events.normal(cr, 'Deleting', `${crd.katalogPath}: deletion started`);
  }
  const context = crContext(cr);
  const onDelete = crd.entry.operatorBox.onDelete;
  const gatePassed = onDelete == null || evaluateConditions(onDelete, context, services.conditions).passed;
  try {
    let waiting: string | undefined;
    if (onDelete != null && gatePassed) {
      waiting = await cleanupJobs(services, cr, context, state);
      if (waiting == null) waiting = await orderedGroups(services, cr, context, state);
    }
    if (waiting != null) {
      const timeout = onDelete?.timeout;
      if (deletionTimedOut(String(cr.metadata['deletionTimestamp']), services.clock.now(), timeout)) {
        const message = formatReasonMessage(
          `${crd.katalogPath}.operatorBox.onDelete`,
          `not complete after ${timeout ?? ''}: ${waiting}`,
        );
        if (current?.reason !== ConditionReason.DeletionTimedOut)
          services.events.warning(cr, 'DeletionTimedOut', message);
        await deleting(ConditionReason.DeletionTimedOut, message);
        throw new OrkestraError(message, {
          code: ConditionReason.DeletionTimedOut,
          katalogPath: crd.katalogPath,
        });
      }
      await deleting(
        ConditionReason.Deleting,
        formatReasonMessage(`${crd.katalogPath}.operatorBox.onDelete`, waiting),
      );
      return {
        requeueAfterMs: waiting.startsWith('waiting for cleanup job') ? JOB_WAIT_MS : DELETE_WAIT_MS,
        wroteCr: state.wroteCr,
        writes: state.writes,
      };
    }
    const uid = cr.metadata.uid ?? '';
    // The module hooks' onDelete steps run once per CR, before provider deletions and the finalizer (ADR 0099).
    if (deps.deleteModuleHooks != null && !deps.memory.hooksDeleted.has(uid)) {
      try {
        await deps.deleteModuleHooks({
          crd,
          cr,
          context,
          signal: ctx.signal,
          logger: ctx.logger,
          effects: hookEffects(state),
        });
      } catch (error) {
        const failure = toOrkestraError(error, { katalogPath: crd.katalogPath });
        await deleting(failure.code as ConditionReason, failure.message);
        throw failure;
      }
      deps.memory.hooksDeleted.add(uid);
    }
    // Provider deletions run once per CR: later passes (waiting for explicit child deletes) skip
    // them instead of calling every provider's delete again (found by the parity test).
    if (deps.deleteProviders != null && !deps.memory.providersDeleted.has(uid)) {
      let providers: ProviderDeletion;
      try {
        providers = await deps.deleteProviders({
          crd,
          cr,
          context: { ...context, providers: recordedProviders(cr) },
          signal: ctx.signal,
          logger: ctx.logger,
          effects: hookEffects(state),
        });
      } catch (error) {
        const failure = toOrkestraError(error, { katalogPath: crd.katalogPath });
        await deleting(failure.code as ConditionReason, failure.message);
        throw failure;
      }
      if (providers != null) {
        await deleting(ConditionReason.Deleting, formatReasonMessage(crd.katalogPath, providers.waiting));
        return { requeueAfterMs: providers.requeueAfterMs, wroteCr: state.wroteCr, writes: state.writes };
      }
      deps.memory.providersDeleted.add(uid);
    }
    const explicit = await explicitChildren(services, cr, state);
    if (explicit != null) {
      await deleting(ConditionReason.Deleting, formatReasonMessage(crd.katalogPath, explicit));
      return { requeueAfterMs: DELETE_WAIT_MS, wroteCr: state.wroteCr, writes: state.writes };
    }
    const ours = new Set<string>([OrkestraFinalizer.Finalizer, ...crd.extraFinalizers]);
    const patched = await services.client.mergePatch(refOf(cr), {
      metadata: {
        finalizers: finalizers.filter((f) => !ours.has(f)),
        resourceVersion: cr.metadata.resourceVersion,
      },
    });
    // docs/reference/runtime.md §10.2 (found by the parity test): with no finalizer left the API server removes the CR
    // at once, and its DELETED watch event can reach the cache before this response; upserting
    // the response then would bring back a ghost CR until the next relist. The uid stays in
    // `providersDeleted` until the cache reports the CR gone (`CrdPipeline.forget`): a pass queued
    // before the DELETED event still sees the cached CR with its finalizer and must not delete again.
    const remaining = (patched.metadata['finalizers'] as readonly string[] | undefined) ?? [];
    if (remaining.length > 0) services.primary.upsertFromWrite(patched);
    else deps.memory.finalized.add(uid);
    state.writes++;
    services.events.normal(cr, 'Finalized', `${crd.katalogPath}: finalizers removed`);
    return { wroteCr: false, writes: state.writes };
  } catch (error) {
    if (error instanceof OrkestraError) throw error;
    if (error instanceof NotFoundError) return { wroteCr: false, writes: state.writes };
    throw toOrkestraError(error, { katalogPath: crd.katalogPath });
  }
}

/** deletionTimedOut: the deletion started (`deletionTimestamp`) longer ago than `onDelete.timeout` (an unreadable timeout is 5 minutes, none is never). */
export function deletionTimedOut(
  deletionTimestamp: string,
  nowMs: number,
  timeout: string | undefined,
): boolean {
  const since = Date.parse(deletionTimestamp);
  const timeoutMs = timeout == null ? Infinity : parseDurationSafe(timeout);
  return !Number.isNaN(since) && nowMs - since > timeoutMs;
}

/**
 * cleanupJobs creates onDelete jobs if absent and returns what is still running, or undefined
 * when all finished. Finished jobs are recorded in the CR's `cleanup-jobs-finished` annotation
 * as soon as they are seen, so a job that Kubernetes removes after its TTL is not created again.
 */
async function cleanupJobs(
  services: StageServices,
  cr: KubeObject,
  context: TemplateContext,
  state: RunState,
): Promise<string | undefined> {
  const running: string[] = [];
  const owner = ownerOf(services.crd, cr);
  const recorded = new Set(
    (cr.metadata.annotations?.[CLEANUP_JOBS_FINISHED] ?? '').split(',').filter((s) => s !== ''),
  );
  const finishedNow: string[] = [];
  for (const job of services.crd.onDeleteJobs) {
    const copies = job.compiled.expand(context, {
      include: (ctx, g) =>
        evaluateConditions(g as { when?: Condition[]; anyOf?: Condition[] }, ctx, services.conditions).passed,
    });
    for (const copy of copies) {
      const module = kindFor(job.listKey);
      if (module == null) continue;
      const rendered = { ...copy.entry };
      const resolved = module.resolve({ entry: rendered, path: job.source }, owner);
      const { ownerReferences: _dropped, ...metadata } = resolved.manifest.metadata;
      const spec = { ...(resolved.manifest['spec'] as Record<string, unknown>) };
      if (spec['ttlSecondsAfterFinished'] == null) spec['ttlSecondsAfterFinished'] = CLEANUP_JOB_TTL_SECONDS;
      const manifest: KubeObject = { ...resolved.manifest, metadata, spec };
      const jobId = `${resolved.ref.namespace ?? ''}/${resolved.ref.name}`;
      if (recorded.has(jobId)) continue; // finished earlier, possibly already removed by its TTL
      let live = services.children.get(resolved.ref);
      if (live == null) {
        try {
          live = await services.client.create(manifest);
          services.children.upsertFromWrite(live);
          childWritten(services, state, resolved.ref.kind, 'create');
          services.events.normal(cr, 'Created', `${formatChild(resolved.ref)} (${job.source}) was created`);
        } catch (error) {
          if (error instanceof AlreadyExistsError) {
            live = await services.client.get(resolved.ref);
          } else throw toWriteError(error, job.katalogPath, resolved.ref);
        }
      }
      const finished = module.finished?.(live);
      if (finished != null) finishedNow.push(jobId);
      if (finished === 'failed') {
        services.events.warning(
          cr,
          'DeleteHookFailed',
          formatReasonMessage(job.katalogPath, 'cleanup job failed', {
            kind: resolved.ref.kind,
            namespace: resolved.ref.namespace,
            name: resolved.ref.name,
          }),
        );
      } else if (finished == null) {
        running.push(formatChild(resolved.ref));
      }
    }
  }
  if (finishedNow.length > 0) await recordFinishedJobs(services, cr, [...recorded, ...finishedNow], state);
  return running.length === 0 ? undefined : `waiting for cleanup job ${running.join(', ')}`;
}

/** recordFinishedJobs writes the finished cleanup jobs into the CR's annotation (merge patch with the resource version) and updates `cr` in place. */
async function recordFinishedJobs(
  services: StageServices,
  cr: KubeObject,
  jobs: readonly string[],
  state: RunState,
): Promise<void> {
  const value = [...new Set(jobs)].sort().join(',');
  const patched = await services.client.mergePatch(refOf(cr), {
    metadata: {
      annotations: { [CLEANUP_JOBS_FINISHED]: value },
      resourceVersion: cr.metadata.resourceVersion,
    },
  });
  services.primary.upsertFromWrite(patched);
  crWritten(state);
  // Later steps of this run (status, finalizer removal) carry the new resource version.
  Object.assign(cr.metadata, {
    resourceVersion: patched.metadata.resourceVersion,
    annotations: patched.metadata.annotations,
  });
}

/** orderedGroups deletes the first onDelete group that still has objects; undefined when every group is gone. */
async function orderedGroups(
  services: StageServices,
  cr: KubeObject,
  context: TemplateContext,
  state: RunState,
): Promise<string | undefined> {
  const onDelete = services.crd.entry.operatorBox.onDelete;
  if (onDelete == null || !onDelete.ordered) return undefined;
  const owner = ownerOf(services.crd, cr);
  for (const group of services.crd.onDeleteGroups) {
    if (!evaluateConditions(group.group, context, services.conditions).passed) continue;
    const remaining: { ref: ObjectRef; uid?: string; deleting: boolean }[] = [];
    for (const ref of group.refs) {
      const rendered = ref.value.render(context) as Record<string, unknown>;
      const target = deleteRefOf(ref.listKey, rendered, owner);
      if (target == null) continue;
      const live = await observe(services, target);
      if (live == null) continue;
      const uid = live.metadata.uid;
      remaining.push({
        ref: target,
        ...(uid == null ? {} : { uid }),
        deleting: live.metadata['deletionTimestamp'] != null,
      });
    }
    if (remaining.length === 0) continue;
    for (const item of remaining) {
      if (item.deleting) continue;
      try {
        await services.client.delete(item.ref, {
          propagationPolicy: group.group.propagation,
          ...(item.uid == null ? {} : { uid: item.uid }),
        });
        childWritten(services, state, item.ref.kind, 'delete');
      } catch (error) {
        if (!(error instanceof NotFoundError))
          throw toOrkestraError(error, { katalogPath: group.katalogPath });
      }
    }
    return `waiting for group ${group.group.name} (${remaining.map((r) => formatChild(r.ref)).join(', ')}) to be deleted`;
  }
  return undefined;
}

/** ExplicitChild is a child the explicit-deletion step still has to see gone. */
export interface ExplicitChild {
  readonly ref: ObjectRef;
  readonly uid?: string;
  /** It has a deletion timestamp already (its own finalizers run). */
  readonly deleting: boolean;
  readonly wave: number;
}

/** lastWave is the explicit-deletion step's next wave: the children of the highest wave, and whether other waves remain. */
export function lastWave(found: Iterable<ExplicitChild>): {
  readonly items: readonly ExplicitChild[];
  readonly moreWaves: boolean;
} {
  const all = [...found];
  const waves = [...new Set(all.map((f) => f.wave))].sort((a, b) => b - a);
  const wave = waves[0];
  return { items: all.filter((f) => f.wave === wave), moreWaves: waves.length > 1 };
}

// ---- ADR 0010: deterministic deletion ----------------------------------------------------
// Every child of the inventory and the cache is deleted explicitly (not only those garbage
// collection cannot reach), in reverse wave order, and the finalizer is released only once all
// of them are gone: `kubectl delete` returns after the children are gone, whether or not the
// garbage collector has discovered a just-installed kind yet.
async function explicitChildren(
  services: StageServices,
  cr: KubeObject,
  state: RunState,
): Promise<string | undefined> {
  const uid = cr.metadata.uid ?? '';
  const found = new Map<string, ExplicitChild>();
  const consider = (object: KubeObject): void => {
    const source = object.metadata.annotations?.['orkestra.konductor.io/source'] ?? '';
    if (source.startsWith('onDelete.')) return;
    const ref = refOf(object);
    const objectUid = object.metadata.uid;
    found.set(idOf(ref), {
      ref,
      ...(objectUid == null ? {} : { uid: objectUid }),
      deleting: object.metadata['deletionTimestamp'] != null,
      wave: waveOf(ref),
    });
  };
  for (const object of services.children.listAllOwned(uid)) consider(object);
  for (const record of inventoryOf(cr)) {
    const ref = recordRef(record);
    if (found.has(idOf(ref)) || record.source.startsWith('onDelete.')) continue;
    if (services.children.watches(ref)) {
      const live = services.children.get(ref);
      if (live != null) consider(live);
    } else {
      // Not in any cache (e.g. a custom kind without an informer): read it, and delete it only when
      // it carries this CR's owner label, with its UID as the precondition, as prune does.
      // `status.inventory` is writable by whoever may patch the status subresource, so a ref alone
      // is never a reason to delete (docs/reference/runtime.md §10.2).
      const live = await observe(services, ref);
      if (live != null && live.metadata.labels?.[OrkestraLabel.OwnerUid] === uid) consider(live);
    }
  }
  if (found.size === 0) return undefined;
  const { items, moreWaves } = lastWave(found.values());
  const left: ExplicitChild[] = [];
  for (const item of items) {
    if (item.deleting) {
      left.push(item); // has its own finalizers: wait until it is gone
      continue;
    }
    try {
      await services.client.delete(item.ref, {
        propagationPolicy: 'Background',
        ...(item.uid == null ? {} : { uid: item.uid }),
      });
      childWritten(services, state, item.ref.kind, 'delete');
      left.push(item);
    } catch (error) {
      if (!(error instanceof NotFoundError))
        throw toOrkestraError(error, { katalogPath: services.crd.katalogPath });
    }
  }
  // Gone only when every wave is gone; the children's delete events re-queue the CR.
  if (left.length === 0 && !moreWaves) return undefined;
  return `deleting ${(left.length > 0 ? left : items).map((i) => formatChild(i.ref)).join(', ')}`;
}

async function observe(services: StageServices, ref: ObjectRef): Promise<KubeObject | undefined> {
  if (services.children.watches(ref)) return services.children.get(ref);
  try {
    return await services.client.get(ref);
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
}

/** Apply wave of each built-in kind (docs/reference/runtime.md §9.4), from @orkestra/types, by `apiVersion/kind`. */
const KIND_WAVES = new Map<string, number>([
  ...RESOURCE_KINDS.flatMap((info) =>
    info.kind == null || info.apiVersion == null
      ? []
      : [[`${info.apiVersion}/${info.kind}`, info.wave] as const],
  ),
  // A `custom` PersistentVolume goes after the PersistentVolumeClaims (wave 3): Kubernetes keeps
  // a bound volume (`kubernetes.io/pv-protection`) until its claim is gone.
  ['v1/PersistentVolume', 2],
]);

/** waveOf is a kind's apply wave (custom kinds: 6); deletion goes through the waves in reverse. */
export function waveOf(ref: { readonly apiVersion: string; readonly kind: string }): number {
  return KIND_WAVES.get(`${ref.apiVersion}/${ref.kind}`) ?? 6;
}

/** deleteRefOf is the object an `onDelete.groups[]` reference names, rendered; undefined when it names nothing complete. */
export function deleteRefOf(
  listKey: string,
  rendered: Record<string, unknown>,
  owner: Owner,
): ObjectRef | undefined {
  if (listKey === 'custom') {
    const metadata = (rendered['metadata'] ?? {}) as Record<string, unknown>;
    const name = stringOrUndefined(metadata['name']);
    const apiVersion = stringOrUndefined(rendered['apiVersion']);
    const kind = stringOrUndefined(rendered['kind']);
    if (name == null || apiVersion == null || kind == null) return undefined;
    const namespace = stringOrUndefined(metadata['namespace']);
    return namespace == null ? { apiVersion, kind, name } : { apiVersion, kind, name, namespace };
  }
  const module = kindFor(listKey);
  if (module?.apiVersion == null || module.kind == null) return undefined;
  const name =
    stringOrUndefined(rendered['name']) ??
    (module.defaultNameSuffix == null ? undefined : `${owner.name}${module.defaultNameSuffix}`);
  if (name == null) return undefined;
  if (module.namespaced === false) return { apiVersion: module.apiVersion, kind: module.kind, name };
  const namespace = stringOrUndefined(rendered['namespace']) ?? owner.namespace ?? 'default';
  return { apiVersion: module.apiVersion, kind: module.kind, name, namespace };
}

function parseDurationSafe(text: string): number {
  try {
    return parseDuration(text);
  } catch {
    return 5 * 60_000;
  }
}

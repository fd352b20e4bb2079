/**
 * The secrets stage (docs/reference/runtime.md §9.2–9.3, §14.1): the data of a `once` Secret at
 * create time (deferred `data`, generated TLS material, the generation stamp), its rotation in
 * place when due, and the timed re-queue of the next rotation. Called by the child-writes stage
 * for every Secret child.
 */
import type { KubeObject } from '@orkestra/registry';
import { ConditionReason, OrkestraLabel, TerminalError, stringForm } from '@orkestra/types';
import { generationStamp, secretRotationState, tlsValidForMs } from '../../secrets/rotation.js';
import { generateTlsMaterial } from '../../secrets/tls.js';
import type { TlsMaterialRequest } from '../../secrets/tls.js';
import type { DesiredChild } from '../desired-set.js';
import { childWritten, formatChild, stringOrUndefined } from './run-state.js';
import type { RunState, StageServices } from './run-state.js';

/** RotationEntry is the rotation part of a rendered Secret entry. */
export interface RotationEntry {
  readonly rotateAfter?: string;
  readonly tls?: { readonly validFor?: string };
}

/** rotationEntry reads `rotateAfter` and `tls.validFor` of a rendered Secret entry (empty strings are absent). */
export function rotationEntry(rendered: Readonly<Record<string, unknown>>): RotationEntry {
  const rotateAfter = stringOrUndefined(rendered['rotateAfter']);
  const tls = rendered['tls'] as Record<string, unknown> | undefined;
  const validFor = tls == null ? undefined : stringOrUndefined(tls['validFor']);
  return {
    ...(rotateAfter == null ? {} : { rotateAfter }),
    ...(tls == null ? {} : { tls: validFor == null ? {} : { validFor } }),
  };
}

/** tlsRequestOf is what `generateTlsMaterial` is asked for a rendered `tls` block; the common name defaults to the Service DNS name. */
export function tlsRequestOf(child: DesiredChild): TlsMaterialRequest | undefined {
  const rendered = child.rendered;
  const tls = rendered['tls'] as Record<string, unknown> | undefined;
  if (tls == null) return undefined;
  const rotateAfter = typeof rendered['rotateAfter'] === 'string' ? rendered['rotateAfter'] : undefined;
  const namespace = child.ref.namespace ?? 'default';
  const validFor = stringOrUndefined(tls['validFor']);
  return {
    commonName: stringOrUndefined(tls['commonName']) ?? `${child.ref.name}.${namespace}.svc`,
    dnsNames: Array.isArray(tls['dnsNames']) ? tls['dnsNames'].map((n) => stringForm(n)) : undefined,
    validForMs: tlsValidForMs({ rotateAfter, tls: { validFor } }),
    organization: stringOrUndefined(tls['organization']),
  };
}

/** secretForCreate is the manifest of a `once` Secret when it is created (or its data rotated). */
export async function secretForCreate(services: StageServices, child: DesiredChild): Promise<KubeObject> {
  const rendered = child.rendered;
  const rotateAfter = typeof rendered['rotateAfter'] === 'string' ? rendered['rotateAfter'] : undefined;
  // Deferred `data` is rendered only now, when a create or rotation is attempted (docs/reference/runtime.md §9.2).
  let manifest = child.withData == null ? child.manifest : child.withData();
  const request = tlsRequestOf(child);
  if (request != null) {
    const material = await generateTlsMaterial(request, { clock: services.clock, random: services.random });
    manifest = {
      ...manifest,
      type: 'kubernetes.io/tls',
      data: Object.fromEntries(
        Object.entries(material).map(([k, v]) => [k, Buffer.from(v, 'utf8').toString('base64')]),
      ),
    };
  }
  if (rotateAfter != null || request != null) {
    manifest = {
      ...manifest,
      metadata: {
        ...manifest.metadata,
        annotations: {
          ...manifest.metadata.annotations,
          ...generationStamp(new Date(services.clock.now()), rotateAfter),
        },
      },
    };
  }
  return manifest;
}

/** scheduleRotation re-queues the CR when a rotating Secret falls due. */
export function scheduleRotation(
  services: StageServices,
  child: DesiredChild,
  secret: KubeObject | undefined,
  state: RunState,
): void {
  const entry = rotationEntry(child.rendered);
  if (entry.rotateAfter == null && entry.tls == null) return;
  const rotation = secretRotationState({ secret, entry, now: new Date(services.clock.now()) });
  if (rotation.dueAt != null) state.requeueAt.push(rotation.dueAt.getTime());
}

/** rotateIfDue regenerates a rotating Secret's data in place with its resource version (docs/reference/runtime.md §14.1). */
export async function rotateIfDue(
  services: StageServices,
  cr: KubeObject,
  child: DesiredChild,
  cached: KubeObject,
  state: RunState,
): Promise<void> {
  const owner = cached.metadata.labels?.[OrkestraLabel.OwnerUid];
  if (owner != null && owner !== cr.metadata.uid) {
    throw new TerminalError(`${formatChild(child.ref)} belongs to the CR with UID ${owner}`, {
      code: ConditionReason.ChildOwnedByOther,
      katalogPath: child.entry.katalogPath,
    });
  }
  const entry = rotationEntry(child.rendered);
  if (entry.rotateAfter == null && entry.tls == null) return;
  const now = new Date(services.clock.now());
  const rotation = secretRotationState({ secret: cached, entry, now });
  if (!rotation.due && !rotation.stampNeeded) {
    if (rotation.dueAt != null) state.requeueAt.push(rotation.dueAt.getTime());
    return;
  }
  const patch: Record<string, unknown> = {
    metadata: {
      resourceVersion: cached.metadata.resourceVersion,
      annotations: generationStamp(now, entry.rotateAfter),
    },
  };
  if (rotation.due) {
    const fresh = await secretForCreate(services, child);
    patch['data'] = fresh['data'] ?? {};
    if (fresh['type'] != null) patch['type'] = fresh['type'];
  }
  const written = await services.client.mergePatch(child.ref, patch);
  services.children.upsertFromWrite(written);
  childWritten(services, state, child.ref.kind, 'update');
  if (rotation.due) services.observer.secretGenerated(services.crd.name, 'rotated');
  if (rotation.due)
    services.events.normal(
      cr,
      'SecretRotated',
      `${formatChild(child.ref)} (${child.entry.source}) was rotated`,
    );
  scheduleRotation(services, child, written, state);
}

/**
 * Custom resources for the chaos scenarios, read and written as admin: CRD installation for a
 * Katalog entry's apiTypes and the CR client (both from `@orkestra/testenv`), and helpers for the
 * Ready condition.
 */
import { randomBytes } from 'node:crypto';
import type { CustomObject, CustomObjectCondition } from '@orkestra/testenv';

export { createNamespace, crClient, installCrd } from '@orkestra/testenv';

/** uniqueSuffix returns six random hex characters, for API groups and namespaces no other run uses. */
export function uniqueSuffix(): string {
  return randomBytes(3).toString('hex');
}

/** CrObject is a custom object as read back. */
export type CrObject = CustomObject;

/** readyOf returns a CR's Ready condition. */
export function readyOf(cr: CrObject): CustomObjectCondition | undefined {
  return cr.status?.conditions?.find((c) => c.type === 'Ready');
}

/** isReadyAtGeneration tells whether the CR reports Ready=True for its current generation. */
export function isReadyAtGeneration(cr: CrObject): boolean {
  const ready = readyOf(cr);
  return ready?.status === 'True' && ready.observedGeneration === cr.metadata.generation;
}

/** isNotFound tells whether a client-node error is a 404. */
export function isNotFound(error: unknown): boolean {
  return (error as { code?: number } | null)?.code === 404;
}

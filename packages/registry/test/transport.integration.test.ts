// The one API transport of the runtime (ADR 0013, docs/reference/runtime.md §18.4): status
// patches with a resource-version precondition, merge patches with one, and core Events, all
// through createKubeClient, without discovery for kinds it is told about.
import { randomBytes } from 'node:crypto';
import { installCrd } from '@orkestra/testenv';
import { useControlPlane } from '@orkestra/testenv/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeClient, KubeObject, ObjectRef } from '../src/index.js';
import { ConflictError, createKubeClient, KubeErrorCode, NotFoundError } from '../src/index.js';

const env = useControlPlane();
const run = randomBytes(3).toString('hex');
const GADGET = { group: `t${run}.transport.orkestra.dev`, version: 'v1', kind: 'Gadget', plural: 'gadgets' };
const apiVersion = `${GADGET.group}/${GADGET.version}`;

let client: KubeClient;
let removeCrd: (() => Promise<void>) | undefined;

beforeAll(async () => {
  removeCrd = await installCrd(env.kubeConfig, GADGET);
  client = createKubeClient({
    kubeConfig: env.kubeConfig,
    resources: { [`${apiVersion}/Gadget`]: { plural: 'gadgets', namespaced: true } },
  });
});

afterAll(async () => {
  await removeCrd?.();
});

async function createGadget(name: string): Promise<{ ref: ObjectRef; created: KubeObject }> {
  const created = await client.create({
    apiVersion,
    kind: 'Gadget',
    metadata: { name, namespace: env.namespace },
    spec: { size: 1 },
  });
  return { ref: { apiVersion, kind: 'Gadget', name, namespace: env.namespace }, created };
}

describe('KubeClient.patchStatus', () => {
  it('writes status with the current resource version and refuses a stale one with ConflictError', async () => {
    const { ref, created } = await createGadget('status');
    const stale = created.metadata.resourceVersion;
    const written = await client.patchStatus(ref, { phase: 'one' }, { resourceVersion: stale });
    expect(written).toMatchObject({ apiVersion, kind: 'Gadget', status: { phase: 'one' } });
    expect(written.metadata.resourceVersion).not.toBe(stale);

    const error: unknown = await client
      .patchStatus(ref, { phase: 'two' }, { resourceVersion: stale })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConflictError);
    expect(error).toMatchObject({ status: 409, reason: KubeErrorCode.Conflict, verb: 'patch' });
    expect((await client.get(ref))['status']).toEqual({ phase: 'one' });

    // Without a precondition the patch goes through whatever the resource version is.
    const unconditional = await client.patchStatus(ref, { phase: 'three' });
    expect(unconditional['status']).toEqual({ phase: 'three' });
  });

  it('needs no discovery request for a kind given in `resources`', async () => {
    const { ref, created } = await createGadget('counted');
    // A fresh client: nothing discovered yet, so a discovery request would show in the counts.
    const fresh = createKubeClient({
      kubeConfig: env.kubeConfig,
      resources: { [`${apiVersion}/Gadget`]: { plural: 'gadgets', namespaced: true } },
    });
    await fresh.patchStatus(ref, { phase: 'x' }, { resourceVersion: created.metadata.resourceVersion });
    expect(fresh.requests.snapshot()).toEqual({ 'patch Gadget': 1 });
  });
});

describe('KubeClient.mergePatch', () => {
  it('refuses a stale resource version with ConflictError and applies a current one', async () => {
    const { ref, created } = await createGadget('merge');
    const patched = await client.mergePatch(
      ref,
      { metadata: { labels: { a: '1' } } },
      { resourceVersion: created.metadata.resourceVersion },
    );
    expect(patched.metadata.labels).toEqual({ a: '1' });
    const error: unknown = await client
      .mergePatch(
        ref,
        { metadata: { labels: { a: '2' } } },
        { resourceVersion: created.metadata.resourceVersion },
      )
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConflictError);
    expect((await client.get(ref)).metadata.labels).toEqual({ a: '1' });
  });
});

describe('KubeClient.delete', () => {
  it('refuses a stale resource version with ConflictError and deletes the version it names', async () => {
    const { ref, created } = await createGadget('delete');
    const changed = await client.mergePatch(ref, { metadata: { labels: { a: '1' } } });
    const error: unknown = await client
      .delete(ref, { resourceVersion: created.metadata.resourceVersion })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConflictError);
    expect((await client.get(ref)).metadata.labels).toEqual({ a: '1' }); // still there
    await client.delete(ref, { resourceVersion: changed.metadata.resourceVersion });
    expect(await client.get(ref).catch((e: unknown) => e)).toBeInstanceOf(NotFoundError);
  });
});

describe('KubeClient.create for core Events', () => {
  it('creates an Event with a generated name, counted as `create Event`, without discovery', async () => {
    const before = client.requests.snapshot();
    const event = await client.create({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { generateName: 'subject.', namespace: env.namespace },
      involvedObject: { apiVersion: 'v1', kind: 'ConfigMap', name: 'subject', namespace: env.namespace },
      reason: 'Tested',
      message: 'one transport',
      type: 'Normal',
      source: { component: 'orkestra' },
    } as unknown as KubeObject);
    expect(event.metadata.name).toMatch(/^subject\./);
    expect(event).toMatchObject({ reason: 'Tested', message: 'one transport' });
    expect(client.requests.since(before)).toEqual({ 'create Event': 1 });
  });
});

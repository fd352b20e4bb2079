/**
 * runFullFloor is the floor an operator can actually reach: it makes exactly the writes the
 * operator must make for the workload, with nothing else. The benchmark creates N CRs,
 * `concurrency` at a time (as it does for the operators); as each create answers, one of
 * `concurrency` writer lanes server-side-applies the CR's four children with the labels, the
 * applied-hash annotation and the ownerReference Orkestra gives them (the four in parallel), then
 * writes one status patch. The time runs from the first create to the last status answer. An
 * untimed pass of `warmup` CRs comes first, as the operators' warm-up does.
 */
import {
  CustomObjectsApi,
  KubernetesObjectApi,
  PatchStrategy,
  setHeaderOptions,
} from '@kubernetes/client-node';
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import { MANAGED_BY, OrkestraAnnotation, OrkestraLabel } from '@orkestra/types';
import { runLimited } from './run-limited.js';
import { ORKESTRA_RESOURCE, crManifest, crName, floorManifests, initialSpec, warmName } from './workload.js';
import type { KubeManifest } from './workload.js';

/** FullFloorOptions configures runFullFloor. */
export interface FullFloorOptions {
  readonly kubeConfig: KubeConfig;
  readonly namespace: string;
  readonly size: number;
  readonly concurrency: number;
  /** The CRD entry name stamped into the `crd` label (Orkestra's bench Katalog: `benchapp`). */
  readonly crdEntry: string;
  /** CRs written the same way before the clock starts, untimed (the operators' warm-up). Default 0. */
  readonly warmup?: number | undefined;
}

/** FullFloorResult is the full floor's timing and its write count. */
export interface FullFloorResult {
  /** First CR create sent → last status patch answered, ms. */
  readonly convergenceMs: number;
  /** Child applies (4 per CR) plus status patches (1 per CR); the CR creates are the benchmark's. */
  readonly writes: number;
  /** CPU time the API server spent over convergenceMs (`process_cpu_seconds_total`), ms; set by the caller. */
  readonly apiServerCpuMs?: number;
}

/**
 * ownedChildren stamps floor manifests with Orkestra's child metadata: the five labels, the
 * applied-hash annotation and a controller ownerReference to the CR.
 */
function ownedChildren(
  manifests: readonly KubeManifest[],
  owner: { readonly apiVersion: string; readonly kind: string; readonly name: string; readonly uid: string },
  crdEntry: string,
): KubeManifest[] {
  return manifests.map((m) => ({
    ...m,
    metadata: {
      ...m.metadata,
      labels: {
        ...m.metadata.labels,
        [OrkestraLabel.ManagedBy]: MANAGED_BY,
        [OrkestraLabel.OwnerUid]: owner.uid,
        [OrkestraLabel.OwnerName]: owner.name,
        [OrkestraLabel.Crd]: crdEntry,
        [OrkestraLabel.Child]: m.metadata.name,
      },
      annotations: { [OrkestraAnnotation.AppliedHash]: 'sha256-0000000000000000000000000000000000000000000' },
      ownerReferences: [
        {
          apiVersion: owner.apiVersion,
          kind: owner.kind,
          name: owner.name,
          uid: owner.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
  }));
}

/** runFullFloor creates the CRs and makes the operator's writes for each; see the module comment. */
export async function runFullFloor(options: FullFloorOptions): Promise<FullFloorResult> {
  const api = KubernetesObjectApi.makeApiClient(options.kubeConfig);
  const custom = options.kubeConfig.makeApiClient(CustomObjectsApi);
  const r = ORKESTRA_RESOURCE;
  const apiVersion = `${r.group}/${r.version}`;
  // Discovery of every kind is cached by the client before the clock starts, as an operator's is.
  for (const kind of [
    ...floorManifests('warmup', options.namespace, initialSpec('warmup')),
    { apiVersion, kind: r.kind },
  ]) {
    await api.list(
      kind.apiVersion,
      kind.kind,
      options.namespace,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      1,
    );
  }
  const pass = (names: readonly string[]): Promise<FullFloorResult> =>
    writePass(
      {
        api,
        custom,
        namespace: options.namespace,
        apiVersion,
        crdEntry: options.crdEntry,
        concurrency: options.concurrency,
      },
      names,
    );
  // Untimed, as the operators' warm-up is: the first CR creates, owner-metadata applies and
  // status patches of a fresh API server are slower, and the operators do not pay for theirs.
  const warmup = options.warmup ?? 0;
  if (warmup > 0) await pass(Array.from({ length: warmup }, (_, i) => warmName(i)));
  return pass(Array.from({ length: options.size }, (_, i) => crName(i)));
}

interface PassContext {
  readonly api: KubernetesObjectApi;
  readonly custom: CustomObjectsApi;
  readonly namespace: string;
  readonly apiVersion: string;
  readonly crdEntry: string;
  readonly concurrency: number;
}

/** writePass creates the named CRs and makes the operator's writes for each; its time runs from the first create to the last status answer. */
async function writePass(p: PassContext, names: readonly string[]): Promise<FullFloorResult> {
  const r = ORKESTRA_RESOURCE;
  const { api, custom } = p;
  const created: { name: string; uid: string }[] = [];
  const waiting: (() => void)[] = [];
  let creating = true;
  let writes = 0;
  const next = async (): Promise<{ name: string; uid: string } | undefined> => {
    for (;;) {
      const item = created.shift();
      if (item != null) return item;
      if (!creating) return undefined;
      await new Promise<void>((resolve) => waiting.push(resolve));
    }
  };
  const wake = (): void => {
    for (const w of waiting.splice(0)) w();
  };
  const writer = async (): Promise<void> => {
    for (let item = await next(); item != null; item = await next()) {
      const owner = { apiVersion: p.apiVersion, kind: r.kind, name: item.name, uid: item.uid };
      const children = ownedChildren(
        floorManifests(item.name, p.namespace, initialSpec(item.name)),
        owner,
        p.crdEntry,
      );
      await Promise.all(
        children.map(async (child) => {
          writes++;
          await api.patch(
            child,
            undefined,
            undefined,
            'bench-full-floor',
            true,
            PatchStrategy.ServerSideApply,
          );
        }),
      );
      writes++;
      await patchStatus(custom, p.namespace, item.name);
    }
  };
  const start = performance.now();
  const writers = Array.from({ length: p.concurrency }, writer);
  try {
    await runLimited(names, p.concurrency, async (name) => {
      const cr = (await api.create(
        crManifest(r, name, p.namespace, initialSpec(name)) as KubernetesObject,
      )) as KubernetesObject;
      created.push({ name, uid: cr.metadata?.uid ?? '' });
      wake();
    });
  } finally {
    creating = false;
    wake();
  }
  await Promise.all(writers);
  return { convergenceMs: performance.now() - start, writes };
}

/** patchStatus writes a Ready status the size of Orkestra's through the status subresource (merge patch). */
async function patchStatus(api: CustomObjectsApi, namespace: string, name: string): Promise<void> {
  const r = ORKESTRA_RESOURCE;
  const body = {
    status: {
      observedGeneration: 1,
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'ReconcileSucceeded',
          message: '',
          observedGeneration: 1,
          lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
        },
      ],
    },
  };
  await api.patchNamespacedCustomObjectStatus(
    {
      group: r.group,
      version: r.version,
      namespace,
      plural: r.plural,
      name,
      body,
      fieldManager: 'bench-full-floor',
    },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
}

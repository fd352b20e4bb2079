/**
 * runRawFloor is the floor Orkestra is compared with: a bare @kubernetes/client-node loop that
 * server-side-applies the same four objects per CR, `concurrency` CRs at a time (the four objects
 * of one CR in parallel), and nothing else: no CRs, no cache, no status.
 */
import { KubernetesObjectApi, PatchStrategy } from '@kubernetes/client-node';
import type { KubeConfig } from '@kubernetes/client-node';
import { runLimited } from './run-limited.js';
import { crName, floorManifests, initialSpec } from './workload.js';

/** RawFloorOptions configures runRawFloor. */
export interface RawFloorOptions {
  readonly kubeConfig: KubeConfig;
  readonly namespace: string;
  readonly size: number;
  readonly concurrency: number;
}

/** RawFloorResult is the floor's timing. */
export interface RawFloorResult {
  /** First apply sent → last apply answered, ms. */
  readonly convergenceMs: number;
  /** Server-side applies sent (4 per CR). */
  readonly applies: number;
  /** Every timed run when the benchmark ran the floor more than once (convergenceMs is the fastest). */
  readonly runsMs?: readonly number[];
}

/** runRawFloor applies the workload once and times it. */
export async function runRawFloor(options: RawFloorOptions): Promise<RawFloorResult> {
  const api = KubernetesObjectApi.makeApiClient(options.kubeConfig);
  // Resource discovery is cached by the client before the clock starts, as an operator's is.
  for (const kind of floorManifests('warmup', options.namespace, initialSpec('warmup'))) {
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
  const names = Array.from({ length: options.size }, (_, i) => crName(i));
  let applies = 0;
  const start = performance.now();
  await runLimited(names, options.concurrency, async (name) => {
    await Promise.all(
      floorManifests(name, options.namespace, initialSpec(name)).map(async (manifest) => {
        applies++;
        await api.patch(manifest, undefined, undefined, 'bench-floor', true, PatchStrategy.ServerSideApply);
      }),
    );
  });
  return { convergenceMs: performance.now() - start, applies };
}

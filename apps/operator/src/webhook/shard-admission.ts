import type { Katalog } from '@orkestra/types';
import { OrkestraLabel } from '@orkestra/types';
import { shardWebhookPath } from '../generate/admission-webhook.js';
import { isMap } from '../is-map.js';
import { ShardAssignment, shardedObjectOf } from '../sharding/assign.js';
import { objectKey } from '../sharding/ring.js';
import type { AdmissionHandler } from './admission.js';
import { jsonPatchOf, patchedResponse, reviewOf } from './json-patch.js';

/**
 * The shard-assignment webhook (docs/reference/runtime.md §25.2, ADR 0110): with `--sharding` every
 * replica answers `POST /shard/<plural>.<group>`, the CREATE of a CR without the
 * `orkestra.konductor.io/shard` label, with a JSONPatch that sets the label to the ring's choice
 * among the live shards as this replica's ShardLeaseWatch sees them: the sharder's own decision
 * (`ShardAssignment.decide` on the same `objectKey`), made before the object is stored, so the CR
 * needs no label patch and its shard's informer sees it in its first event. Whatever it cannot
 * decide it admits unchanged and leaves to the sharder: no live shard yet, a CR without a name (a
 * CREATE by `generateName` is named after mutating admission, and the ring key needs the name), a
 * label already set, a namespace this replica's shards do not watch.
 */

type Json = Record<string, unknown>;

/** ShardLiveSource tells the webhook which shards are alive now (undefined until the Lease watch has listed). */
export type ShardLiveSource = () => readonly string[] | undefined;

/** ShardAdmissionOptions configures createShardAdmissionHandler. */
export interface ShardAdmissionOptions {
  /** The live shard IDs as this replica sees them (`ShardMember.liveShards`). */
  readonly live: ShardLiveSource;
  /** The one namespace the shards watch (`watchNamespace`), if any: CRs elsewhere are left alone. */
  readonly namespace?: string | undefined;
  /** Called once per review with what it did, for logs and tests. */
  readonly onReview?: (review: { readonly path: string; readonly shard: string | undefined }) => void;
}

interface ShardRoute {
  readonly group: string;
  readonly kind: string;
  readonly namespaced: boolean;
}

/**
 * createShardAdmissionHandler builds the `/shard/…` routes of a Katalog's enabled entries.
 *
 * @example
 * const handler = createShardAdmissionHandler(katalog, { live: () => member.liveShards() });
 * await handler('/shard/websites.shop.example.com', review); // { response: { patch, … } } or admits unchanged
 */
export function createShardAdmissionHandler(
  katalog: Katalog,
  options: ShardAdmissionOptions,
): AdmissionHandler {
  const routes = new Map<string, ShardRoute>();
  for (const entry of Object.values(katalog.spec.crds))
    if (entry.enabled)
      routes.set(shardWebhookPath(entry), {
        group: entry.apiTypes.group,
        kind: entry.apiTypes.kind,
        namespaced: entry.namespaced,
      });
  // One ring per live set, rebuilt when it changes. A key is reviewed once (at its CREATE), so its
  // hash is not kept (`decideShard` forgets it), unlike the sharder's, which sees a key again.
  const hashes = new Map<string, number>();
  let assignment = new ShardAssignment([], hashes);
  let liveText = '';
  const assignmentFor = (live: readonly string[]): ShardAssignment => {
    const text = [...live].sort().join(',');
    if (text !== liveText) {
      liveText = text;
      assignment = new ShardAssignment(live, hashes);
    }
    return assignment;
  };
  return (path, review) => {
    const route = routes.get(path);
    if (route == null) return Promise.resolve(undefined);
    const { request, answer } = reviewOf(review);
    const shard = decideShard(route, request, options, assignmentFor);
    hashes.clear();
    options.onReview?.({ path, shard: shard?.shard });
    return Promise.resolve(answer(shard == null ? { allowed: true } : patchedResponse(shard.ops)));
  };
}

/** decideShard is the label patch of one review, or undefined to admit the object unchanged. */
function decideShard(
  route: ShardRoute,
  request: Json,
  options: ShardAdmissionOptions,
  assignmentFor: (live: readonly string[]) => ShardAssignment,
): { shard: string; ops: ReturnType<typeof jsonPatchOf> } | undefined {
  if (request['operation'] !== 'CREATE') return undefined;
  const object = request['object'];
  if (!isMap(object)) return undefined;
  const metadata = isMap(object['metadata']) ? object['metadata'] : {};
  const name = typeof metadata['name'] === 'string' ? metadata['name'] : '';
  // generateName: the API server names the object after mutating admission; the sharder assigns it.
  if (name === '') return undefined;
  const labels = isMap(metadata['labels']) ? (metadata['labels'] as Record<string, string>) : {};
  const current = labels[OrkestraLabel.Shard];
  if (current != null && current !== '') return undefined;
  const namespace = route.namespaced
    ? typeof metadata['namespace'] === 'string' && metadata['namespace'] !== ''
      ? metadata['namespace']
      : typeof request['namespace'] === 'string'
        ? request['namespace']
        : ''
    : undefined;
  if (route.namespaced && options.namespace != null && namespace !== options.namespace) return undefined;
  const live = options.live();
  if (live == null || live.length === 0) return undefined;
  const key = objectKey({ group: route.group, kind: route.kind, namespace, name });
  const action = assignmentFor(live).decide(shardedObjectOf(key, { labels }));
  if (action.action !== 'assign') return undefined;
  const ops = jsonPatchOf(object, { metadata: { labels: action.labels } });
  return ops.length === 0 ? undefined : { shard: action.shard, ops };
}

import { ExternalCaller } from '@orkestra/reconciler';
import type { KubeClient, KubeObject } from '@orkestra/registry';
import { createAdmissionJudge } from '@orkestra/reconciler/offline';
import type { AdmissionJudge, AdmissionVerdict, JudgeCalls } from '@orkestra/reconciler/offline';
import { readsCalls } from '@orkestra/types';
import type { CrdEntry, Katalog } from '@orkestra/types';
import { mutationReads, planAdmission, readsExternal, webhookPath } from '../generate/admission.js';
import { isMap } from '../is-map.js';
import { jsonPatchOf, patchedResponse, reviewOf } from './json-patch.js';

/**
 * The admission webhook's verdicts (docs/reference/katalog.md §12, ADR 0089): `POST
 * /validate/<plural>.<group>/<deny|warn>` answers an AdmissionReview (admission.k8s.io/v1) with the
 * reconcile's own verdict on the rules planAdmission gives the webhook (createAdmissionJudge runs
 * steps 6–8 of the pipeline on the object). A deny path refuses with the failed rules' messages; a
 * warn path admits with them as `warnings`, which kubectl prints. `POST /mutate/<plural>.<group>`
 * answers with a JSONPatch of the reconcile's own step 7 (`planMutation` through the judge) on the
 * rules planAdmission gives the mutating webhook (ADR 0092), so the stored object carries the
 * overrides and templated defaults before any validation judges it.
 */

type Json = Record<string, unknown>;

/** AdmissionRoute is what one path judges. */
interface AdmissionRoute {
  readonly entry: string;
  readonly action: 'deny' | 'warn';
  readonly rules: ReadonlySet<number>;
  /** The kind, when a rule compares with the entry's other CRs (`unique`), and the one namespace the runtime watches, if pinned. */
  readonly list?: { readonly apiVersion: string; readonly kind: string; readonly namespace?: string };
  /** Some rule reads `validation.external` results: the entry's calls are made first (ADR 0093). */
  readonly calls: boolean;
}

/**
 * EXTERNAL_CALLS_TIMEOUT_MS bounds the `validation.external` calls of one review (ADR 0093): well
 * under the webhook's 5 s, so the API server gets the verdict (or the failure) before it gives up.
 */
const EXTERNAL_CALLS_TIMEOUT_MS = 3000;

/** AdmissionCalls is how the webhook makes `validation.external` calls: the caller (its address guard) and the bound. */
export interface AdmissionCalls {
  readonly caller: Pick<ExternalCaller, 'runAll'>;
  /** Default EXTERNAL_CALLS_TIMEOUT_MS. */
  readonly timeoutMs?: number;
}

/** MutationRoute is what one `/mutate/…` path applies: an entry's mutation rules by index. */
interface MutationRoute {
  readonly entry: string;
  readonly rules: ReadonlySet<number>;
  /** Some rule reads `metadata`, which a CREATE by `generateName` does not have complete yet. */
  readonly readsMetadata: boolean;
  /** Some rule reads a `mutation.external` answer: the entry's calls are made first (ADR 0112). */
  readonly calls: boolean;
}

/** AdmissionHandler answers the review of one path, or undefined for a path it does not serve. */
export type AdmissionHandler = (path: string, review: unknown) => Promise<Json | undefined>;

/**
 * pinnedOf is the one namespace the runtime's informers watch for an entry (`allowedNamespaces` one
 * exact name, not restricted: docs/reference/katalog.md §19), where its RBAC may be a Role only.
 */
function pinnedOf(entry: CrdEntry): { namespace?: string } {
  const allowed = entry.allowedNamespaces ?? [];
  const only = allowed.length === 1 ? allowed[0] : undefined;
  if (!entry.namespaced || only == null || only.includes('*')) return {};
  return (entry.restrictedNamespaces ?? []).includes(only) ? {} : { namespace: only };
}

/** createAdmissionHandler builds the routes of a Katalog's webhook rules; `client` lists CRs for `unique`. */
export function createAdmissionHandler(
  katalog: Katalog,
  client: Pick<KubeClient, 'list'>,
  options: { readonly judge?: AdmissionJudge; readonly calls?: AdmissionCalls } = {},
): AdmissionHandler {
  const routes = new Map<string, AdmissionRoute>();
  const mutations = new Map<string, MutationRoute>();
  for (const [name, entry] of Object.entries(katalog.spec.crds)) {
    if (!entry.enabled) continue;
    const plan = planAdmission(entry).webhook;
    if (plan.mutate.length > 0) {
      const rules = entry.mutation?.rules ?? [];
      mutations.set(webhookPath(entry, 'mutate'), {
        entry: name,
        rules: new Set(plan.mutate),
        readsMetadata: plan.mutate.some((i) => {
          const rule = rules[i];
          return rule != null && mutationReads(rule, 'metadata');
        }),
        calls: plan.mutate.some((i) => {
          const rule = rules[i];
          return rule != null && readsCalls(rule, entry.mutation?.external).length > 0;
        }),
      });
    }
    for (const path of ['deny', 'warn', 'deny-versions'] as const) {
      // `deny-versions` judges CRD rules on requests at the versions their schema cannot carry (ADR 0102).
      const indexes = path === 'deny-versions' ? plan.denyAt : plan[path];
      const action = path === 'warn' ? 'warn' : 'deny';
      if (indexes.length === 0) continue;
      const unique = indexes.some((i) => {
        const condition = entry.validation?.rules[i]?.condition;
        return condition != null && 'operator' in condition && condition.operator === 'unique';
      });
      const { group, version, kind } = entry.apiTypes;
      const rules = entry.validation?.rules ?? [];
      routes.set(webhookPath(entry, path), {
        entry: name,
        action,
        rules: new Set(indexes),
        calls: indexes.some((i) => {
          const rule = rules[i];
          return rule != null && readsExternal(rule);
        }),
        ...(unique ? { list: { apiVersion: `${group}/${version}`, kind, ...pinnedOf(entry) } } : {}),
      });
    }
  }
  const judge =
    options.judge ?? (routes.size + mutations.size > 0 ? createAdmissionJudge(katalog) : undefined);
  // The default caller has the address guard's defaults and reads no Secret; the endpoint passes the operator's.
  let caller = options.calls?.caller;
  const callsTimeoutMs = options.calls?.timeoutMs ?? EXTERNAL_CALLS_TIMEOUT_MS;
  return async (path, review) => {
    const mutation = mutations.get(path);
    const route = routes.get(path);
    if ((route == null && mutation == null) || judge == null) return undefined;
    const { request, answer } = reviewOf(review);
    const object = request['object'];
    if (!isMap(object)) return answer({ allowed: true });
    if (mutation != null) {
      const calls = mutation.calls
        ? { caller: (caller ??= new ExternalCaller()), signal: AbortSignal.timeout(callsTimeoutMs) }
        : undefined;
      return answer(await mutate(judge, mutation, object, calls));
    }
    if (route == null) return undefined;
    let verdict: AdmissionVerdict | undefined;
    try {
      const list = route.list;
      const others: readonly KubeObject[] =
        list == null
          ? []
          : (
              await client.list(
                { apiVersion: list.apiVersion, kind: list.kind },
                list.namespace == null ? {} : { namespace: list.namespace },
              )
            ).items;
      const judgeOptions = { rules: route.rules, others: () => others };
      verdict = route.calls
        ? await judge.judgeWithCalls(
            route.entry,
            object as unknown as KubeObject,
            { caller: (caller ??= new ExternalCaller()), signal: AbortSignal.timeout(callsTimeoutMs) },
            judgeOptions,
          )
        : judge.judge(route.entry, object as unknown as KubeObject, judgeOptions);
    } catch (error) {
      // As the failurePolicy of the path: a deny rule that cannot be judged refuses, a warn rule says so.
      const message = `cannot judge ${route.entry}'s validation rules: ${error instanceof Error ? error.message : String(error)}`;
      return route.action === 'deny'
        ? answer({ allowed: false, status: { code: 500, reason: 'InternalError', message } })
        : answer({ allowed: true, warnings: [message] });
    }
    if (verdict == null) return answer({ allowed: true });
    if (route.action === 'deny' && verdict.denied.length > 0)
      return answer({
        allowed: false,
        status: { code: 403, reason: 'Forbidden', message: verdict.denied.join('; ') },
      });
    return answer({
      allowed: true,
      ...(verdict.warnings.length > 0 ? { warnings: [...verdict.warnings] } : {}),
    });
  };
}

/**
 * mutate is the response of a `/mutate/…` review: the reconcile's mutation of the object as a
 * JSONPatch. A CREATE by `generateName` has no name yet (the API server sets it after mutating
 * admission): when a rule reads `metadata`, its mutations are left to the reconcile, which sees
 * the name, and a warning says so.
 * A value that cannot be converted to its `valueType` refuses the object with the reconcile's
 * message (the reconcile would turn the CR `Ready=False` for it).
 */
async function mutate(
  judge: AdmissionJudge,
  route: MutationRoute,
  object: Json,
  calls: JudgeCalls | undefined,
): Promise<Json> {
  const metadata = isMap(object['metadata']) ? object['metadata'] : {};
  if (route.readsMetadata && (typeof metadata['name'] !== 'string' || metadata['name'] === ''))
    return {
      allowed: true,
      warnings: [
        `${route.entry}: mutation rules are applied by the operator once the API server has named the object`,
      ],
    };
  let changes: Readonly<Record<string, unknown>> | undefined;
  let calling = false;
  try {
    const cr = object as unknown as KubeObject;
    const options = { rules: route.rules };
    if (calls == null) changes = judge.mutate(route.entry, cr, options);
    else {
      calling = true;
      changes = await judge.mutateWithCalls(route.entry, cr, calls, options);
    }
  } catch (error) {
    const message = `cannot apply ${route.entry}'s mutation rules: ${error instanceof Error ? error.message : String(error)}`;
    // A value its valueType cannot hold is the object's fault (422); a failed mutation.external
    // call is the webhook's (500): with failurePolicy Fail, nothing is stored unmutated (ADR 0112).
    const failedCall = calling && (error as { code?: unknown }).code === 'ExternalCallFailed';
    return failedCall
      ? { allowed: false, status: { code: 500, reason: 'InternalError', message } }
      : { allowed: false, status: { code: 422, reason: 'Invalid', message } };
  }
  const ops = changes == null ? [] : jsonPatchOf(object, { spec: changes });
  return ops.length === 0 ? { allowed: true } : patchedResponse(ops);
}

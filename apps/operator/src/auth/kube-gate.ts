/**
 * The operator's one request gate for its HTTP listeners (docs/reference/runtime.md §18.5,
 * docs/adr/0030): a caller presents a Kubernetes bearer token; a TokenReview with this listener's
 * audience says who it is, a SubjectAccessReview says whether it may act on a resource. Answers are
 * cached for a short while (injected clock) so a busy peer does not review on every request. The
 * cross-read port (`orkestra-cross`) and the Control Center's token mode (`orkestra-control-center`)
 * share it; each listener has its own audience, so a token minted for one is refused by the other.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { KubeClient } from '@orkestra/registry';

/** GateAudience names the audiences the operator's listeners accept tokens for. */
export const GateAudience = {
  Cross: 'orkestra-cross',
  ControlCenter: 'orkestra-control-center',
} as const;
export type GateAudience = (typeof GateAudience)[keyof typeof GateAudience];

/** ReviewedUser is who a TokenReview said the token belongs to. */
export interface ReviewedUser {
  readonly username: string;
  readonly groups: readonly string[];
  readonly uid?: string;
}

/** AccessAttributes are the resource attributes of one SubjectAccessReview. */
export interface AccessAttributes {
  readonly verb: string;
  readonly group: string;
  readonly resource: string;
  /** `''` = all namespaces / cluster-scoped. */
  readonly namespace: string;
  /** One object's name (reviews of `get`); absent for `list`. */
  readonly name?: string;
}

/** ReviewApi is the part of the API server the gate talks to. */
export interface ReviewApi {
  /** Returns the user when the API server authenticates the token for one of `audiences`. */
  tokenReview(token: string, audiences: readonly string[]): Promise<{ readonly user?: ReviewedUser }>;
  /** Returns whether the user may act as the attributes say. */
  accessReview(input: ReviewedUser & AccessAttributes): Promise<boolean>;
}

/** ReviewStatus is the part of a TokenReview's and a SubjectAccessReview's status the gate reads. */
interface ReviewStatus {
  readonly authenticated?: boolean;
  readonly allowed?: boolean;
  readonly audiences?: readonly string[];
  readonly user?: { readonly username?: string; readonly groups?: string[]; readonly uid?: string };
}

/**
 * kubeReviewApi sends TokenReviews and SubjectAccessReviews with the operator's credentials,
 * through its one counted client (ADR 0035).
 */
export function kubeReviewApi(client: Pick<KubeClient, 'create'>): ReviewApi {
  const create = async (body: Record<string, unknown>): Promise<ReviewStatus | undefined> =>
    (await client.create({ ...body, metadata: {} } as Parameters<KubeClient['create']>[0]))['status'] as
      ReviewStatus | undefined;
  return {
    tokenReview: async (token, audiences) => {
      const status = await create({
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenReview',
        spec: { token, audiences: [...audiences] },
      });
      if (status?.authenticated !== true || status.user?.username == null) return {};
      // The API server answers with the audiences the token is valid for; none of ours = refused.
      const granted = status.audiences ?? [];
      if (!granted.some((audience) => audiences.includes(audience))) return {};
      return {
        user: {
          username: status.user.username,
          groups: status.user.groups ?? [],
          ...(status.user.uid == null ? {} : { uid: status.user.uid }),
        },
      };
    },
    accessReview: async (input) => {
      const status = await create({
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: {
          user: input.username,
          groups: [...input.groups],
          ...(input.uid == null ? {} : { uid: input.uid }),
          resourceAttributes: {
            verb: input.verb,
            group: input.group,
            resource: input.resource,
            ...(input.namespace === '' ? {} : { namespace: input.namespace }),
            ...(input.name == null ? {} : { name: input.name }),
          },
        },
      });
      return status?.allowed === true;
    },
  };
}

/** Authenticated is a reviewed caller; `key` identifies its token in the gate's cache. */
export interface Authenticated {
  readonly ok: true;
  readonly user: ReviewedUser;
  readonly key: string;
}

/** Refused is the HTTP status and message to answer a request the gate refuses. */
export interface Refused {
  readonly ok: false;
  readonly status: 401 | 403;
  readonly message: string;
}

/** KubeGate authenticates requests and authorizes what they ask. */
export interface KubeGate {
  /** Reviews the request's bearer token: 401 without one, or when it is not accepted for the audience. */
  authenticate(request: IncomingMessage): Promise<Authenticated | Refused>;
  /** Asks (cached) whether the caller may act as the attributes say; a failed review is false. */
  allowed(caller: Authenticated, attributes: AccessAttributes): Promise<boolean>;
}

/** CreateKubeGateOptions configures createKubeGate. */
export interface CreateKubeGateOptions {
  readonly reviews: ReviewApi;
  /** The audience tokens must be bound to (GateAudience). */
  readonly audience: string;
  /** How long a review answer is reused, ms. Default 30 000. */
  readonly cacheMs?: number;
  /** Clock, epoch ms. Default Date.now. */
  readonly now?: () => number;
  /** Largest number of cached answers. Default 10 000. */
  readonly maxEntries?: number;
}

/** bearerToken returns the token of `Authorization: Bearer <token>`, or undefined. */
export function bearerToken(request: IncomingMessage): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  return match?.[1];
}

/**
 * createKubeGate returns the gate for one audience.
 *
 * @example
 * const gate = createKubeGate({ reviews: kubeReviewApi(client), audience: GateAudience.Cross });
 * const caller = await gate.authenticate(request);
 * if (caller.ok && (await gate.allowed(caller, { verb: 'get', group, resource, namespace, name }))) serve();
 */
export function createKubeGate(options: CreateKubeGateOptions): KubeGate {
  const cacheMs = options.cacheMs ?? 30_000;
  const now = options.now ?? Date.now;
  const maxEntries = options.maxEntries ?? 10_000;
  const audiences = [options.audience];
  const cache = new Map<string, { at: number; value: Promise<unknown> }>();
  const cached = <T>(key: string, make: () => Promise<T>): Promise<T> => {
    const hit = cache.get(key);
    if (hit != null && now() - hit.at < cacheMs) return hit.value as Promise<T>;
    const value = make();
    // A failed review is not remembered: the next request asks again.
    value.catch(() => {
      if (cache.get(key)?.value === value) cache.delete(key);
    });
    cache.delete(key);
    cache.set(key, { at: now(), value });
    if (cache.size > maxEntries) cache.delete(cache.keys().next().value ?? '');
    return value;
  };
  return {
    authenticate: async (request) => {
      const token = bearerToken(request);
      if (token == null) {
        return {
          ok: false,
          status: 401,
          message: 'a bearer token is required (Authorization: Bearer <token>)',
        };
      }
      const key = createHash('sha256').update(token).digest('hex');
      let user: ReviewedUser | undefined;
      try {
        user = (await cached(`t:${key}`, () => options.reviews.tokenReview(token, audiences))).user;
      } catch {
        return { ok: false, status: 401, message: 'the token could not be reviewed' };
      }
      if (user == null) {
        return {
          ok: false,
          status: 401,
          message: `the token was not accepted (it needs the audience ${options.audience})`,
        };
      }
      return { ok: true, user, key };
    },
    allowed: (caller, attributes) => {
      const { verb, group, resource, namespace, name } = attributes;
      return cached(`a:${caller.key}:${verb}:${group}/${resource}/${namespace}/${name ?? ''}`, () =>
        options.reviews.accessReview({ ...caller.user, ...attributes }),
      ).catch(() => false);
    },
  };
}

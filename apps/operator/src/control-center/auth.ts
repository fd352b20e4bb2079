/**
 * The Control Center's viewer gate (docs/reference/runtime.md §23.4, docs/adr/0016): without
 * `--control-center-auth=token` only loopback clients are served; with it every API request needs
 * a bearer token that a TokenReview accepts, and each namespace is shown only when a
 * SubjectAccessReview allows `list` on the entry's CRs there. Answers are cached for a short while
 * so an open page does not review on every update.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { KubeClient } from '@orkestra/registry';

/** ControlCenterAuth is the closed set of `--control-center-auth` values. */
export const ControlCenterAuth = { Local: 'local', Token: 'token' } as const;
export type ControlCenterAuth = (typeof ControlCenterAuth)[keyof typeof ControlCenterAuth];

/** Viewer is who asks: may they see CRs of this resource in this namespace (`''` = all namespaces / cluster-scoped)? */
export interface Viewer {
  readonly name: string;
  may(resource: { group: string; plural: string }, namespace: string): Promise<boolean>;
}

/** GateResult is a viewer, or the HTTP status and message to answer with. */
export type GateResult =
  | { readonly ok: true; readonly viewer: Viewer }
  | { readonly ok: false; readonly status: 401 | 403; readonly message: string };

/** ReviewApi is the part of the API server the gate talks to. */
export interface ReviewApi {
  /** Returns the username when the token is authenticated. */
  tokenReview(token: string): Promise<{
    readonly user?: { readonly username: string; readonly groups: readonly string[]; readonly uid?: string };
  }>;
  /** Returns whether the user may `verb` the resource in the namespace. */
  accessReview(input: {
    readonly user: string;
    readonly groups: readonly string[];
    readonly uid?: string;
    readonly verb: string;
    readonly group: string;
    readonly resource: string;
    readonly namespace: string;
  }): Promise<boolean>;
}

/** ReviewStatus is the part of a TokenReview's and a SubjectAccessReview's status the gate reads. */
interface ReviewStatus {
  readonly authenticated?: boolean;
  readonly allowed?: boolean;
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
    tokenReview: async (token) => {
      const status = await create({
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenReview',
        spec: { token },
      });
      if (status?.authenticated !== true || status.user?.username == null) return {};
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
          user: input.user,
          groups: [...input.groups],
          ...(input.uid == null ? {} : { uid: input.uid }),
          resourceAttributes: {
            verb: input.verb,
            group: input.group,
            resource: input.resource,
            ...(input.namespace === '' ? {} : { namespace: input.namespace }),
          },
        },
      });
      return status?.allowed === true;
    },
  };
}

function isLoopback(address: string | undefined): boolean {
  return address === '127.0.0.1' || address === '::1' || address === '::ffff:127.0.0.1';
}

const fullAccess: Viewer = { name: 'local', may: () => Promise.resolve(true) };

/** CreateGateOptions configures createGate. */
export interface CreateGateOptions {
  readonly mode: ControlCenterAuth;
  /** Needed in token mode. */
  readonly reviews?: ReviewApi;
  /** How long a review answer is reused, ms. Default 30 000. */
  readonly cacheMs?: number;
  readonly now?: () => number;
}

/**
 * createGate returns the function that decides who a request is. Local mode: loopback clients
 * see everything, others get 403. Token mode: `Authorization: Bearer <token>` is reviewed; no
 * token or a rejected one is 401; the viewer's `may` asks a SubjectAccessReview (`list`).
 */
export function createGate(options: CreateGateOptions): (request: IncomingMessage) => Promise<GateResult> {
  const cacheMs = options.cacheMs ?? 30_000;
  const now = options.now ?? Date.now;
  const cache = new Map<string, { at: number; value: Promise<unknown> }>();
  const cached = <T>(key: string, make: () => Promise<T>): Promise<T> => {
    const hit = cache.get(key);
    if (hit != null && now() - hit.at < cacheMs) return hit.value as Promise<T>;
    const value = make();
    value.catch(() => cache.delete(key));
    cache.set(key, { at: now(), value });
    if (cache.size > 10_000) cache.delete(cache.keys().next().value ?? '');
    return value;
  };
  return async (request) => {
    if (options.mode === ControlCenterAuth.Local) {
      return isLoopback(request.socket.remoteAddress)
        ? { ok: true, viewer: fullAccess }
        : {
            ok: false,
            status: 403,
            message:
              'the Control Center serves loopback clients only (set --control-center-auth=token to expose it)',
          };
    }
    const reviews = options.reviews;
    const header = request.headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (reviews == null || match?.[1] == null) {
      return {
        ok: false,
        status: 401,
        message: 'a bearer token is required (Authorization: Bearer <token>)',
      };
    }
    const token = match[1];
    const tokenKey = createHash('sha256').update(token).digest('hex');
    let user;
    try {
      user = (await cached(`t:${tokenKey}`, () => reviews.tokenReview(token))).user;
    } catch {
      return { ok: false, status: 401, message: 'the token could not be reviewed' };
    }
    if (user == null) return { ok: false, status: 401, message: 'the token was not accepted' };
    const viewer: Viewer = {
      name: user.username,
      may: async (resource, namespace) => {
        const ask = (ns: string): Promise<boolean> =>
          cached(`a:${tokenKey}:${resource.group}/${resource.plural}/${ns}`, () =>
            reviews.accessReview({
              user: user.username,
              groups: user.groups,
              ...(user.uid == null ? {} : { uid: user.uid }),
              verb: 'list',
              group: resource.group,
              resource: resource.plural,
              namespace: ns,
            }),
          ).catch(() => false);
        if (await ask('')) return true;
        return namespace === '' ? false : ask(namespace);
      },
    };
    return { ok: true, viewer };
  };
}

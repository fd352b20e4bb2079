/**
 * The Control Center's viewer gate (docs/reference/runtime.md §23.4, docs/adr/0016): without
 * `--control-center-auth=token` only loopback clients are served; with it every API request needs
 * a bearer token that a TokenReview accepts, and each namespace is shown only when a
 * SubjectAccessReview allows `list` on the entry's CRs there. Answers are cached for a short while
 * so an open page does not review on every update.
 */
import type { IncomingMessage } from 'node:http';
import { GateAudience, createKubeGate } from '../auth/kube-gate.js';
import type { ReviewApi, ReviewedUser } from '../auth/kube-gate.js';

/** ControlCenterAuth is the closed set of `--control-center-auth` values. */
export const ControlCenterAuth = { Local: 'local', Token: 'token' } as const;
export type ControlCenterAuth = (typeof ControlCenterAuth)[keyof typeof ControlCenterAuth];

/** Viewer is who asks: may they see CRs of this resource in this namespace (`''` = all namespaces / cluster-scoped)? */
export interface Viewer {
  readonly name: string;
  /** The reviewed user (token mode); upstreams are asked on its behalf (impersonation), never with its token. */
  readonly user?: ReviewedUser;
  may(resource: { group: string; plural: string }, namespace: string): Promise<boolean>;
}

/** GateResult is a viewer, or the HTTP status and message to answer with. */
export type GateResult =
  | { readonly ok: true; readonly viewer: Viewer }
  | { readonly ok: false; readonly status: 401 | 403; readonly message: string };

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
  const kube =
    options.reviews == null
      ? undefined
      : createKubeGate({
          reviews: options.reviews,
          audience: GateAudience.ControlCenter,
          ...(options.cacheMs == null ? {} : { cacheMs: options.cacheMs }),
          ...(options.now == null ? {} : { now: options.now }),
        });
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
    if (kube == null) return { ok: false, status: 401, message: 'token mode has no review API' };
    const caller = await kube.authenticate(request);
    if (!caller.ok) return caller;
    const viewer: Viewer = {
      name: caller.user.username,
      user: caller.user,
      may: async (resource, namespace) => {
        const ask = (ns: string): Promise<boolean> =>
          kube.allowed(caller, {
            verb: 'list',
            group: resource.group,
            resource: resource.plural,
            namespace: ns,
          });
        if (await ask('')) return true;
        return namespace === '' ? false : ask(namespace);
      },
    };
    return { ok: true, viewer };
  };
}

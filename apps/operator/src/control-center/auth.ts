/**
 * The Control Center's viewer gate (docs/reference/runtime.md §23.4, docs/adr/0016, 0031): without
 * `--control-center-auth=token` only loopback clients holding the per-process token (URL, then an
 * HttpOnly SameSite=Strict cookie) are served; with it every API request needs
 * a bearer token that a TokenReview accepts, and each namespace is shown only when a
 * SubjectAccessReview allows `list` on the entry's CRs there. Answers are cached for a short while
 * so an open page does not review on every update.
 */
import { createHash, randomBytes as cryptoRandomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { GateAudience, bearerToken, createKubeGate } from '../auth/kube-gate.js';
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

/** LOCAL_SESSION_COOKIE is the cookie that carries the local-mode token after the URL exchange. */
export const LOCAL_SESSION_COOKIE = 'orkestra-cc';

/** newLocalToken returns a per-process random token for local mode (32 random bytes, base64url). */
export function newLocalToken(randomBytes: (size: number) => Uint8Array = cryptoRandomBytes): string {
  return Buffer.from(randomBytes(32)).toString('base64url');
}

/** sameToken compares two tokens in constant time. */
export function sameToken(given: string | undefined, expected: string): boolean {
  if (given == null) return false;
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** cookieValue reads one cookie of the request. */
function cookieValue(request: IncomingMessage, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

/** CreateGateOptions configures createGate. */
export interface CreateGateOptions {
  readonly mode: ControlCenterAuth;
  /** Local mode: the per-process token (newLocalToken), in the cookie or `Authorization: Bearer`. */
  readonly localToken?: string;
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
      if (!isLoopback(request.socket.remoteAddress))
        return {
          ok: false,
          status: 403,
          message:
            'the Control Center serves loopback clients only (set --control-center-auth=token to expose it)',
        };
      // Loopback alone is not trusted (any local process, or the operator's own outbound calls).
      const local = options.localToken;
      const presented = cookieValue(request, LOCAL_SESSION_COOKIE) ?? bearerToken(request);
      if (local == null || !sameToken(presented, local))
        return {
          ok: false,
          status: 401,
          message: "open the Control Center with the URL ork printed (it carries this process's token)",
        };
      return { ok: true, viewer: fullAccess };
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

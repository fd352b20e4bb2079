/**
 * Who may read a CR over the cross-read port (docs/reference/runtime.md §18.5, docs/adr/0030): a
 * caller whose bearer token a TokenReview accepts for the `orkestra-cross` audience, and whom a
 * SubjectAccessReview allows `get` on the entry's resource, that object, in that namespace (or, for the
 * Live API's lists and summaries, `list` on the resource, runtime.md §18.6).
 */
import { readFile } from 'node:fs/promises';
import type { CrossAuthorize } from '@orkestra/reconciler';
import type { KubeGate } from './kube-gate.js';

/**
 * crossAuthorizer returns the cross handler's check. Without a gate (`--cross-auth=none`, which the
 * configuration allows only on a loopback address) every request is let through.
 *
 * @example
 * const authorize = crossAuthorizer(createKubeGate({ reviews, audience: GateAudience.Cross }));
 */
export function crossAuthorizer(gate: KubeGate | undefined): CrossAuthorize {
  return async (request, target) => {
    if (gate == null) return { ok: true };
    const caller = await gate.authenticate(request);
    if (!caller.ok) return caller;
    if (target == null) return { ok: true };
    const namespace = target.namespace ?? '';
    const verb = target.verb ?? 'get';
    const allowed = await gate.allowed(caller, {
      verb,
      group: target.group,
      resource: target.plural,
      namespace,
      ...(verb === 'get' ? { name: target.name } : {}),
    });
    if (allowed) return { ok: true };
    const what = `${target.plural}${target.group === '' ? '' : `.${target.group}`}`;
    return {
      ok: false,
      status: 403,
      message: `${caller.user.username} may not ${verb} ${what}${verb === 'get' ? ` ${target.name}` : ''}${namespace === '' ? '' : ` in ${namespace}`}`,
    };
  };
}

/** TokenFileOptions configures tokenFileReader. */
export interface TokenFileOptions {
  /** Re-read the file after this long, ms (the kubelet rotates projected tokens). Default 60 000. */
  readonly refreshMs?: number;
  readonly now?: () => number;
  readonly read?: (path: string) => Promise<string>;
}

/**
 * tokenFileReader returns a function that reads a projected ServiceAccount token, re-read once per
 * `refreshMs`. A missing or empty file is undefined (no token is sent), checked again next time.
 */
export function tokenFileReader(
  path: string,
  options: TokenFileOptions = {},
): () => Promise<string | undefined> {
  const refreshMs = options.refreshMs ?? 60_000;
  const now = options.now ?? Date.now;
  const read = options.read ?? ((file: string) => readFile(file, 'utf8'));
  let last: { at: number; token: string | undefined } | undefined;
  return async () => {
    if (last != null && now() - last.at < refreshMs) return last.token;
    let token: string | undefined;
    try {
      const text = (await read(path)).trim();
      token = text === '' ? undefined : text;
    } catch {
      token = undefined;
    }
    last = { at: now(), token };
    return token;
  };
}

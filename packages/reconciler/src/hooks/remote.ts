/**
 * The call of a remote reconciler (docs/reference/katalog.md §15.3, docs/reference/runtime.md §14.8,
 * docs/adr/0046-remote-reconciler-is-a-hook.md): one POST of upstream's `PreparedRequest` through the
 * address guard (literal addresses before connecting, resolved ones at connect time), a timeout
 * per attempt, a 1 MiB answer limit, and retries with doubling backoff of the failures a retry may
 * cure (no answer, a timeout, 429, 5xx). Never throws: the outcome says what went wrong, with
 * credentials in the URL redacted, for the `RemoteReconcileFailed` condition.
 */
import { systemClock } from '../clock.js';
import type { Clock } from '../clock.js';
import { redactUrlCredentials } from '../redact-url.js';
import { AddressGuard, BlockedAddressError } from './address-guard.js';
import type { ResolveHost } from './address-guard.js';
import { createDeadline } from './deadline.js';
import { MIB, describeError, sendHttpRequest } from './http-request.js';

/** RemoteCall is one rendered call: where, what and how long. */
export interface RemoteCall {
  readonly url: string;
  /** The JSON request body (upstream's PreparedRequest). */
  readonly body: unknown;
  /** Extra headers (a credential); `content-type` and `accept` are set here. */
  readonly headers: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  /** Attempts in all (at least 1). */
  readonly attempts: number;
}

/** RemoteCallOutcome is the service's JSON answer, or why there is none. */
export type RemoteCallOutcome =
  | { readonly ok: true; readonly answer: unknown; readonly attempts: number; readonly url: string }
  | { readonly ok: false; readonly error: string; readonly attempts: number; readonly url: string };

/** RemoteReconcilerClientOptions configures the client; every field has a default. */
export interface RemoteReconcilerClientOptions {
  readonly clock?: Clock;
  readonly maxBodyBytes?: number;
  /** Allow link-local and cloud metadata addresses (`--allow-link-local`). Default false. */
  readonly allowLinkLocal?: boolean;
  /** CIDRs let through the address guard (`--allow-private-addresses`). Default none. */
  readonly allowAddresses?: readonly string[];
  /** Resolves hostnames for the address guard; tests inject a fake. Default `dns.lookup`. */
  readonly resolve?: ResolveHost;
  /** Wait before the second attempt; doubled for each later one. Default 200 ms. */
  readonly backoffMs?: number;
}

/** RemoteReconcilerClientStats counts the requests sent, cumulative. */
export interface RemoteReconcilerClientStats {
  readonly requests: number;
}

/** RETRIED_STATUS: answers a later attempt may cure. */
function retriedStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

/**
 * RemoteReconcilerClient sends remote reconcile calls; one per process.
 *
 * @example
 * const client = new RemoteReconcilerClient({ allowAddresses: ['10.0.0.0/8'] });
 * const outcome = await client.call({ url, body, headers: {}, timeoutMs: 30_000, attempts: 3 }, signal);
 */
export class RemoteReconcilerClient {
  readonly #clock: Clock;
  readonly #maxBodyBytes: number;
  readonly #guard: AddressGuard;
  readonly #backoffMs: number;
  #requests = 0;

  constructor(options: RemoteReconcilerClientOptions = {}) {
    this.#clock = options.clock ?? systemClock;
    this.#maxBodyBytes = options.maxBodyBytes ?? MIB;
    this.#backoffMs = options.backoffMs ?? 200;
    this.#guard = new AddressGuard({
      allowLinkLocal: options.allowLinkLocal ?? false,
      ...(options.allowAddresses == null ? {} : { allowAddresses: options.allowAddresses }),
      ...(options.resolve == null ? {} : { resolve: options.resolve }),
    });
  }

  stats(): RemoteReconcilerClientStats {
    return { requests: this.#requests };
  }

  /** call makes up to `call.attempts` attempts; `signal` is the reconcile's. */
  async call(call: RemoteCall, signal: AbortSignal): Promise<RemoteCallOutcome> {
    const shown = redactUrlCredentials(call.url);
    let target: URL;
    try {
      target = new URL(call.url);
      if (target.protocol !== 'http:' && target.protocol !== 'https:')
        throw new Error(`unsupported URL scheme ${target.protocol} (http or https only)`);
      // Literal addresses are checked here; hostnames after resolution, at connect time (lookup).
      this.#guard.precheck(target);
    } catch (error) {
      return { ok: false, error: `${shown}: ${describeError(error)}`, attempts: 0, url: shown };
    }
    const body = JSON.stringify(call.body);
    const attempts = Math.max(1, call.attempts);
    let last = '';
    for (let attempt = 1; attempt <= attempts; attempt++) {
      if (attempt > 1 && !(await this.#sleep(this.#backoffMs * 2 ** (attempt - 2), signal))) break;
      const timeoutText = `${call.timeoutMs / 1000}s`;
      const deadline = createDeadline(this.#clock, call.timeoutMs, `timed out after ${timeoutText}`, signal);
      let retry: boolean;
      try {
        this.#requests++;
        const response = await sendHttpRequest({
          url: target,
          method: 'POST',
          headers: { ...call.headers, 'content-type': 'application/json', accept: 'application/json' },
          body,
          signal: deadline.signal,
          maxBodyBytes: this.#maxBodyBytes,
          lookup: this.#guard.lookup,
        });
        if (response.status !== 200) {
          last = `answered status ${response.status}`;
          retry = retriedStatus(response.status);
        } else {
          try {
            return { ok: true, answer: JSON.parse(response.body) as unknown, attempts: attempt, url: shown };
          } catch {
            return {
              ok: false,
              error: `${shown} answered a body that is not JSON`,
              attempts: attempt,
              url: shown,
            };
          }
        }
      } catch (error) {
        last = describeError(error);
        retry = !signal.aborted && !(error instanceof BlockedAddressError);
      } finally {
        deadline.clear();
      }
      if (!retry) return { ok: false, error: `${shown} ${last}`, attempts: attempt, url: shown };
      if (attempt === attempts)
        return {
          ok: false,
          error: `${shown} ${last} (${attempts} attempt${attempts === 1 ? '' : 's'})`,
          attempts,
          url: shown,
        };
    }
    return { ok: false, error: `${shown} ${last || 'aborted'}`, attempts, url: shown };
  }

  #sleep(ms: number, signal: AbortSignal): Promise<boolean> {
    return new Promise((resolve) => {
      if (signal.aborted) {
        resolve(false);
        return;
      }
      const onAbort = (): void => {
        this.#clock.clearTimeout(timer);
        resolve(false);
      };
      const timer = this.#clock.setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve(true);
      }, ms);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}

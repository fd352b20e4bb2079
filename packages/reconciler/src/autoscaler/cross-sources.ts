/**
 * What autoscale conditions read under `cross.<name>.…` (docs/reference/katalog.md §18.2, ADR 0065),
 * once per autoscale interval for the entry:
 *
 * 1. `autoscale.sources` item with `as: <name>` (upstream's condition `source`): over HTTP;
 * 2. an entry of this Katalog named `<name>`: its own measurements, in process (`metrics.*`);
 * 3. the entry's own `cross` read named `<name>` (its `as`, else its `crd`) that reads a whole entry
 *    (`protocol` info, metrics or health, or a `url`) at a literal address: over HTTP.
 *
 * HTTP reads go through the process's cross read client: the address guard, the timeout and the
 * answer cache of every cross read. A bearer credential comes from `auth.env` (the operator's
 * environment) or `auth.secretRef`: the autoscaler reads for the entry, not a CR, so the Secret is
 * read in the operator's namespace unless `secretRef.namespace` names another (ADR 0079), through
 * the runtime's Secret reader (cached; the value is never put in a message, the decision or a log). A name none of these resolves, or a peer that does not answer,
 * leaves `cross.<name>` absent, so a condition on it does not pass (upstream's conservative rule),
 * and is reported in `unavailable`.
 */
import { katalogPathOf } from '@orkestra/types';
import type { AutoscaleSource, Condition, CrossRead } from '@orkestra/types';
import type { CrossHttpClient, CrossHttpDeclaration } from '../hooks/cross-http.js';
import { expandAddressEnv } from '../hooks/env-address.js';
import type { AutoscaleInputs } from './decide.js';

/** AutoscaleCrossRead is one interval's `cross` values and the names that could not be read, with why. */
export interface AutoscaleCrossRead {
  readonly values: Readonly<Record<string, unknown>>;
  readonly unavailable: readonly string[];
}

/** AutoscaleCrossOptions says where each name is read from. */
export interface AutoscaleCrossOptions {
  /** The gates of the entry's rules: the names they read are collected from their fields. */
  readonly rules: readonly { readonly when: readonly Condition[]; readonly anyOf: readonly Condition[] }[];
  readonly sources: readonly AutoscaleSource[];
  /** The entry's own `cross` reads. */
  readonly entryCross: readonly CrossRead[];
  /** Measurements of another entry of this Katalog, undefined when there is none by that name. */
  readonly local: (name: string) => (() => AutoscaleInputs) | undefined;
  readonly http: Pick<CrossHttpClient, 'read'>;
  /** The operator's environment, for `auth.env` and `$NAME` in an address (ADR 0098). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The operator's namespace: where an `auth.secretRef` without `namespace` is read. */
  readonly operatorNamespace: string;
  /** Resolves `auth.secretRef` in the namespace given (the runtime's `crossCredential`). Default: none (such a read is unavailable). */
  readonly credential?: (
    auth: SecretAuth,
    namespace: string,
  ) => Promise<{ readonly id: string; readonly value: string } | { readonly error: string }>;
}

/** SecretAuth is an `auth` that names a Secret. */
interface SecretAuth {
  readonly secretRef?: {
    readonly name: string;
    readonly key: string;
    readonly namespace?: string | undefined;
  };
}

/** crossNames returns the `<name>`s of every `cross.<name>.…` field the gates read. */
export function crossNames(rules: AutoscaleCrossOptions['rules']): string[] {
  const names = new Set<string>();
  for (const rule of rules)
    for (const condition of [...rule.when, ...rule.anyOf]) {
      if (!('field' in condition)) continue;
      const name = /^cross\.([^.]+)(\.|$)/.exec(condition.field)?.[1];
      if (name != null) names.add(name);
    }
  return [...names];
}

/** localMetrics is one entry's measurements under upstream's metric names. */
function localMetrics(inputs: AutoscaleInputs): Record<string, number> {
  return {
    queueDepth: inputs.depth,
    workers: inputs.workers,
    workersBusyPercent: inputs.busyPercent,
    workersIdlePercent: Math.max(0, 100 - inputs.busyPercent),
    errorRatePercent: inputs.errorRatePercent,
    reconcileDurationP95Ms: inputs.p95Ms,
  };
}

/** autoscaleCrossReader returns the reader the autoscaler calls before each tick; it never rejects. */
export function autoscaleCrossReader(options: AutoscaleCrossOptions): () => Promise<AutoscaleCrossRead> {
  const names = crossNames(options.rules);
  const plan = names.map((name) => ({ name, read: planOf(name, options) }));
  return async () => {
    const values: Record<string, unknown> = {};
    const unavailable: string[] = [];
    await Promise.all(
      plan.map(async ({ name, read }) => {
        if (read === undefined) {
          unavailable.push(`cross.${name}: no autoscale source, entry or cross read of that name`);
          return;
        }
        if ('error' in read) {
          unavailable.push(`cross.${name}: ${read.error}`);
          return;
        }
        if (typeof read === 'function') {
          const inputs = read();
          values[name] = { metrics: localMetrics(inputs), queueDepth: inputs.depth, workers: inputs.workers };
          return;
        }
        try {
          const declaration = await withCredential(read, options);
          if ('error' in declaration) {
            unavailable.push(`cross.${name}: ${declaration.error}`);
            return;
          }
          const answer = await options.http.read(declaration, { namespace: undefined });
          if (answer.unavailable != null) unavailable.push(`cross.${name}: ${answer.unavailable}`);
          if (answer.result.found) values[name] = answer.result;
          else if (answer.unavailable == null)
            unavailable.push(`cross.${name}: ${answer.result.error ?? `not found at ${answer.url}`}`);
        } catch (error) {
          unavailable.push(`cross.${name}: ${error instanceof Error ? error.message : String(error)}`);
        }
      }),
    );
    unavailable.sort();
    return { values, unavailable };
  };
}

/** HttpPlan is an HTTP read and, with `auth.secretRef`, the Secret its credential is read from at each tick. */
interface HttpPlan {
  readonly declaration: CrossHttpDeclaration;
  readonly secretRef?: NonNullable<SecretAuth['secretRef']>;
}

/** PlanError is a read that cannot be made (an address naming an unset variable): why. */
interface PlanError {
  readonly error: string;
}

type Plan = HttpPlan | PlanError | (() => AutoscaleInputs) | undefined;

/** withCredential adds the Secret's credential (read in the operator's namespace unless the ref names one), or says why it is missing. */
async function withCredential(
  plan: HttpPlan,
  options: AutoscaleCrossOptions,
): Promise<CrossHttpDeclaration | { readonly error: string }> {
  const ref = plan.secretRef;
  if (ref == null) return plan.declaration;
  const namespace = ref.namespace ?? options.operatorNamespace;
  if (options.credential == null)
    return { error: `no Secret reader for auth secret ${namespace}/${ref.name}` };
  const credential = await options
    .credential({ secretRef: { ...ref, namespace } }, namespace)
    .catch((): { error: string } => ({ error: `auth secret ${namespace}/${ref.name} could not be read` }));
  if ('error' in credential) return credential;
  return { ...plan.declaration, credential, sendToken: false };
}

/**
 * addressesOf expands `$NAME` in an address's origin from the operator's environment — the same
 * function as a cross read's (ADR 0098); only the Katalog's text is read here, nothing is rendered.
 */
function addressesOf(
  read: { readonly endpoint?: string | undefined; readonly url?: string | undefined },
  path: string,
  env: AutoscaleCrossOptions['env'],
): { readonly endpoint?: string; readonly url?: string } {
  return {
    ...(read.endpoint == null ? {} : { endpoint: expandAddressEnv(read.endpoint, env, `${path}.endpoint`) }),
    ...(read.url == null ? {} : { url: expandAddressEnv(read.url, env, `${path}.url`) }),
  };
}

function planOf(name: string, options: AutoscaleCrossOptions): Plan {
  try {
    return planOfAddresses(name, options);
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

function planOfAddresses(name: string, options: AutoscaleCrossOptions): Plan {
  const index = options.sources.findIndex((s) => s.as === name);
  const source = options.sources[index];
  if (source != null) {
    const address = addressesOf(source, katalogPathOf(source) ?? `autoscale.sources[${index}]`, options.env);
    const env = source.auth?.env;
    const token = env == null ? undefined : options.env[env.replace(/^\$\{?|\}?$/g, '')];
    const declaration: CrossHttpDeclaration = {
      crd: source.crd,
      selector: {},
      ...(address.url == null ? {} : { url: address.url }),
      ...(address.endpoint == null
        ? {}
        : { endpoint: address.endpoint, protocol: source.protocol ?? 'info' }),
      timeout: source.timeout,
      cacheFor: source.cacheFor,
      ...(token == null || token === '' ? {} : { credential: { id: env ?? '', value: token } }),
      sendToken: source.auth == null && source.endpoint != null,
    };
    return source.auth?.secretRef == null
      ? { declaration }
      : { declaration, secretRef: source.auth.secretRef };
  }
  const local = options.local(name);
  if (local != null) return local;
  // By `as`, else by `crd`; an answer with `metrics` (info, metrics, a url) before `health`.
  const rank = (c: CrossRead): number => (c.protocol === 'health' ? 1 : 0);
  const candidates = (match: (c: CrossRead) => boolean): CrossRead[] =>
    options.entryCross.filter((c) => match(c) && wholeEntry(c)).sort((a, b) => rank(a) - rank(b));
  const read = candidates((c) => c.as === name)[0] ?? candidates((c) => c.crd === name)[0];
  if (read == null) return undefined;
  const literal = (value: string | undefined): boolean => value == null || !value.includes('{{');
  if (!literal(read.endpoint) || !literal(read.url)) return undefined;
  const token = read.auth?.env == null ? undefined : options.env[read.auth.env.replace(/^\$\{?|\}?$/g, '')];
  const address = addressesOf(read, katalogPathOf(read) ?? `cross ${read.as}`, options.env);
  const declaration: CrossHttpDeclaration = {
    crd: read.crd,
    selector: {},
    ...(address.url == null ? {} : { url: address.url }),
    ...(address.endpoint == null ? {} : { endpoint: address.endpoint, protocol: read.protocol }),
    ...(read.timeout == null ? {} : { timeout: read.timeout }),
    ...(read.cacheFor == null ? {} : { cacheFor: read.cacheFor }),
    ...(token == null || token === '' ? {} : { credential: { id: read.auth?.env ?? '', value: token } }),
    sendToken: read.auth == null && read.endpoint != null,
  };
  // Read for the entry: a Secret without a namespace is the operator's (the CR's on the per-CR path).
  return read.auth?.secretRef == null ? { declaration } : { declaration, secretRef: read.auth.secretRef };
}

/** wholeEntry tells whether a cross read answers for the entry (not one CR) over HTTP. */
function wholeEntry(read: CrossRead): boolean {
  if (read.url != null) return true;
  return (
    read.endpoint != null &&
    (read.protocol === 'info' || read.protocol === 'metrics' || read.protocol === 'health')
  );
}

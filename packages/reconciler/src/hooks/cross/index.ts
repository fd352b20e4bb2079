/**
 * The `cross` hook (docs/reference/katalog.md §15.2, docs/reference/runtime.md §14.2): step 9 reads
 * CRs of other entries — in process from their primary cache, or over HTTP from `endpoint` — and
 * adds `cross.<as>` to the template context. In-process reads are recorded in the reverse index,
 * so a change of a read CR re-queues its readers.
 */
import type { CompiledValue, TemplateContext, TemplateEngine } from '@orkestra/template';
import { compileValue } from '@orkestra/template';
import { ConditionReason, katalogPathOf, stringForm } from '@orkestra/types';
import type { CrossRead } from '@orkestra/types';
import { failedCrossList, notFoundCrossResult, readCross, readCrossAll } from '../cross.js';
import type { CrossReadRecord, CrossResult } from '../cross.js';
import {
  defineHook,
  contextValue,
  errorMessage,
  keyOf,
  noMemory,
  ownValue,
  pending,
  readerId,
} from '../hook-unit.js';
import type { HookPending } from '../hook-unit.js';
import { FAILURE_REUSE_MS } from '../cross-http.js';
import { isMap } from '../../is-map.js';
import { expandOrigin, splitEnvOrigin } from '../env-address.js';

/** CompiledCross is one `cross` item: its selector (and `endpoint`) compiled. */
export interface CompiledCross {
  readonly declaration: CrossRead;
  readonly katalogPath: string;
  /** Renders `{name?, namespace?, matchLabels?}`. */
  readonly selector: CompiledValue;
  /** Renders the endpoint URL; undefined for in-process reads. */
  readonly endpoint: CompiledAddress | undefined;
  /** Renders the whole `url`; undefined without one. */
  readonly url: CompiledAddress | undefined;
  /** True when the operator's own token may go with the read: a literal `endpoint`, or a `url` whose origin is literal (docs/adr/0030). */
  readonly literalTarget: boolean;
}

/** URL_ORIGIN is the scheme and authority of a URL as written. */
const URL_ORIGIN = /^([a-z][a-z0-9+.-]*):\/\/([^/?#]*)/i;

/** CompiledAddress renders an `endpoint` or `url` for a CR, with the operator's environment. */
export interface CompiledAddress {
  render(context: TemplateContext, env: Readonly<Record<string, string | undefined>> | undefined): string;
}

/**
 * compileAddress compiles an `endpoint` or `url`. `$NAME` or `${NAME}` in its address as the
 * Katalog writes it (scheme and host, before any path; upstream's cross-cluster form
 * `http://$PEER_URL/katalog/…`) is the operator's environment variable (ADR 0098); the rest is a
 * template. Only the Katalog's own text is expanded, never what a template renders from CR data,
 * so a CR cannot name a variable of the operator. An unset variable fails the render.
 */
function compileAddress(text: string, path: string, engine: TemplateEngine): CompiledAddress {
  const split = splitEnvOrigin(text);
  if (split == null) {
    const whole = compileValue(text, { path, engine });
    return { render: (context) => stringForm(whole.render(context)) };
  }
  const rest = compileValue(split.rest, { path, engine });
  return {
    render: (context, env) => expandOrigin(split.origin, env, path) + stringForm(rest.render(context)),
  };
}

/** crossHook is the `cross` unit. */
export const crossHook = defineHook({
  key: 'cross',
  schema: 'operatorBox.cross[] — CrossRead in @orkestra/types (schema/hooks.ts)',
  reference: 'docs/reference/katalog.md §15.2',
  phase: 'context',
  label: { place: 'cross reads', reader: 'cross reads' },
  enqueuedBy: ['cross-readers'],
  compile: (entry, base, engine): readonly CompiledCross[] =>
    entry.operatorBox.cross.map((declaration, i): CompiledCross => {
      const katalogPath = katalogPathOf(declaration) ?? `${base}.operatorBox.cross[${i}]`;
      return {
        declaration,
        katalogPath,
        selector: compileValue(declaration.selector, { path: `${katalogPath}.selector`, engine }),
        endpoint:
          declaration.endpoint == null
            ? undefined
            : compileAddress(declaration.endpoint, `${katalogPath}.endpoint`, engine),
        url:
          declaration.url == null ? undefined : compileAddress(declaration.url, `${katalogPath}.url`, engine),
        literalTarget:
          declaration.url == null
            ? declaration.endpoint != null && !declaration.endpoint.includes('{{')
            : (URL_ORIGIN.exec(declaration.url)?.[0].includes('{{') ?? true) === false,
      };
    }),
  declared: (compiled) => compiled.length > 0,
  names: (compiled) => compiled.map((read) => `cross ${read.declaration.as}`),
  summary: (entry) => entry.operatorBox.cross.map((read) => read.as),
  initial: () => ({}),
  settle: contextValue,
  memory: noMemory,
  results: 'by-name',
  // Live API answers (`protocol`, `url`) add their own keys (`metrics`, `state`, `children`, …).
  resultKeys: ['found', 'name', 'namespace', 'labels', 'annotations', 'spec', 'status', 'error'],
  // Offline, every read (in process or HTTP) is answered from `cross.<as>`; a missing one reads as not found.
  offline: (script) => ({
    crossResult: (as) => {
      const given = ownValue(script.given(), as);
      if (given == null) script.note(`cross.${as}: no result in the context; read as not found`);
      // A `strategy: all` read's results are a list, given as one.
      if (Array.isArray(given))
        return given.map((item) => ({ ...notFoundCrossResult(), ...(isMap(item) ? item : {}) }));
      return { ...notFoundCrossResult(), ...(isMap(given) ? given : {}) };
    },
    crossHttp: { read: async () => ({ result: notFoundCrossResult(), url: '' }) },
    crossReaders: { record: () => undefined, forget: () => undefined },
  }),
  forget: (services, _memory, reader) => services.crossReaders.forget(reader),
  run: async (
    services,
    _memory,
    compiled,
    input,
  ): Promise<Record<string, CrossResult | readonly CrossResult[]> | HookPending> => {
    const { crd, cr } = input;
    const namespace = nonEmpty(cr.metadata.namespace);
    const results: Record<string, CrossResult | readonly CrossResult[]> = {};
    const records: CrossReadRecord[] = [];
    const unavailable: string[] = [];
    /** Reads whose peer failed with no last good answer left: the run waits for them. */
    const unanswered: string[] = [];
    for (const item of compiled) {
      const { declaration } = item;
      const as = declaration.as ?? declaration.crd;
      let selector: { name?: string; namespace?: string; matchLabels?: Record<string, string> };
      let endpoint: string | undefined;
      let url: string | undefined;
      try {
        selector = stringSelector(item.selector.render(input.context));
        endpoint = item.endpoint?.render(input.context, services.env);
        url = item.url?.render(input.context, services.env);
      } catch (error) {
        if (services.crossResult != null) {
          results[as] = services.crossResult(as);
          continue;
        }
        // A selector (or address) that does not render is read as nothing, with `error` in the answer
        // and on the reader's `CrossSourceUnavailable` condition (ADR 0083).
        const message = errorMessage(error);
        // A template error already names its field (`<path>.selector.name: …`).
        const failure = message.startsWith(item.katalogPath) ? message : `${item.katalogPath}: ${message}`;
        results[as] =
          declaration.strategy === 'all'
            ? failedCrossList(failure)
            : notFoundCrossResult('', namespace ?? '', failure);
        unavailable.push(`cross.${as}: ${failure}`);
        continue;
      }
      if (services.crossResult != null) {
        results[as] = services.crossResult(as);
        continue;
      }
      const protocol = declaration.protocol;
      const local = services.lookup(declaration.crd);
      // `protocol: cr` of a kind this operator serves: the cached CR plus what the Live API answer
      // adds (`children` with each kind's readiness, `ready`, `phase`; ADR 0101), so a template reads
      // the same keys in process as from a peer.
      const withLive = (result: CrossResult): CrossResult => {
        if (protocol !== 'cr' || !result.found || services.liveAnswer == null) return result;
        const answer = services.liveAnswer(declaration.crd, 'cr', nonEmpty(result.namespace), result.name);
        return answer == null ? result : { ...answer, ...result };
      };
      // Such a read carries the target's children readiness: a child's change re-queues it too (ADR 0108).
      const withChildren = (record: CrossReadRecord): CrossReadRecord =>
        protocol === 'cr' && local != null && services.liveAnswer != null
          ? { ...record, children: true }
          : record;
      // `strategy: all` (upstream's key): every match, oldest first, from the entry's cache — or,
      // for a kind another operator serves, from its Live API (below).
      if (declaration.strategy === 'all' && (local != null || (endpoint == null && url == null))) {
        const read = readCrossAll(
          { crd: declaration.crd, selector, as },
          { lookup: services.lookup, namespace },
        );
        results[as] = read.results.map(withLive);
        records.push(withChildren(read.record));
        continue;
      }
      // One path (ADR 0043): a kind this operator serves is read in process — from its cache, or
      // its Live API answer built in process — whatever `endpoint`/`url` says; HTTP otherwise.
      if (local != null && (protocol == null || protocol === 'cr' || url != null)) {
        const read = readCross(
          { crd: declaration.crd, selector, as },
          { lookup: services.lookup, namespace },
        );
        results[as] = withLive(read.result);
        records.push(withChildren(read.record));
        continue;
      }
      if (local != null && protocol != null && protocol !== 'cr' && services.liveAnswer != null) {
        const ns = local.namespaced ? (selector.namespace ?? namespace) : undefined;
        const answer = services.liveAnswer(declaration.crd, protocol, ns, selector.name ?? '');
        results[as] =
          answer == null
            ? notFoundCrossResult(selector.name ?? '', ns ?? '')
            : { ...notFoundCrossResult(selector.name ?? '', ns ?? ''), ...answer, found: true };
        // The answer changes with the target's CRs and counters: re-read when a target CR changes.
        records.push({ crd: declaration.crd, matchLabels: {} });
        continue;
      }
      if (endpoint == null && url == null) {
        const read = readCross(
          { crd: declaration.crd, selector, as },
          { lookup: services.lookup, namespace },
        );
        results[as] = read.result;
        records.push(read.record);
        continue;
      }
      let credential: { readonly id: string; readonly value: string } | undefined;
      if (declaration.auth != null) {
        const resolved =
          services.crossCredential == null
            ? { error: 'credentials are not available to cross reads here' }
            : await services.crossCredential(declaration.auth, namespace);
        if ('error' in resolved) {
          const failure = `${item.katalogPath}.auth: ${resolved.error}`;
          results[as] =
            declaration.strategy === 'all'
              ? failedCrossList(failure)
              : notFoundCrossResult(selector.name ?? '', namespace ?? '', failure);
          unavailable.push(`cross.${as}: ${failure}`);
          continue;
        }
        credential = resolved;
      }
      const read = await services.crossHttp.read(
        {
          crd: declaration.crd,
          ...(url == null ? { endpoint } : { url }),
          ...(protocol == null ? {} : { protocol }),
          selector: {
            ...(selector.name == null ? {} : { name: selector.name }),
            ...(selector.namespace == null ? {} : { namespace: selector.namespace }),
            ...(selector.matchLabels == null ? {} : { matchLabels: selector.matchLabels }),
          },
          ...(declaration.strategy == null ? {} : { strategy: declaration.strategy }),
          ...(declaration.timeout == null ? {} : { timeout: declaration.timeout }),
          ...(declaration.cacheFor == null ? {} : { cacheFor: declaration.cacheFor }),
          ...(credential == null ? {} : { credential }),
          // The operator's token goes only to a target the Katalog wrote literally (docs/adr/0030).
          sendToken: item.literalTarget,
        },
        { namespace, signal: input.signal },
      );
      if (read.unusable != null) {
        // A declaration that cannot be read as rendered names its field, as a render failure does.
        const failure = `${item.katalogPath}.${read.unusable.field}: ${read.unusable.message}`;
        results[as] =
          declaration.strategy === 'all'
            ? failedCrossList(failure)
            : notFoundCrossResult(selector.name ?? '', namespace ?? '', failure);
        unavailable.push(`cross.${as}: ${failure}`);
        continue;
      }
      const error = read.result.error;
      results[as] =
        declaration.strategy !== 'all'
          ? read.result
          : (read.results?.length ?? 0) === 0 && error != null
            ? failedCrossList(error)
            : (read.results ?? []);
      if (read.unavailable != null) unavailable.push(`cross.${as}: ${read.unavailable}`);
      if (read.noAnswer === true && read.unavailable != null)
        unanswered.push(`cross.${as}: ${read.unavailable}`);
      if (read.expiresAt != null) input.effects.requeueAt(read.expiresAt);
    }
    services.crossReaders.record(readerId(crd.name, keyOf(cr)), records);
    // Every run reports, so the condition turns False once a failing read (HTTP or render) succeeds.
    if (compiled.length > 0) input.effects.crossUnavailable(unavailable);
    // A peer that is down with no answer left to use: children and status are not rendered from
    // nothing — the run waits (Ready=False, CrossSourceUnavailable) and asks again when the failure
    // expires, as a missing copy source does (ADR 0043, amended).
    if (unanswered.length > 0)
      return pending(
        ConditionReason.CrossSourceUnavailable,
        `waiting for ${unanswered.join('; ')}`,
        FAILURE_REUSE_MS,
        results,
      );
    return results;
  },
});

/** stringSelector is a rendered selector with every value in string form (an empty namespace is absent). */
function stringSelector(value: unknown): {
  name?: string;
  namespace?: string;
  matchLabels?: Record<string, string>;
} {
  const raw = (value ?? {}) as { name?: unknown; namespace?: unknown; matchLabels?: Record<string, unknown> };
  const name = raw.name == null ? undefined : stringForm(raw.name);
  const namespace = raw.namespace == null ? undefined : stringForm(raw.namespace);
  return {
    ...(name == null ? {} : { name }),
    ...(namespace == null || namespace === '' ? {} : { namespace }),
    ...(raw.matchLabels == null
      ? {}
      : {
          matchLabels: Object.fromEntries(
            Object.entries(raw.matchLabels).map(([k, v]) => [k, stringForm(v)]),
          ),
        }),
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value == null || value === '' ? undefined : value;
}

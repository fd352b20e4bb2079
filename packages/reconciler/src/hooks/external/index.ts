/**
 * The `external` hook (docs/reference/katalog.md §15.1, docs/reference/runtime.md §14.4): step 11
 * calls HTTP endpoints in declaration order, each seeing the results before it, and adds
 * `external.<name>` to the template context. A failed call without `continueOnError` fails the
 * reconcile with ExternalCallFailed.
 */
import type { CompiledValue, TemplateEngine } from '@orkestra/template';
import { compileValue } from '@orkestra/template';
import {
  ConditionReason,
  EXTERNAL_RESULT_KEYS,
  OrkestraError,
  evaluateConditions,
  katalogPathOf,
  stringForm,
} from '@orkestra/types';
import type { ExternalCall } from '@orkestra/types';
import { callAddress, notCalledExternalResult } from '../external.js';
import type { ExternalCallDeclaration, ExternalCallResult } from '../external.js';
import { contextValue, defineHook, failing, noMemory, ownValue } from '../hook-unit.js';
import type { HookInput, HookServices, OfflineScript } from '../hook-unit.js';

/** CompiledExternal is one `external` call: `url`, `headers`, `body`, `query`, `params` and `auth.secretRef` compiled. */
export interface CompiledExternal {
  readonly declaration: ExternalCall;
  readonly katalogPath: string;
  /** Renders `{url, headers, body?, query?, params?, secretRef?}` (a SQL or mongo `query` is literal and not rendered). */
  readonly value: CompiledValue;
}

/**
 * compileExternalCalls compiles one list of calls (`operatorBox.external`, or `validation.external`
 * for the validation unit and the admission webhook). A call that fires only at admission
 * (`fires.reconcile: false`) is left out `at` reconcile (the default), so there its name reads as
 * absent; the admission webhook compiles its `validation.external` calls `at` admission and makes
 * it (ADR 0104).
 */
export function compileExternalCalls(
  calls: readonly ExternalCall[],
  listPath: string,
  engine: TemplateEngine,
  at: 'reconcile' | 'admission' = 'reconcile',
): readonly CompiledExternal[] {
  return calls.flatMap((declaration, i): CompiledExternal[] => {
    if (at === 'reconcile' && declaration.fires?.reconcile === false) return [];
    const katalogPath = katalogPathOf(declaration) ?? `${listPath}[${i}]`;
    const secretRef = declaration.auth?.secretRef;
    return [
      {
        declaration,
        katalogPath,
        value: compileValue(
          {
            url: declaration.url,
            headers: declaration.headers,
            ...(declaration.body === undefined ? {} : { body: declaration.body }),
            ...(declaration.query === undefined ||
            declaration.protocol === 'postgres' ||
            declaration.protocol === 'mongo'
              ? {}
              : { query: declaration.query }),
            ...(declaration.params === undefined ? {} : { params: declaration.params }),
            ...(secretRef == null ? {} : { secretRef }),
          },
          { path: katalogPath, engine },
        ),
      },
    ];
  });
}

/**
 * runExternalCalls makes the compiled calls in declaration order, each seeing `earlier` (the
 * results of the calls of an earlier step) and the calls before it as `external`, and returns the
 * visible results (the unit settles them into `external`). A failed call without `continueOnError`
 * throws ExternalCallFailed naming it (with the results so far, for the failure status).
 */
export async function runExternalCalls(
  services: HookServices,
  compiled: readonly CompiledExternal[],
  input: Pick<HookInput, 'crd' | 'cr' | 'context' | 'signal'>,
  earlier: Readonly<Record<string, unknown>>,
): Promise<Record<string, unknown>> {
  const { crd, cr } = input;
  const calls = compiled.map((item) => ({
    item,
    name: item.declaration.name,
    continueOnError: item.declaration.continueOnError,
    retryBackoff: item.declaration.retryBackoff,
  }));
  const run = await services.external.runAll(
    calls,
    ({ item }, results) => {
      const context = { ...input.context, external: { ...earlier, ...withJsonFields(results) } };
      if (!evaluateConditions(item.declaration, context, services.conditions).passed) return undefined;
      return callDeclaration(item, item.value.render(context));
    },
    {
      entry: crd.name,
      namespace: cr.metadata.namespace ?? '',
      ...(cr.metadata.name == null ? {} : { cr: cr.metadata.name }),
      signal: input.signal,
    },
  );
  const visible = { ...earlier, ...withJsonFields(run.results) };
  if (run.failed != null) {
    const failed = compiled.find((e) => e.declaration.name === run.failed?.name);
    const katalogPath = failed?.katalogPath ?? `${crd.katalogPath}.operatorBox.external`;
    throw failing(
      new OrkestraError(
        `${katalogPath}: external call ${run.failed.name} failed: ${run.failed.error}${run.failed.address == null || run.failed.address === '' ? '' : ` (${run.failed.address})`}`,
        {
          code: ConditionReason.ExternalCallFailed,
          katalogPath,
        },
      ),
      visible,
    );
  }
  return visible;
}

/** httpBased tells the protocols whose answers carry an HTTP status. */
const httpBased = (protocol: ExternalCallDeclaration['protocol']): boolean =>
  protocol == null || protocol === 'http' || protocol === 'prometheus';

/**
 * scriptedCalls is `ExternalCaller.runAll` offline: each call the run makes is answered from the
 * given `external.<name>` result, whatever its protocol (called, ok, status 200 for `http` and
 * `prometheus`, 0 for the others, unless it says otherwise); a missing one reads as not called.
 */
function scriptedCalls(script: OfflineScript): HookServices['external'] {
  return {
    runAll: async (declarations, prepare) => {
      const results: Record<string, ExternalCallResult> = {};
      for (const declaration of declarations) {
        const rendered = prepare(declaration, results);
        const given = ownValue(script.given(), declaration.name);
        if (rendered != null && given == null)
          script.note(`external.${declaration.name}: no result in the context; read as not called`);
        const result: ExternalCallResult =
          rendered == null || given == null
            ? notCalledExternalResult()
            : {
                ...notCalledExternalResult(),
                called: true,
                ok: true,
                // Only the HTTP-based protocols answer with an HTTP status; the others leave it 0.
                status: httpBased(rendered.protocol) ? 200 : 0,
                ...(given as Partial<ExternalCallResult>),
              };
        results[declaration.name] = result;
        if (result.called && !result.ok && declaration.continueOnError !== true) {
          return {
            results,
            failed: {
              name: declaration.name,
              error: result.error || `status ${result.status}`,
              address: callAddress(rendered?.url),
            },
          };
        }
      }
      return { results };
    },
  };
}

/** externalHook is the `external` unit (step 11); it sees the results of `validation.external` (step 8). */
export const externalHook = defineHook({
  key: 'external',
  schema: 'operatorBox.external[] — ExternalCall in @orkestra/types (schema/hooks.ts)',
  reference: 'docs/reference/katalog.md §15.1',
  phase: 'context',
  label: { place: 'external calls', reader: 'external calls' },
  enqueuedBy: [],
  compile: (entry, base, engine): readonly CompiledExternal[] =>
    compileExternalCalls(entry.operatorBox.external, `${base}.operatorBox.external`, engine),
  declared: (compiled) => compiled.length > 0,
  names: (compiled) => compiled.map((call) => `external ${call.declaration.name}`),
  summary: (entry) => entry.operatorBox.external.map((call) => call.name),
  initial: () => ({}),
  settle: contextValue,
  results: 'by-name',
  resultKeys: EXTERNAL_RESULT_KEYS,
  ordered: true,
  offline: (script) => ({ external: scriptedCalls(script) }),
  memory: noMemory,
  run: (services, _memory, compiled, input): Promise<unknown> =>
    runExternalCalls(
      services,
      compiled,
      input,
      (input.context as Record<string, unknown>)['external'] as Record<string, unknown>,
    ),
});

/**
 * withJsonFields is the template view of the results: when an answer is a JSON object, its
 * top-level fields are also readable as `external.<name>.<field>` (upstream's form), except where
 * they would hide a result key (`called`, `ok`, `status`, `body`, `json`, …), which always win.
 * The canonical spelling stays `external.<name>.json.<field>` (docs/reference/katalog.md §15.1).
 */
function withJsonFields(results: Readonly<Record<string, ExternalCallResult>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, result] of Object.entries(results)) {
    const json = result.json;
    out[name] =
      json != null && typeof json === 'object' && !Array.isArray(json)
        ? { ...(json as Record<string, unknown>), ...result }
        : result;
  }
  return out;
}

/** callDeclaration is the call the caller makes for one declaration and its rendered fields (every header and the secret reference in string form). */
function callDeclaration(item: CompiledExternal, value: unknown): ExternalCallDeclaration {
  const rendered = value as {
    url?: unknown;
    headers?: Record<string, unknown>;
    body?: unknown;
    query?: unknown;
    params?: readonly unknown[];
    secretRef?: { name?: unknown; key?: unknown };
  };
  const decl = item.declaration;
  const auth = decl.auth;
  return {
    name: decl.name,
    protocol: decl.protocol,
    url: stringForm(rendered.url),
    // A SQL statement or a mongo query is literal (the schema refuses a template): CR values reach it only as `params`.
    ...(decl.query === undefined
      ? {}
      : {
          query:
            decl.protocol === 'postgres' || decl.protocol === 'mongo'
              ? decl.query
              : stringForm(rendered.query),
        }),
    ...(rendered.params === undefined ? {} : { params: rendered.params.map((p) => stringForm(p)) }),
    ...(decl.range === undefined ? {} : { range: decl.range }),
    method: decl.method,
    headers: Object.fromEntries(Object.entries(rendered.headers ?? {}).map(([k, v]) => [k, stringForm(v)])),
    ...(rendered.body === undefined ? {} : { body: rendered.body }),
    timeout: decl.timeout,
    ...(decl.expectedStatus == null ? {} : { expectedStatus: decl.expectedStatus }),
    ...(auth == null
      ? {}
      : {
          auth: {
            ...(rendered.secretRef == null
              ? {}
              : {
                  secretRef: {
                    name: stringForm(rendered.secretRef.name),
                    key: stringForm(rendered.secretRef.key),
                    // A literal namespace (the schema refuses templates): docs/reference/katalog.md §15.1.
                    ...(auth.secretRef?.namespace == null ? {} : { namespace: auth.secretRef.namespace }),
                  },
                }),
            ...(auth.env == null ? {} : { env: auth.env }),
            header: auth.header,
            scheme: auth.scheme,
          },
        }),
    cacheFor: decl.cacheFor,
  };
}

/**
 * The offline results as the hook table names them (docs/adr/0038-hook-table-source-of-truth.md):
 * which top-level keys a render context or a scenario step may give, how each is shaped, how a
 * step's patch merges into what earlier steps gave, and which roots `--strict` lets a template
 * read. Every list is derived from the hook table; a new hook needs no line here.
 */
import { HOISTED_HOOKS } from '@orkestra/types';
import type { ExternalCall } from '@orkestra/types';
import type { ExternalCallDeclaration } from '../hooks/external.js';
import type { HookResults } from '../hooks/hook-unit.js';
import { resultUnits } from '../hooks/table.js';
import { PROTOCOL_TABLE } from '../hooks/external/protocols/table.js';
import { externalHook } from '../hooks/external/index.js';
import type { HelperParameter, ResultFields } from '../hooks/external/protocols/result-shape.js';
import type { OfflineResults } from './offline-engine.js';
import { isMap } from '../is-map.js';
import { ownValue } from '../hooks/hook-unit.js';

export { visibleRoots } from '../hooks/table.js';
export { answerProblem, resultPathProblem } from '../hooks/external/protocols/result-shape.js';

/** HookRoot is one hook's context root: its key, how its results are named and the fields of one result. */
export interface HookRoot {
  readonly key: string;
  readonly results: Exclude<HookResults, 'none'>;
  /** Fields of one result (`git.<field>`, `cross.<as>.<field>`); undefined when free-form. */
  readonly resultKeys: readonly string[] | undefined;
  /** Its declarations run in order, each seeing the ones before it. */
  readonly ordered: boolean;
  /** May also be declared under `onCreate`/`onReconcile` (`HOISTED_HOOKS` of the Katalog schema). */
  readonly hoisted: boolean;
  /** How `--strict` names it: as a place (`the git hook`) and as a reader (`git`). */
  readonly label: { readonly place: string; readonly reader: string };
  /** Its phase: `after-writes` hooks run after the resource entries. */
  readonly afterWrites: boolean;
  /** Its step on the deletion path (`onDelete`, `delete`), whose failure may be scripted (ADR 0116); undefined without one. */
  readonly deletionStep: string | undefined;
}

const hoisted = new Set<string>([...HOISTED_HOOKS.lists, ...HOISTED_HOOKS.blocks]);

/** hookRoots are the hooks with results of their own, in table order. */
export const hookRoots: readonly HookRoot[] = resultUnits.map((unit) => ({
  key: unit.key,
  results: unit.results as HookRoot['results'],
  resultKeys: unit.resultKeys,
  ordered: unit.ordered === true,
  hoisted: hoisted.has(unit.key),
  label: unit.label,
  afterWrites: unit.phase === 'after-writes',
  deletionStep: unit.deletionStep,
}));

/** ProtocolResult is what `--strict` knows of one external protocol, from its unit: its result and its helpers. */
export interface ProtocolResult {
  readonly name: string;
  readonly result: ResultFields;
  /** The result of one declared call (a SQL select list closes a row's columns); `result` when it says no more. */
  resultOf(call: ExternalCall): ResultFields;
  readonly helpers: Readonly<Record<string, readonly HelperParameter[]>>;
}

/**
 * PROTOCOL_ROOT is the context root whose results the protocol table shapes (`<root>.<name>`): the
 * key of the hook that makes protocol calls, named by its unit.
 */
export const PROTOCOL_ROOT: string = externalHook.key;

/** protocolResults are the protocols of the protocol table with their result shapes and helpers. */
export const protocolResults: readonly ProtocolResult[] = Object.values(PROTOCOL_TABLE).map((unit) => ({
  name: unit.name,
  result: unit.result,
  resultOf: (call) => unit.resultOf?.(call as ExternalCallDeclaration) ?? unit.result,
  helpers: unit.helpers ?? {},
}));

type Json = Record<string, unknown>;

/**
 * resultsProblem checks one offline results map (a scenario step's `context`): every key is a hook
 * root and shaped as its results are; returns the path and message of the first problem.
 */
export function resultsProblem(
  value: Json,
): { readonly path: readonly string[]; readonly message: string; readonly at: 'key' | 'value' } | undefined {
  for (const [key, item] of Object.entries(value)) {
    const root = hookRoots.find((r) => r.key === key);
    if (root == null)
      return {
        path: [key],
        at: 'key',
        message: `unknown key ${key}; expected ${hookRoots.map((r) => r.key).join(', ')}`,
      };
    if (item !== null && !isMap(item)) return { path: [key], at: 'value', message: 'must be a map or null' };
    if (root.results === 'one' || item == null) continue;
    for (const [name, result] of Object.entries(item)) {
      if (root.results === 'by-provider') {
        if (!isMap(result))
          return {
            path: [key, name],
            at: 'value',
            message: 'must map declaration names to {ready, message, outputs}',
          };
        for (const [decl, r] of Object.entries(result)) {
          if (r !== null && !isMap(r))
            return {
              path: [key, name, decl],
              at: 'value',
              message: 'must be {ready, message, outputs} or null',
            };
        }
      } else if (result !== null && !isMap(result))
        return { path: [key, name], at: 'value', message: 'must be a map or null' };
    }
  }
  return undefined;
}

/**
 * patchResults merges a step's results into the ones earlier steps gave: a `one` result is
 * replaced (`null` removes it), a named result replaces the one of that name (`null` removes it),
 * a provider's declarations likewise. Returns a new map; `current` is not changed.
 */
export function patchResults(current: OfflineResults, patch: Readonly<Json>): OfflineResults {
  const out: Json = {};
  for (const root of hookRoots) {
    const was = current[root.key];
    if (root.results === 'one') {
      const next = Object.hasOwn(patch, root.key) ? patch[root.key] : was;
      if (next != null) out[root.key] = structuredClone(next);
      continue;
    }
    const merged: Json = structuredClone(isMap(was) ? was : {});
    const given = patch[root.key];
    for (const [name, value] of Object.entries(isMap(given) ? given : {})) {
      if (root.results === 'by-name') named(merged, name, value);
      else {
        const records = isMap(merged[name]) ? (merged[name] as Json) : {};
        for (const [decl, record] of Object.entries(isMap(value) ? value : {})) named(records, decl, record);
        merged[name] = records;
      }
    }
    out[root.key] = merged;
  }
  return out;
}

function named(target: Json, name: string, value: unknown): void {
  if (value == null) delete target[name];
  else target[name] = structuredClone(value);
}

/**
 * scriptedFailure is the message of a scripted deletion-step failure (ADR 0116) in `given` (the
 * failures under one hook's key), named as that hook's results are: the whole value for `one`,
 * `<name>` for `by-name`, `<name>.<declaration>` for `by-provider`. Undefined: the step succeeds.
 */
export function scriptedFailure(
  results: HookResults,
  given: unknown,
  name: string,
  declaration?: string,
): string | undefined {
  const value =
    results === 'one'
      ? given
      : results === 'by-provider'
        ? ownValue(ownValue(given, name), declaration ?? '')
        : ownValue(given, name);
  return typeof value === 'string' ? value : undefined;
}

/**
 * deletionFailuresProblem checks a scenario step's scripted deletion failures (ADR 0116): every key
 * is a hook with a deletion step (from the hook table), each failure a message (or `null`, which
 * clears it) named as the hook's results are. Returns the path and message of the first problem.
 */
export function deletionFailuresProblem(
  value: Json,
): { readonly path: readonly string[]; readonly message: string; readonly at: 'key' | 'value' } | undefined {
  const roots = hookRoots.filter((r) => r.deletionStep != null);
  const message = (r: HookRoot): string =>
    r.results === 'one'
      ? `the message its ${r.deletionStep ?? ''} step fails with (a string), or null`
      : r.results === 'by-provider'
        ? `must map provider names to {<declaration>: the message its ${r.deletionStep ?? ''} fails with}`
        : `must map declaration names to the message their ${r.deletionStep ?? ''} step fails with`;
  const leaf = (v: unknown): boolean => v === null || (typeof v === 'string' && v !== '');
  for (const [key, item] of Object.entries(value)) {
    const root = roots.find((r) => r.key === key);
    if (root == null)
      return {
        path: [key],
        at: 'key',
        message: `unknown key ${key}; the hooks with a deletion step are ${roots.map((r) => `${r.key} (${r.deletionStep ?? ''})`).join(', ')}`,
      };
    if (root.results === 'one') {
      if (!leaf(item)) return { path: [key], at: 'value', message: `must be ${message(root)}` };
      continue;
    }
    if (item === null) continue;
    if (!isMap(item)) return { path: [key], at: 'value', message: message(root) };
    for (const [name, v] of Object.entries(item)) {
      if (root.results === 'by-provider') {
        if (v === null) continue;
        if (!isMap(v))
          return {
            path: [key, name],
            at: 'value',
            message: `must map declaration names to the message their ${root.deletionStep ?? ''} fails with`,
          };
        for (const [decl, m] of Object.entries(v))
          if (!leaf(m))
            return {
              path: [key, name, decl],
              at: 'value',
              message: 'must be the message the delete fails with (a string), or null',
            };
      } else if (!leaf(v))
        return {
          path: [key, name],
          at: 'value',
          message: `must be the message the ${root.deletionStep ?? ''} step fails with (a string), or null`,
        };
    }
  }
  return undefined;
}

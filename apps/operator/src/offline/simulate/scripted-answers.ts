/**
 * Scripted protocol answers (docs/reference/katalog.md §15.1.1): a scenario's `context.external.<name>`
 * is checked against the result shape of the call's protocol, as its unit declares it
 * (`protocolResults` of the protocol table), so a script cannot answer with what no server would.
 */
import { PROTOCOL_ROOT, answerProblem, protocolResults } from '@orkestra/reconciler/offline';
import type { ProtocolResult } from '@orkestra/reconciler/offline';
import type { ExternalCall, Katalog } from '@orkestra/types';
import { didYouMean } from '../../did-you-mean.js';
import { isMap } from '../../is-map.js';

const PROTOCOLS: ReadonlyMap<string, ProtocolResult> = new Map(protocolResults.map((p) => [p.name, p]));

/** DeclaredCalls are a Katalog's external calls by name (one name may be declared by several entries). */
export type DeclaredCalls = Map<string, ExternalCall[]>;

/**
 * declaredCalls adds every external call of `katalog` to `into` — the calls of each entry, its
 * validation, its gates — found as the items of any `external` list, so a new place that declares
 * calls needs no line here.
 */
export function declaredCalls(katalog: Katalog, into: DeclaredCalls = new Map()): DeclaredCalls {
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) walk(item);
      return;
    }
    if (!isMap(value)) return;
    for (const [key, item] of Object.entries(value)) {
      if (key === PROTOCOL_ROOT && Array.isArray(item)) {
        for (const call of item) {
          if (!isMap(call) || typeof call['name'] !== 'string' || typeof call['url'] !== 'string') continue;
          const known = into.get(call['name']) ?? [];
          if (!known.includes(call as unknown as ExternalCall)) known.push(call as unknown as ExternalCall);
          into.set(call['name'], known);
        }
      } else walk(item);
    }
  };
  walk(katalog.spec);
  return into;
}

/** ScriptedAnswerProblem is where a scripted answer does not fit (a path inside it) and why. */
export interface ScriptedAnswerProblem {
  readonly path: readonly (string | number)[];
  readonly message: string;
}

const label = (path: readonly (string | number)[]): string =>
  path
    .map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`))
    .join('')
    .replace(/^\./, '');

/**
 * scriptedAnswerProblem checks the answer scripted for the call `name`: the call must be declared,
 * and the answer must fit its protocol's result (refined by the call: a SQL select list names a
 * row's columns). With several declarations of the name, one that fits is enough.
 */
export function scriptedAnswerProblem(
  calls: DeclaredCalls,
  name: string,
  answer: unknown,
): ScriptedAnswerProblem | undefined {
  const declared = calls.get(name) ?? [];
  if (declared.length === 0)
    return {
      path: [],
      message: `no external call is named \`${name}\` in the Katalog${calls.size === 0 ? ' (it declares none)' : `; its calls are ${[...calls.keys()].join(', ')}${didYouMean(name, calls.keys())}`}`,
    };
  let first: ScriptedAnswerProblem | undefined;
  for (const call of declared) {
    const protocol = PROTOCOLS.get(call.protocol ?? 'http');
    if (protocol == null) return undefined;
    const problem = answerProblem(protocol.name, protocol.resultOf(call), answer);
    if (problem == null) return undefined;
    if (first != null) continue;
    const hint = problem.unknown == null ? '' : didYouMean(problem.unknown.key, problem.unknown.candidates);
    const parent = problem.path.slice(0, -1);
    const message =
      problem.unknown != null
        ? parent.length === 0
          ? problem.message
          : `${label(parent)} ${problem.message}`
        : problem.path.length === 0
          ? `the answer ${problem.message}`
          : `${label(problem.path)} ${problem.message}`;
    first = { path: problem.path, message: `${protocol.name} call ${name}: ${message}${hint}` };
  }
  return first;
}

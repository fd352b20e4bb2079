/**
 * The `ork simulate` scenario file: a YAML list of steps, each an event the operator would see (a
 * CR applied, updated or deleted, a child's observed state, new hook and provider results) with
 * optional expectations. Parsing keeps every node's line and column so errors point into the file.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { LineCounter, isMap as isYamlMap, isNode, isScalar, parseDocument } from 'yaml';
import type { Document } from 'yaml';
import { PROTOCOL_ROOT, deletionFailuresProblem, resultsProblem } from '@orkestra/reconciler/offline';
import { parseDuration } from '@orkestra/types';
import type { Katalog } from '@orkestra/types';
import { formatIssue, loadKatalogFile } from '../../katalog-file.js';
import { checkCustomResource, readCustomResources } from '../cr-input.js';
import type { CustomResource } from '../cr-input.js';
import { isMap } from '../../is-map.js';
import { declaredCalls, scriptedAnswerProblem } from './scripted-answers.js';
import type { DeclaredCalls } from './scripted-answers.js';

type Json = Record<string, unknown>;

/** SourcePosition is a 1-based line and column in a scenario file. */
export interface SourcePosition {
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

/** formatPosition renders a position as `file:line:col`. */
export function formatPosition(position: SourcePosition): string {
  return `${position.file}:${position.line}:${position.column}`;
}

/** ScenarioError is an invalid scenario (bad YAML, unknown key, wrong type, unknown child); it names the position. */
export class ScenarioError extends Error {
  override readonly name = 'ScenarioError';
  readonly code = 'ScenarioError';
  readonly position: SourcePosition;

  constructor(position: SourcePosition, message: string) {
    super(`${formatPosition(position)}: ${message}`);
    this.position = position;
  }
}

/**
 * ContextPatch is a step's new hook and provider results, by hook root (`hookRoots` of the hook
 * table, checked by `resultsProblem`); each named result replaces the previous one, `null` removes
 * it (`patchResults`). The named fields only type the built-in roots for TypeScript readers.
 */
export type ContextPatch = Readonly<Record<string, unknown>> & {
  readonly cross?: Readonly<Record<string, Json | null>>;
  readonly git?: Json | null;
  readonly external?: Readonly<Record<string, Json | null>>;
  readonly docker?: Json | null;
  readonly providers?: Readonly<Record<string, Readonly<Record<string, Json | null>>>>;
};

/** ObservedChange is one `observe` item: a merge patch of a child's state, or `null` when the child was deleted. */
interface ObservedChange {
  /** `Kind/name` or `Kind/namespace/name`. */
  readonly ref: string;
  readonly patch: Json | null;
  readonly position: SourcePosition;
}

/** ExpectKey is the closed set of keys an `expect` block may hold. */
export const ExpectKey = {
  Applies: 'applies',
  Creates: 'creates',
  Prunes: 'prunes',
  Children: 'children',
  Status: 'status',
  Ready: 'ready',
  Synced: 'synced',
  Reason: 'reason',
  DeletionOrder: 'deletionOrder',
  /** docs/reference/runtime.md §24: a partial match of the rollout (phase, step, paused, stable, target, message). */
  Rollout: 'rollout',
  /** docs/reference/runtime.md §24: CR name → the Katalog file (or revision hash) its `status.katalogRevision` names. */
  Revisions: 'revisions',
  /** docs/reference/runtime.md §24: CR name → children, status, ready, synced, reason of that CR. */
  Crs: 'crs',
  /**
   * docs/reference/katalog.md §15.4: the team notifications the step would send, in order; each a
   * team name or a partial match of {team, trigger, subject, text, email, webhook, slack, skipped, cr}.
   */
  Notifications: 'notifications',
} as const;
export type ExpectKey = (typeof ExpectKey)[keyof typeof ExpectKey];

/** Expectation is one key of an `expect` block with its expected value and position. */
export interface Expectation {
  readonly key: ExpectKey;
  readonly value: unknown;
  readonly position: SourcePosition;
}

/** CR_EXPECT_KEYS are the keys of an `expect.crs.<name>` block. */
const CR_EXPECT_KEYS: readonly string[] = [
  ExpectKey.Children,
  ExpectKey.Status,
  ExpectKey.Ready,
  ExpectKey.Synced,
  ExpectKey.Reason,
];

/** RolloutCommandName is a `rollout:` step's command (docs/reference/runtime.md §24.4). */
export type RolloutCommandName = 'pause' | 'resume' | 'undo';

/** KatalogChange is a `katalog:` step: a new Katalog file, i.e. a new revision (docs/reference/runtime.md §24.1). */
export interface KatalogChange {
  /** The file as written in the scenario; reports and `revisions` expectations name revisions by it. */
  readonly source: string;
  readonly katalog: Katalog;
}

/**
 * ScenarioStep is one validated step. At most one of apply, update, observe, delete, katalog,
 * rollout may be set; none means a resync.
 */
export interface ScenarioStep {
  readonly name: string;
  /** 1-based step number. */
  readonly number: number;
  readonly position: SourcePosition;
  readonly apply?: { readonly cr: CustomResource; readonly source: string };
  readonly update?: Json;
  readonly observe?: readonly ObservedChange[];
  readonly delete?: boolean;
  /** docs/reference/runtime.md §24: a new Katalog revision; the simulator starts a rollout per its `spec.rollout`. */
  readonly katalog?: KatalogChange;
  /** docs/reference/runtime.md §24: `ork rollout pause|resume|undo`. */
  readonly rollout?: RolloutCommandName;
  /** The CR (metadata.name) that update, observe, delete and the CR expectations refer to; default: the last applied. */
  readonly cr?: string;
  readonly context?: ContextPatch;
  /**
   * Deletion steps that fail from this step on (ADR 0116): under the key of a hook with a deletion
   * step, the message it fails with, named as that hook's results are; merged like `context`
   * (`null` clears one).
   */
  readonly deletionFailures?: ContextPatch;
  /** Milliseconds the clock moves forward before the step. */
  readonly advanceMs?: number;
  readonly expect: readonly Expectation[];
}

/** Scenario is a parsed scenario file. */
export interface Scenario {
  readonly file: string;
  /** The scenario's start time, when it sets `now`. */
  readonly now?: Date;
  readonly steps: readonly ScenarioStep[];
}

/** ParseScenarioOptions configures parseScenario. */
export interface ParseScenarioOptions {
  /** The scenario's path as reported in messages. */
  readonly file: string;
  /** Directory `apply.cr` file paths are resolved against (the scenario's directory). */
  readonly baseDir: string;
  /** Reads a CR file; default: the file system. */
  readonly readFile?: (path: string) => string;
  /** Loads a `katalog:` step's file (relative to `baseDir`); throws with a message when it is invalid. Default: the Katalog loader over the file system. */
  readonly loadKatalog?: (source: string, baseDir: string) => Katalog;
  /**
   * The Katalog the scenario runs against: each scripted `context.external.<name>` answer is
   * checked against the result shape of that call's protocol (with the calls of the `katalog:`
   * steps before it too). Without it answers are not checked.
   */
  readonly katalog?: Katalog;
}

function loadKatalogFromDisk(source: string, baseDir: string): Katalog {
  const loaded = loadKatalogFile(source, { cwd: baseDir });
  if (loaded.ok) return loaded.katalog;
  throw new Error(
    `${source} is not a valid Katalog:\n${loaded.errors.map((e) => `  ${formatIssue(e)}`).join('\n')}`,
  );
}

const STEP_KEYS = [
  'name',
  'cr',
  'apply',
  'update',
  'observe',
  'delete',
  'katalog',
  'rollout',
  'context',
  'deletionFailures',
  'advance',
  'expect',
];
const ACTION_KEYS = ['apply', 'update', 'observe', 'delete', 'katalog', 'rollout'];
const ROLLOUT_COMMANDS: readonly string[] = ['pause', 'resume', 'undo'];
const ROLLOUT_EXPECT_KEYS = ['phase', 'step', 'paused', 'stable', 'target', 'message'];
const LIST_EXPECTS: readonly string[] = [
  ExpectKey.Applies,
  ExpectKey.Creates,
  ExpectKey.Prunes,
  ExpectKey.Children,
  ExpectKey.DeletionOrder,
];

type Path = readonly (string | number)[];

/**
 * parseScenario parses and validates a scenario's YAML text. Every problem throws a ScenarioError
 * naming `file:line:col` (YAML syntax errors at the yaml library's position, schema errors at the
 * offending node). `apply.cr` may be a map or a path to a one-document CR file.
 *
 * @example
 * const scenario = parseScenario(text, { file: 'scenario.yaml', baseDir: 'examples/website' });
 * scenario.steps[0]?.name; // 'create'
 */
export function parseScenario(text: string, options: ParseScenarioOptions): Scenario {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
  const { file } = options;
  const at = (offset: number): SourcePosition => {
    const pos = lineCounter.linePos(offset);
    return { file, line: pos.line, column: pos.col };
  };
  const first = doc.errors[0];
  if (first != null)
    throw new ScenarioError(at(first.pos[0]), first.message.split('\n')[0] ?? 'invalid YAML');
  const position = (path: Path): SourcePosition => positionOf(doc, path, at);
  const fail = (path: Path, message: string): never => {
    throw new ScenarioError(position(path), message);
  };
  const where = (path: Path): string =>
    path
      .map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`))
      .join('')
      .replace(/^\./, '');

  // The calls a scripted answer may answer: the Katalog's, then each `katalog:` step's as it comes.
  const calls: DeclaredCalls | undefined =
    options.katalog == null ? undefined : declaredCalls(options.katalog);

  const root: unknown = doc.toJS();
  if (!isMap(root)) return fail([], 'a scenario must be a map with a `steps` list');
  for (const key of Object.keys(root)) {
    if (key !== 'steps' && key !== 'now') fail([key], `unknown key ${key}; expected steps, now`);
  }
  let now: Date | undefined;
  if (root['now'] != null) {
    now = new Date(String(root['now']));
    if (Number.isNaN(now.getTime()))
      fail(['now'], `now: ${String(root['now'])} is not a valid RFC 3339 time`);
  }
  const steps = root['steps'];
  if (!Array.isArray(steps) || steps.length === 0) return fail(['steps'], 'steps must be a non-empty list');

  const parsed = steps.map((raw, index): ScenarioStep => {
    const path: Path = ['steps', index];
    if (!isMap(raw)) return fail(path, `${where(path)} must be a map`);
    for (const key of Object.keys(raw)) {
      if (!STEP_KEYS.includes(key))
        fail([...path, key], `${where([...path, key])}: unknown step key; expected ${STEP_KEYS.join(', ')}`);
    }
    const actions = ACTION_KEYS.filter((k) => raw[k] != null);
    if (actions.length > 1)
      fail(
        [...path, actions[1] ?? ''],
        `${where(path)}: a step has at most one of ${ACTION_KEYS.join(', ')}`,
      );
    const name = raw['name'] == null ? `step ${index + 1}` : raw['name'];
    if (typeof name !== 'string') fail([...path, 'name'], `${where([...path, 'name'])} must be a string`);
    const step: {
      -readonly [K in keyof ScenarioStep]: ScenarioStep[K];
    } = { name: name as string, number: index + 1, position: position(path), expect: [] };

    if (raw['apply'] != null) step.apply = parseApply(raw['apply'], [...path, 'apply']);
    if (raw['update'] != null) {
      if (!isMap(raw['update']))
        fail([...path, 'update'], `${where([...path, 'update'])} must be a map (a merge patch of the CR)`);
      const patch = raw['update'] as Json;
      for (const key of ['apiVersion', 'kind']) {
        if (key in patch)
          fail([...path, 'update', key], `${where([...path, 'update', key])}: the CR's ${key} cannot change`);
      }
      const meta = patch['metadata'];
      if ('metadata' in patch && !isMap(meta))
        fail([...path, 'update', 'metadata'], `${where([...path, 'update', 'metadata'])} must be a map`);
      if (isMap(meta) && ('name' in meta || 'namespace' in meta))
        fail(
          [...path, 'update', 'metadata'],
          `${where([...path, 'update', 'metadata'])}: the CR's name and namespace cannot change`,
        );
      step.update = patch;
    }
    if (raw['observe'] != null) {
      const observe = raw['observe'];
      if (!isMap(observe) || Object.keys(observe).length === 0)
        fail(
          [...path, 'observe'],
          `${where([...path, 'observe'])} must be a map from Kind/name to the child's observed state`,
        );
      step.observe = Object.entries(observe as Json).map(([ref, patch]) => {
        const p: Path = [...path, 'observe', ref];
        const parts = ref.split('/');
        if (parts.length < 2 || parts.length > 3 || parts.some((s) => s === ''))
          fail(p, `${where([...path, 'observe'])}: ${ref} is not Kind/name or Kind/namespace/name`);
        if (patch !== null && !isMap(patch))
          fail(
            p,
            `${where(p)} must be a map merged into the child (e.g. {status: …}) or null (the child was deleted)`,
          );
        return { ref, patch: patch as Json | null, position: position(p) };
      });
    }
    if (raw['delete'] != null) {
      if (raw['delete'] !== true) fail([...path, 'delete'], `${where([...path, 'delete'])} must be true`);
      step.delete = true;
    }
    if (raw['katalog'] != null) {
      step.katalog = parseKatalog(raw['katalog'], [...path, 'katalog']);
      if (calls != null) declaredCalls(step.katalog.katalog, calls);
    }
    if (raw['rollout'] != null) {
      const command = raw['rollout'];
      if (typeof command !== 'string' || !ROLLOUT_COMMANDS.includes(command))
        fail(
          [...path, 'rollout'],
          `${where([...path, 'rollout'])}: ${JSON.stringify(command)} is not a rollout command; expected ${ROLLOUT_COMMANDS.join(', ')}`,
        );
      step.rollout = command as RolloutCommandName;
    }
    if (raw['cr'] != null) {
      if (typeof raw['cr'] !== 'string' || raw['cr'] === '')
        fail([...path, 'cr'], `${where([...path, 'cr'])} must be a CR's metadata.name`);
      step.cr = raw['cr'] as string;
    }
    if (raw['context'] != null) step.context = parseContext(raw['context'], [...path, 'context']);
    if (raw['deletionFailures'] != null)
      step.deletionFailures = parseDeletionFailures(raw['deletionFailures'], [...path, 'deletionFailures']);
    if (raw['advance'] != null) {
      try {
        step.advanceMs = parseDuration(raw['advance'] as string);
      } catch (error) {
        fail(
          [...path, 'advance'],
          `${where([...path, 'advance'])}: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }
    if (raw['expect'] != null) step.expect = parseExpect(raw['expect'], [...path, 'expect']);
    return step;
  });
  return { file, ...(now == null ? {} : { now }), steps: parsed };

  function parseApply(value: unknown, path: Path): { cr: CustomResource; source: string } {
    if (!isMap(value) || Object.keys(value).some((k) => k !== 'cr') || value['cr'] == null)
      return fail(path, `${where(path)} must be {cr: <file>} or {cr: {<inline CR>}}`);
    const cr = value['cr'];
    if (isMap(cr)) {
      try {
        return { cr: checkCustomResource(cr, 'the inline CR'), source: 'inline CR' };
      } catch (error) {
        return fail([...path, 'cr'], error instanceof Error ? error.message : String(error));
      }
    }
    if (typeof cr !== 'string')
      return fail([...path, 'cr'], `${where([...path, 'cr'])} must be a file path or a map`);
    const full = resolve(options.baseDir, cr);
    let crText: string;
    try {
      crText = (options.readFile ?? ((p: string) => readFileSync(p, 'utf8')))(full);
    } catch (error) {
      return fail(
        [...path, 'cr'],
        `cannot read ${cr}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    let crs: CustomResource[];
    try {
      crs = readCustomResources(crText, cr, { single: true });
    } catch (error) {
      return fail([...path, 'cr'], error instanceof Error ? error.message : String(error));
    }
    const [only] = crs;
    if (only == null) return fail([...path, 'cr'], `${cr} must hold exactly one YAML document (one CR)`);
    return { cr: only, source: cr };
  }

  function parseKatalog(value: unknown, path: Path): KatalogChange {
    if (typeof value !== 'string' || value === '')
      return fail(path, `${where(path)} must be the path of a Katalog file (relative to the scenario)`);
    try {
      return {
        source: value,
        katalog: (options.loadKatalog ?? loadKatalogFromDisk)(value, options.baseDir),
      };
    } catch (error) {
      return fail(path, error instanceof Error ? error.message : String(error));
    }
  }

  function parseContext(value: unknown, path: Path): ContextPatch {
    if (!isMap(value)) return fail(path, `${where(path)} must be a map`);
    const problem = resultsProblem(value);
    if (problem != null) {
      const p = [...path, ...problem.path];
      fail(p, problem.at === 'key' ? `${where(path)}: ${problem.message}` : `${where(p)} ${problem.message}`);
    }
    const external = value[PROTOCOL_ROOT];
    if (calls != null && isMap(external)) {
      for (const [name, answer] of Object.entries(external)) {
        if (answer == null) continue;
        const bad = scriptedAnswerProblem(calls, name, answer);
        if (bad != null)
          fail(
            [...path, PROTOCOL_ROOT, name, ...bad.path],
            `${where([...path, PROTOCOL_ROOT, name])}: ${bad.message}`,
          );
      }
    }
    return value as ContextPatch;
  }

  function parseDeletionFailures(value: unknown, path: Path): ContextPatch {
    if (!isMap(value)) return fail(path, `${where(path)} must be a map`);
    const problem = deletionFailuresProblem(value);
    if (problem != null) {
      const p = [...path, ...problem.path];
      fail(p, problem.at === 'key' ? `${where(path)}: ${problem.message}` : `${where(p)} ${problem.message}`);
    }
    return value as ContextPatch;
  }

  function parseExpect(
    value: unknown,
    path: Path,
    known: readonly string[] = Object.values(ExpectKey),
  ): Expectation[] {
    if (!isMap(value)) return fail(path, `${where(path)} must be a map`);
    return Object.entries(value).map(([key, expected]) => {
      const p = [...path, key];
      if (!known.includes(key)) fail(p, `${where(path)}: unknown key ${key}; expected ${known.join(', ')}`);
      if (key === ExpectKey.Rollout) {
        if (!isMap(expected)) fail(p, `${where(p)} must be a map (${ROLLOUT_EXPECT_KEYS.join(', ')})`);
        for (const [k, v] of Object.entries(expected as Json)) {
          if (!ROLLOUT_EXPECT_KEYS.includes(k))
            fail([...p, k], `${where(p)}: unknown key ${k}; expected ${ROLLOUT_EXPECT_KEYS.join(', ')}`);
          if (k === 'step' && !Number.isInteger(v)) fail([...p, k], `${where([...p, k])} must be an integer`);
          if (k === 'paused' && typeof v !== 'boolean')
            fail([...p, k], `${where([...p, k])} must be a boolean`);
          if (k !== 'step' && k !== 'paused' && typeof v !== 'string')
            fail([...p, k], `${where([...p, k])} must be a string`);
        }
      }
      if (key === ExpectKey.Revisions) {
        if (!isMap(expected) || Object.keys(expected).length === 0)
          fail(p, `${where(p)} must map CR names to a Katalog file or revision`);
        for (const [name, v] of Object.entries(expected as Json))
          if (typeof v !== 'string')
            fail([...p, name], `${where([...p, name])} must be a Katalog file or revision (a string)`);
      }
      if (key === ExpectKey.Crs) {
        if (!isMap(expected) || Object.keys(expected).length === 0)
          fail(p, `${where(p)} must map CR names to {${CR_EXPECT_KEYS.join(', ')}}`);
        const nested = Object.fromEntries(
          Object.entries(expected as Json).map(([name, block]) => [
            name,
            parseExpect(block, [...p, name], CR_EXPECT_KEYS),
          ]),
        );
        return { key: key as ExpectKey, value: nested, position: position(p) };
      }
      if (
        LIST_EXPECTS.includes(key) &&
        !(Array.isArray(expected) && expected.every((e) => typeof e === 'string'))
      )
        fail(p, `${where(p)} must be a list of strings`);
      if (
        key === ExpectKey.Notifications &&
        !(Array.isArray(expected) && expected.every((e) => typeof e === 'string' || isMap(e)))
      )
        fail(p, `${where(p)} must be a list of team names or partial notifications ({team, text, …})`);
      if (key === ExpectKey.Status && !isMap(expected))
        fail(p, `${where(p)} must be a map (a partial status)`);
      if (
        (key === ExpectKey.Ready || key === ExpectKey.Synced) &&
        expected !== 'True' &&
        expected !== 'False' &&
        typeof expected !== 'boolean'
      )
        fail(p, `${where(p)} must be "True" or "False"`);
      if (key === ExpectKey.Reason && typeof expected !== 'string') fail(p, `${where(p)} must be a string`);
      return { key: key as ExpectKey, value: expected, position: position(p) };
    });
  }
}

/**
 * positionOf returns where the node at `path` starts: the key for a map entry, the item for a list
 * entry; a path that does not exist falls back to its nearest existing ancestor.
 */
function positionOf(doc: Document, path: Path, at: (offset: number) => SourcePosition): SourcePosition {
  for (let length = path.length; length >= 0; length--) {
    const last = path[length - 1];
    if (typeof last === 'string') {
      const parent: unknown = length === 1 ? doc.contents : doc.getIn(path.slice(0, length - 1), true);
      if (isYamlMap(parent)) {
        const pair = parent.items.find((p) => isScalar(p.key) && String(p.key.value) === last);
        if (pair != null && isNode(pair.key) && pair.key.range != null) return at(pair.key.range[0]);
      }
    }
    const node: unknown = length === 0 ? doc.contents : doc.getIn(path.slice(0, length), true);
    if (isNode(node) && node.range != null) return at(node.range[0]);
  }
  return at(0);
}

import { dirname } from 'node:path';
import { LineCounter, isMap, isPair, isScalar, isSeq, parseAllDocuments } from 'yaml';
import type { Node as YamlNode } from 'yaml';
import type { z } from 'zod';
import { positionIn } from './positions.js';
import type { IncludedFile } from './positions.js';
import { katalogInConfigMap, upgradeDialect } from './upstream/index.js';
import { isNotAKatalog, upstreamKindNote } from './upstream/document-kinds.js';
import { KatalogError } from './errors.js';
import type { KatalogIssue } from './errors.js';
import { RESOURCE_LIST_KEYS } from './kinds/index.js';
import { formatPath } from './paths.js';
import { KATALOG_API_VERSION, KATALOG_KIND } from './metadata.js';
import type { PathSegment } from './paths.js';
import { Katalog } from './schema/katalog.js';
import { lifecycleNotices } from './schema/lifecycle.js';
import type { CrdEntry, Katalog as KatalogType } from './schema/katalog.js';
import { withTemplateCheck } from './schema/template-check.js';
import { withTemplatedRegex } from './schema/regex-policy.js';
import { describe } from './schema/primitives.js';
import { HOISTED_HOOKS } from './schema/hooks.js';
import { attachSource } from './source.js';
import { checkWaitFor } from './wait-for-checks.js';
import type { WaitForEntry } from './wait-for-checks.js';
import { closestMatch } from './suggest.js';
import { checkYamlText, readYamlFile } from './yaml-input.js';
import type { YamlInputProblem, YamlInputResult } from './yaml-input.js';

/** LoadKatalogOptions configures loadKatalog. */
export interface LoadKatalogOptions {
  /**
   * Called for every template-bearing string (one containing `{{`); returns an error message when
   * the template does not compile. @orkestra/template supplies it. Default: templates are not checked.
   */
  readonly checkTemplate?: (source: string) => string | undefined;
  /**
   * Directory an upstream Katalog's `crdFile` is read from. Default: the directory of `{ path }`;
   * for `{ text }` no neighbouring file is read.
   */
  readonly baseDir?: string;
  /** The clock of the lifecycle warnings (the countdown to a deprecation's end of life). Default: the system clock. */
  readonly now?: () => Date;
}

/** KatalogInputSource is what loadKatalog reads: a file path, or text with an optional file name for messages. */
export type KatalogInputSource =
  { readonly path: string } | { readonly text: string; readonly file?: string };

/**
 * LoadKatalogResult is the loader's result. `ok: true` carries the typed, defaulted, deeply frozen
 * Katalog and warnings (e.g. hoisted hooks); `ok: false` carries every error found, in document
 * order. Each issue has `file`, 1-based `line` and `column`, the field `path` and a `message`.
 */
export type LoadKatalogResult =
  | { readonly ok: true; readonly katalog: KatalogType; readonly warnings: readonly KatalogIssue[] }
  | {
      readonly ok: false;
      readonly errors: readonly KatalogIssue[];
      readonly warnings: readonly KatalogIssue[];
    };

const INLINE = '<inline>';
const PROTO_KEY_MESSAGE =
  'a key named `__proto__` is not allowed (JavaScript reads it as the object prototype)';
const KNOWN_KEYS_MARK = '\u0000known-keys:';

/**
 * loadKatalog reads one Katalog document (from `{ path }` or `{ text, file? }`), validates it
 * against the schema and the cross-field rules, and returns the typed Katalog or every error at
 * once with file, line, column and path. It never throws for bad input. Each tagged node of the
 * result carries its source (see katalogSourceOf).
 *
 * @example
 * const result = loadKatalog({ path: 'examples/website/katalog.yaml' });
 * if (!result.ok) for (const e of result.errors) console.error(`${e.file}:${e.line}:${e.column} ${e.path}: ${e.message}`);
 */
export function loadKatalog(input: KatalogInputSource, options: LoadKatalogOptions = {}): LoadKatalogResult {
  let file = INLINE;
  try {
    let text: string;
    if ('path' in input) {
      file = input.path;
      if (options.baseDir === undefined) options = { ...options, baseDir: dirname(input.path) };
      let read: YamlInputResult;
      try {
        read = readYamlFile(input.path);
      } catch (error) {
        return fail([
          {
            file,
            line: 1,
            column: 1,
            path: '',
            message: `cannot read file: ${error instanceof Error ? error.message : String(error)}`,
          },
        ]);
      }
      if (!read.ok) return fail([{ file, ...positionOf(read.problem) }]);
      text = read.text;
    } else {
      text = input.text;
      file = input.file ?? INLINE;
      const checked = checkYamlText(text);
      if (!checked.ok) return fail([{ file, ...positionOf(checked.problem) }]);
    }
    return loadText(text, file, options);
  } catch (error) {
    // Safety net: a bug in the loader is reported as an issue, never thrown.
    return fail([
      {
        file,
        line: 1,
        column: 1,
        path: '',
        message: `internal loader error: ${error instanceof Error ? error.message : String(error)}`,
      },
    ]);
  }
}

/** loadKatalogOrThrow is loadKatalog for callers that prefer an exception: it throws a KatalogError carrying every issue. */
export function loadKatalogOrThrow(input: KatalogInputSource, options: LoadKatalogOptions = {}): KatalogType {
  const result = loadKatalog(input, options);
  if (!result.ok) throw new KatalogError(result.errors);
  return result.katalog;
}

function positionOf(problem: YamlInputProblem): Omit<KatalogIssue, 'file'> {
  return { line: problem.line, column: problem.column, path: '', message: problem.message };
}

function fail(errors: KatalogIssue[], warnings: KatalogIssue[] = []): LoadKatalogResult {
  return { ok: false, errors: sortIssues(errors), warnings };
}

function sortIssues(issues: KatalogIssue[]): KatalogIssue[] {
  const seen = new Set<string>();
  return issues
    .filter((issue) => {
      const key = `${issue.line}:${issue.column}:${issue.path}:${issue.message}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .sort((a, b) => a.line - b.line || a.column - b.column);
}

interface Position {
  readonly key?: number;
  readonly value: number;
}

class Locator {
  readonly positions = new Map<string, Position>();
  /** Paths of `__proto__` keys: refused everywhere, since a parsed map cannot hold them safely. */
  readonly protoKeys: PathSegment[][] = [];
  readonly lineCounter: LineCounter;
  readonly file: string;
  /** Files merged in by `include:` and motif imports (their node ranges are shifted; see positionIn). */
  included: readonly IncludedFile[] = [];

  constructor(file: string, lineCounter: LineCounter) {
    this.file = file;
    this.lineCounter = lineCounter;
  }

  index(node: unknown, path: PathSegment[], budget: { n: number }): void {
    if (--budget.n < 0) return;
    if (isMap(node)) {
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        const keyNode = pair.key as YamlNode | null;
        const key = isScalar(keyNode) ? String(keyNode.value) : String(keyNode);
        const childPath = [...path, key];
        if (key === '__proto__') this.protoKeys.push(childPath);
        const keyOffset = keyNode?.range?.[0];
        const valueNode = pair.value as YamlNode | null;
        const valueOffset = valueNode?.range?.[0] ?? keyNode?.range?.[1] ?? 0;
        this.positions.set(
          JSON.stringify(childPath),
          keyOffset === undefined ? { value: valueOffset } : { key: keyOffset, value: valueOffset },
        );
        this.index(valueNode, childPath, budget);
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, i) => {
        const childPath = [...path, i];
        const offset = (item as YamlNode | null)?.range?.[0] ?? 0;
        this.positions.set(JSON.stringify(childPath), { value: offset });
        this.index(item, childPath, budget);
      });
    }
  }

  has(path: readonly PathSegment[]): boolean {
    return this.positions.has(JSON.stringify(path));
  }

  /** issue builds a positioned issue: at the key when `at` is 'key', else at the value; missing paths fall back to the nearest ancestor. */
  issue(path: readonly PathSegment[], message: string, at: 'key' | 'value' = 'value'): KatalogIssue {
    let offset = 0;
    for (let n = path.length; n >= 0; n--) {
      const found = this.positions.get(JSON.stringify(path.slice(0, n)));
      if (found !== undefined) {
        offset = n === path.length && at === 'key' && found.key !== undefined ? found.key : found.value;
        break;
      }
    }
    const where = positionIn(offset, this.file, this.lineCounter, this.included);
    return { file: where.file, line: where.line, column: where.column, path: formatPath(path), message };
  }
}

/**
 * upstreamHeader names, in the dialect warning, an upstream header other than upstream Orkestra's
 * own (`apiVersion: inrun.dev/v1`, `kind: Catalog`), so the warning says what was mapped.
 */
function upstreamHeader(header: { apiVersion: string; kind: string } | undefined): string {
  return header == null || header.kind === KATALOG_KIND
    ? ''
    : `${header.apiVersion} ${header.kind} → ${KATALOG_API_VERSION} ${KATALOG_KIND}, `;
}

function loadText(source: string, file: string, options: LoadKatalogOptions): LoadKatalogResult {
  // Upstream's ConfigMap manifests: the Katalog in one data key is read in place (ADR 0027).
  const wrapped = katalogInConfigMap(source);
  const text = wrapped?.ok === true ? wrapped.text : source;
  const lineCounter = new LineCounter();
  const parsed = parseAllDocuments(text, {
    lineCounter,
    prettyErrors: true,
    keepSourceTokens: true,
    uniqueKeys: true,
  });
  const documents = Array.isArray(parsed) ? parsed : [];
  const locator = new Locator(file, lineCounter);
  const at = (offset: number, message: string, path = ''): KatalogIssue => {
    const { line, col } = lineCounter.linePos(offset);
    return { file, line, column: col, path, message };
  };
  const first = documents[0];
  if (first === undefined || (first.contents == null && first.errors.length === 0)) {
    return fail([at(0, 'the file holds no YAML document; expected a Katalog')]);
  }
  const errors: KatalogIssue[] = [];
  const warnings: KatalogIssue[] = [];
  if (wrapped?.ok === false) return fail([at(wrapped.offset, wrapped.message)]);
  if (wrapped?.ok === true)
    warnings.push(
      at(
        wrapped.offset,
        `read the Katalog in data key ${wrapped.key} of ConfigMap ${wrapped.configMap} (upstream's way to deploy one); \`ork migrate\` prints it as a Katalog file`,
      ),
    );
  for (const doc of documents) {
    for (const error of doc.errors) {
      const pos = error.linePos?.[0];
      errors.push({
        file,
        line: pos?.line ?? 1,
        column: pos?.col ?? 1,
        path: '',
        message: `YAML syntax error: ${error.message.split('\n')[0] ?? error.message}`,
      });
    }
  }
  if (documents.length > 1) {
    const second = documents[1];
    errors.push(
      at(
        second?.range?.[0] ?? 0,
        `a Katalog file holds exactly one YAML document, found ${documents.length} (separated by ---); split them into separate files`,
      ),
    );
  }
  if (errors.length > 0) return fail(errors);
  for (const warning of first.warnings) {
    const pos = warning.linePos?.[0];
    warnings.push({
      file,
      line: pos?.line ?? 1,
      column: pos?.col ?? 1,
      path: '',
      message: warning.message.split('\n')[0] ?? warning.message,
    });
  }
  // A Komposer or a motif (and Inrun's Stack and Module) is not a Katalog: say what it is, once.
  const kind = isMap(first.contents) ? first.contents.get('kind', true) : undefined;
  if (isScalar(kind) && isNotAKatalog(kind.value))
    return fail(
      [
        at(
          kind.range?.[0] ?? 0,
          `kind must be ${KATALOG_KIND} (${upstreamKindNote(kind.value) ?? ''})`,
          'kind',
        ),
      ],
      warnings,
    );
  // Upstream dialects are rewritten on the document's nodes, which keep their source ranges.
  const dialect = upgradeDialect(first, {
    lineCounter,
    ...(options.baseDir === undefined ? {} : { baseDir: options.baseDir }),
    checkTemplate: options.checkTemplate,
  });
  locator.included = dialect.included;
  for (const problem of dialect.problems) errors.push({ ...problem, file: problem.file ?? file });
  if (dialect.changes.length > 0) {
    const firstChange = dialect.changes[0];
    warnings.push({
      file: firstChange?.file ?? file,
      line: firstChange?.line ?? 1,
      column: firstChange?.column ?? 1,
      path: '',
      message: `upstream Katalog (${upstreamHeader(dialect.header)}${dialect.generation ?? 'G2'} layout): ${dialect.changes.length} ${dialect.changes.length === 1 ? 'key was' : 'keys were'} mapped onto the canonical form; \`ork migrate ${file}\` rewrites the file`,
    });
  }
  locator.positions.set('[]', { value: first.contents?.range?.[0] ?? 0 });
  locator.index(first.contents, [], { n: 200_000 });

  let raw: unknown;
  try {
    raw = first.toJS({ maxAliasCount: 1000 });
  } catch (error) {
    return fail([at(0, `YAML error: ${error instanceof Error ? error.message : String(error)}`)]);
  }

  // zod reports `__proto__` in a strict object as an unknown key but drops it from a record
  // silently (a CRD entry named `__proto__` would vanish): refuse it everywhere, once.
  for (const path of locator.protoKeys) errors.push(locator.issue(path, PROTO_KEY_MESSAGE, 'key'));
  // A templated regex pattern needs the Katalog's opt-in (docs/reference/katalog.md §8.3, ADR 0028).
  const spec = (raw as { spec?: unknown } | null)?.spec;
  const allowTemplatedRegex =
    typeof spec === 'object' &&
    spec !== null &&
    (spec as Record<string, unknown>)['allowTemplatedRegex'] === true;
  const result = withTemplatedRegex(allowTemplatedRegex, () =>
    withTemplateCheck(options.checkTemplate, () => Katalog.safeParse(raw, { error: errorMap })),
  );
  // An entry whose `apiTypes` the dialect refused (one of Kubernetes' own kinds, docs/reference/
  // katalog.md §24) has that refusal as the reason: the schema's complaints about the same apiTypes
  // (`group`, `version`, `plural` missing from a `kind: ConfigMap`) are its consequences.
  const refusedApiTypes = dialect.problems
    .map((p) => /^spec\.crds(?:\.[^.[]+|\[\d+\])\.apiTypes/.exec(p.path)?.[0])
    .filter((p): p is string => p !== undefined);
  if (!result.success) {
    for (const problem of flatten(result.error.issues, [])) {
      if (problem.path.at(-1) === '__proto__') continue;
      const issue = locator.issue(problem.path, problem.message, problem.at);
      if (refusedApiTypes.some((prefix) => issue.path === prefix || issue.path.startsWith(`${prefix}.`)))
        continue;
      errors.push(issue);
    }
  }
  if (!result.success || errors.length > 0) return fail(errors, warnings);
  // dialect problems (a Go reconciler, an unreadable crdFile) were collected above.

  const katalog = result.data;
  const rawObject = raw as RawKatalog;
  const crdPaths = crdBasePaths(rawObject);
  crossChecks(katalog, rawObject, crdPaths, locator, errors, warnings);
  if (errors.length > 0) return fail(errors, warnings);
  // Lifecycle and publish warnings (docs/reference/katalog.md §2.5, ADR 0063).
  for (const notice of lifecycleNotices(katalog, (options.now ?? (() => new Date()))()))
    warnings.push(locator.issue([...notice.path], notice.message, 'key'));
  tagSources(katalog, rawObject, crdPaths, locator);
  deepFreeze(katalog);
  return { ok: true, katalog, warnings: sortIssues(warnings) };
}

// ---- zod issues → positioned problems ---------------------------------------------------------------

const TYPE_NAMES: Readonly<Record<string, string>> = {
  object: 'a map',
  record: 'a map',
  array: 'a list',
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'a boolean',
  null: 'null',
};

function errorMap(issue: z.core.$ZodRawIssue): string | undefined {
  switch (issue.code) {
    case 'unrecognized_keys': {
      const inst = issue.inst as { _zod?: { def?: { shape?: Record<string, unknown> } } } | undefined;
      return KNOWN_KEYS_MARK + JSON.stringify(Object.keys(inst?._zod?.def?.shape ?? {}));
    }
    case 'invalid_type': {
      const expected = TYPE_NAMES[String(issue['expected'])] ?? String(issue['expected']);
      return issue.input === undefined
        ? 'missing required key'
        : `expected ${expected}, got ${describe(issue.input)}`;
    }
    case 'invalid_value': {
      const values = (issue['values'] as unknown[] | undefined) ?? [];
      const suggestion =
        typeof issue.input === 'string' ? closestMatch(issue.input, values.map(String)) : undefined;
      const base =
        values.length === 1
          ? `expected ${JSON.stringify(values[0])}`
          : `expected one of ${values.map((v) => JSON.stringify(v)).join(', ')}`;
      return `${base}, got ${describe(issue.input)}${suggestion === undefined ? '' : `; did you mean ${JSON.stringify(suggestion)}?`}`;
    }
    case 'too_small': {
      const origin = String(issue['origin']);
      const minimum = String(issue['minimum']);
      if (origin === 'array') return `needs at least ${minimum} ${minimum === '1' ? 'item' : 'items'}`;
      if (origin === 'string')
        return minimum === '1' ? 'must not be empty' : `must be at least ${minimum} characters`;
      return `must be at least ${minimum}, got ${describe(issue.input)}`;
    }
    case 'too_big': {
      const origin = String(issue['origin']);
      const maximum = String(issue['maximum']);
      if (origin === 'array') return `takes at most ${maximum} items`;
      if (origin === 'string') return `must be at most ${maximum} characters`;
      return `must be at most ${maximum}, got ${describe(issue.input)}`;
    }
    default:
      return undefined;
  }
}

interface Problem {
  readonly path: PathSegment[];
  readonly message: string;
  readonly at: 'key' | 'value';
}

const HINTS: Readonly<Record<string, string>> = {
  scope: 'there is no `scope` key; write `namespaced: false` for a cluster-scoped CRD',
  conditions: '`conditions` is not a key here; gate with `when` and `anyOf`',
};

function flatten(issues: readonly z.core.$ZodIssue[], base: readonly PathSegment[]): Problem[] {
  const problems: Problem[] = [];
  for (const issue of issues) {
    const path = [...base, ...(issue.path as PathSegment[])];
    if (issue.code === 'invalid_union') {
      const branches = issue.errors.filter(
        (branch) => !branch.some((inner) => inner.path.length === 0 && inner.code === 'invalid_type'),
      );
      const best = branches.sort((a, b) => a.length - b.length)[0];
      if (best !== undefined && best.length > 0) problems.push(...flatten(best, path));
      else if (/ got nothing$/.test(issue.message))
        problems.push({ path, message: missingKey(path), at: 'value' });
      else
        problems.push({
          path,
          message: issue.message === 'Invalid input' ? 'invalid value' : issue.message,
          at: 'value',
        });
    } else if (issue.code === 'invalid_key') {
      // A record key that fails its key schema: say why, at the key.
      problems.push({ path, message: issue.issues[0]?.message ?? issue.message, at: 'key' });
    } else if (issue.code === 'unrecognized_keys') {
      const known: string[] = issue.message.startsWith(KNOWN_KEYS_MARK)
        ? (JSON.parse(issue.message.slice(KNOWN_KEYS_MARK.length)) as string[])
        : [];
      for (const key of issue.keys) {
        const keyPath = [...path, key];
        problems.push({ path: keyPath, message: unknownKeyMessage(key, known), at: 'key' });
      }
    } else if (
      issue.message === 'missing required key' ||
      (issue.code !== 'custom' && / got nothing$/.test(issue.message))
    ) {
      problems.push({ path, message: missingKey(path), at: 'value' });
    } else {
      problems.push({ path, message: issue.message, at: 'value' });
    }
  }
  return problems;
}

function missingKey(path: readonly PathSegment[]): string {
  return `missing required key \`${String(path[path.length - 1] ?? '')}\``;
}

function unknownKeyMessage(key: string, known: readonly string[]): string {
  const visible = known.filter((k) => k !== 'or' && k !== 'pvcs');
  // `key` comes from the document: only HINTS' own entries count (`toString` is no hint).
  const hint = Object.hasOwn(HINTS, key) ? HINTS[key] : undefined;
  if (hint !== undefined && !known.includes(key)) return `unknown key \`${key}\`; ${hint}`;
  if (RESOURCE_LIST_KEYS.includes(key as never) && known.includes('ordered')) {
    return `unknown key \`${key}\`; only \`jobs\` run at deletion time: list children to delete under \`groups\``;
  }
  const suggestion = closestMatch(key, known);
  return suggestion === undefined
    ? `unknown key \`${key}\`${visible.length > 0 && visible.length <= 12 ? ` (known keys: ${visible.join(', ')})` : ''}`
    : `unknown key \`${key}\`; did you mean \`${suggestion}\`?`;
}

// ---- raw document helpers ------------------------------------------------------------------------

type RawMap = Record<string, unknown>;
type RawKatalog = { spec?: { crds?: unknown } };

function asMap(value: unknown): RawMap {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as RawMap) : {};
}

function asList(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function crdBasePaths(raw: RawKatalog): Map<string, { path: PathSegment[]; raw: RawMap }> {
  const crds = raw.spec?.crds;
  const result = new Map<string, { path: PathSegment[]; raw: RawMap }>();
  if (Array.isArray(crds)) {
    crds.forEach((item, i) =>
      result.set(String(asMap(item)['name']), { path: ['spec', 'crds', i], raw: asMap(item) }),
    );
  } else {
    for (const [name, entry] of Object.entries(asMap(crds)))
      result.set(name, { path: ['spec', 'crds', name], raw: asMap(entry) });
  }
  return result;
}

// ---- cross-field checks -------------------------------------------------------------------------------

function crossChecks(
  katalog: KatalogType,
  _raw: RawKatalog,
  crdPaths: Map<string, { path: PathSegment[]; raw: RawMap }>,
  locator: Locator,
  errors: KatalogIssue[],
  warnings: KatalogIssue[],
): void {
  const crds = katalog.spec.crds as Record<string, CrdEntry>;
  const providerNames = new Set(katalog.spec.providers.map((p) => p.name));
  const kinds = new Map<string, string>();

  for (const [name, entry] of Object.entries(crds)) {
    const base = crdPaths.get(name)?.path ?? ['spec', 'crds', name];
    const raw = crdPaths.get(name)?.raw ?? {};
    const box = entry.operatorBox;
    const rawBox = asMap(raw['operatorBox']);

    const kindKey = `${entry.apiTypes.group}/${entry.apiTypes.kind}`;
    const other = kinds.get(kindKey);
    if (other !== undefined)
      errors.push(
        locator.issue(
          [...base, 'apiTypes', 'kind'],
          `CRD entries ${other} and ${name} both declare ${entry.apiTypes.kind} in group ${entry.apiTypes.group}`,
        ),
      );
    else kinds.set(kindKey, name);

    // dependsOn targets
    const rawDepends = raw['dependsOn'];
    entry.dependsOn.forEach((dep, i) => {
      const depPath = Array.isArray(rawDepends)
        ? [...base, 'dependsOn', i]
        : [...base, 'dependsOn', dep.name];
      const target = crds[dep.name];
      if (target === undefined) {
        const suggestion = closestMatch(dep.name, Object.keys(crds));
        errors.push(
          locator.issue(
            depPath,
            `dependsOn names unknown CRD entry ${dep.name}${suggestion === undefined ? '' : `; did you mean ${suggestion}?`}`,
            'key',
          ),
        );
      } else if (!target.enabled)
        errors.push(locator.issue(depPath, `dependsOn names disabled CRD entry ${dep.name}`, 'key'));
    });

    // provider blocks
    for (const provider of Object.keys(box.providers)) {
      if (!providerNames.has(provider)) {
        const suggestion = closestMatch(provider, [...providerNames]);
        errors.push(
          locator.issue(
            [...base, 'operatorBox', 'providers', provider],
            `provider ${provider} is not declared in spec.providers${suggestion === undefined ? '' : `; did you mean ${suggestion}?`}`,
            'key',
          ),
        );
      }
    }

    // cross reads of this Katalog
    box.cross.forEach((cross, i) => {
      if (cross.endpoint === undefined && cross.url === undefined && crds[cross.crd] === undefined) {
        const suggestion = closestMatch(cross.crd, Object.keys(crds));
        errors.push(
          locator.issue(
            [...base, 'operatorBox', 'cross', i, 'crd'],
            `cross names unknown CRD entry ${cross.crd}${suggestion === undefined ? '' : `; did you mean ${suggestion}?`}`,
          ),
        );
      }
    });

    // ids, waitFor targets and waitFor cycles across both groups (ADR 0009).
    const ordering: WaitForEntry[] = [];
    for (const groupName of ['onCreate', 'onReconcile'] as const) {
      const rawGroup = asMap(rawBox[groupName]);
      for (const listKey of RESOURCE_LIST_KEYS) {
        const rawKey =
          listKey === 'persistentVolumeClaims' && rawGroup['pvcs'] !== undefined ? 'pvcs' : listKey;
        (box[groupName][listKey] as readonly { id?: string; waitFor?: string[] }[]).forEach((item, i) =>
          ordering.push({
            path: [...base, 'operatorBox', groupName, rawKey, i],
            id: item.id,
            waitFor: item.waitFor,
          }),
        );
      }
    }
    for (const issue of checkWaitFor(ordering)) errors.push(locator.issue([...issue.path], issue.message));

    // duplicate children within a group
    for (const groupName of ['onCreate', 'onReconcile'] as const) {
      const group = box[groupName];
      const rawGroup = asMap(rawBox[groupName]);
      for (const listKey of RESOURCE_LIST_KEYS) {
        const rawKey =
          listKey === 'persistentVolumeClaims' && rawGroup['pvcs'] !== undefined ? 'pvcs' : listKey;
        const seen = new Map<string, number>();
        (group[listKey] as readonly unknown[]).forEach((item, i) => {
          const identity = staticIdentity(listKey, item);
          if (identity === undefined) return;
          const first = seen.get(identity.key);
          const entryPath = [...base, 'operatorBox', groupName, rawKey, i];
          if (first !== undefined) {
            const namePath = identity.defaulted
              ? entryPath
              : listKey === 'custom'
                ? [...entryPath, 'metadata', 'name']
                : [...entryPath, 'name'];
            errors.push(
              locator.issue(
                namePath,
                identity.defaulted
                  ? `duplicate child: ${groupName}.${rawKey}[${first}] and [${i}] both get the default name; give each a \`name\``
                  : `duplicate child: ${groupName}.${rawKey}[${first}] and [${i}] both render the name ${identity.label}`,
              ),
            );
          } else seen.set(identity.key, i);
        });
      }
      for (const hook of [...HOISTED_HOOKS.lists, ...HOISTED_HOOKS.blocks]) {
        if (rawGroup[hook] !== undefined) {
          warnings.push(
            locator.issue(
              [...base, 'operatorBox', groupName, hook],
              `\`${hook}\` inside ${groupName} is hoisted to operatorBox.${hook}; move it there`,
              'key',
            ),
          );
        }
      }
    }
  }

  // dependsOn cycles
  const reported = new Set<string>();
  const visit = (name: string, stack: string[]): void => {
    const at = stack.indexOf(name);
    if (at >= 0) {
      const cycle = [...stack.slice(at), name];
      const key = [...cycle.slice(0, -1)].sort().join(',');
      if (!reported.has(key)) {
        reported.add(key);
        const start = cycle[0] ?? name;
        const next = cycle[1] ?? name;
        const base = crdPaths.get(start)?.path ?? ['spec', 'crds', start];
        const rawDepends = crdPaths.get(start)?.raw['dependsOn'];
        const index = crds[start]?.dependsOn.findIndex((d) => d.name === next) ?? 0;
        errors.push(
          locator.issue(
            Array.isArray(rawDepends) ? [...base, 'dependsOn', index] : [...base, 'dependsOn', next],
            `dependsOn cycle: ${cycle.join(' → ')}`,
            'key',
          ),
        );
      }
      return;
    }
    if (stack.length > Object.keys(crds).length) return;
    for (const dep of crds[name]?.dependsOn ?? [])
      if (crds[dep.name] !== undefined) visit(dep.name, [...stack, name]);
  };
  for (const name of Object.keys(crds)) visit(name, []);
}

function staticIdentity(
  listKey: string,
  item: unknown,
): { key: string; label: string; defaulted: boolean } | undefined {
  const entry = item as {
    name?: string;
    namespace?: string;
    forEach?: unknown;
    when: readonly unknown[];
    anyOf: readonly unknown[];
    metadata?: { name: string; namespace?: string };
    apiVersion?: string;
    kind?: string;
  };
  if (entry.forEach !== undefined || entry.when.length > 0 || entry.anyOf.length > 0) return undefined;
  if (listKey === 'custom') {
    const name = entry.metadata?.name ?? '';
    return {
      key: `${entry.apiVersion}/${entry.kind}/${entry.metadata?.namespace ?? ''}/${name}`,
      label: JSON.stringify(name),
      defaulted: false,
    };
  }
  const namespace = entry.namespace ?? '';
  if (entry.name === undefined)
    return { key: `${namespace}/\u0000default`, label: 'the default name', defaulted: true };
  return { key: `${namespace}/${entry.name}`, label: JSON.stringify(entry.name), defaulted: false };
}

// ---- sources --------------------------------------------------------------------------------------------

function tagSources(
  katalog: KatalogType,
  _raw: RawKatalog,
  crdPaths: Map<string, { path: PathSegment[]; raw: RawMap }>,
  locator: Locator,
): void {
  for (const [name, entry] of Object.entries(katalog.spec.crds as Record<string, CrdEntry>)) {
    const base = crdPaths.get(name)?.path ?? ['spec', 'crds', name];
    const raw = crdPaths.get(name)?.raw ?? {};
    const tag = (node: unknown, rel: PathSegment[]): void => {
      if (node === null || typeof node !== 'object') return;
      const documentPath = [...base, ...rel];
      const positioned = locator.issue(documentPath, '');
      attachSource(node, {
        crd: name,
        katalogPath:
          rel.length === 0
            ? name
            : `${name}${rel.length > 0 && typeof rel[0] === 'number' ? '' : '.'}${formatPath(rel)}`,
        documentPath: formatPath(documentPath),
        file: positioned.file,
        line: positioned.line,
        column: positioned.column,
      });
    };
    tag(entry, []);
    const box = entry.operatorBox;
    const rawBox = asMap(raw['operatorBox']);
    tag(box, ['operatorBox']);
    for (const groupName of ['onCreate', 'onReconcile'] as const) {
      const group = box[groupName];
      const rawGroup = asMap(rawBox[groupName]);
      tag(group, ['operatorBox', groupName]);
      for (const listKey of RESOURCE_LIST_KEYS) {
        const rawKey =
          listKey === 'persistentVolumeClaims' && rawGroup['pvcs'] !== undefined ? 'pvcs' : listKey;
        (group[listKey] as readonly unknown[]).forEach((item, i) =>
          tag(item, ['operatorBox', groupName, rawKey, i]),
        );
      }
    }
    const externalPaths: PathSegment[][] = [
      ...asList(asMap(rawBox['onReconcile'])['external']).map((_, i) => [
        'operatorBox',
        'onReconcile',
        'external',
        i,
      ]),
      ...asList(asMap(rawBox['onCreate'])['external']).map((_, i) => [
        'operatorBox',
        'onCreate',
        'external',
        i,
      ]),
      ...asList(rawBox['external']).map((_, i) => ['operatorBox', 'external', i]),
    ];
    box.external.forEach((call, i) => tag(call, externalPaths[i] ?? ['operatorBox', 'external']));
    for (const hook of HOISTED_HOOKS.blocks) {
      const where =
        rawBox[hook] !== undefined
          ? ['operatorBox', hook]
          : asMap(rawBox['onReconcile'])[hook] !== undefined
            ? ['operatorBox', 'onReconcile', hook]
            : ['operatorBox', 'onCreate', hook];
      tag(box[hook], where);
    }
    box.cross.forEach((cross, i) => tag(cross, ['operatorBox', 'cross', i]));
    box.hooks.forEach((hook, i) => tag(hook, ['operatorBox', 'hooks', i]));
    if (box.remote != null) tag(box.remote, ['operatorBox', 'remote']);
    for (const [provider, declarations] of Object.entries(box.providers)) {
      declarations.forEach((decl, i) => tag(decl, ['operatorBox', 'providers', provider, i]));
    }
    tag(box.status, ['operatorBox', 'status']);
    box.status.fields.forEach((field, i) => tag(field, ['operatorBox', 'status', 'fields', i]));
    if (box.onDelete !== undefined) {
      tag(box.onDelete, ['operatorBox', 'onDelete']);
      box.onDelete.jobs.forEach((job, i) => tag(job, ['operatorBox', 'onDelete', 'jobs', i]));
      box.onDelete.groups.forEach((group, i) => tag(group, ['operatorBox', 'onDelete', 'groups', i]));
    }
    if (entry.normalize !== undefined) tag(entry.normalize, ['normalize']);
    entry.mutation?.rules.forEach((rule, i) => tag(rule, ['mutation', 'rules', i]));
    entry.validation?.rules.forEach((rule, i) => tag(rule, ['validation', 'rules', i]));
    if (entry.autoscale !== undefined) {
      tag(entry.autoscale, ['autoscale']);
      const written = asList(asMap(raw['autoscale'])['rules']).length;
      entry.autoscale.rules.forEach((rule, i) =>
        tag(rule, i < written ? ['autoscale', 'rules', i] : ['autoscale', 'conditions']),
      );
    }
  }
}

function deepFreeze(value: unknown, depth = 0): void {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value) || depth > 200) return;
  Object.freeze(value);
  for (const child of Object.values(value)) deepFreeze(child, depth + 1);
}

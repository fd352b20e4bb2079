import Handlebars from 'handlebars';
import { checkNesting } from './nesting-limit.js';
import { findGoSyntax, rewriteLeadingDots } from './go-syntax.js';
import { GoTemplateError, isGoTemplate, translateGoTemplate } from './go-template.js';
import type { Clock, HelperDefinition, RandomSource } from './helpers.js';
import { builtinHelperArity, createHelpers } from './helpers.js';
import { collectReferencedPaths } from './collect-paths.js';
import type { HelperCall } from './collect-paths.js';
import { stringForm } from './string-form.js';
import { TemplateError } from './template-error.js';
import { UPSTREAM_HELPER_HINTS } from './upstream-helpers.js';
import { GO_WORD_NOTES } from './upstream-kube-notes.js';

type Program = hbs.AST.Program;
type Statement = hbs.AST.Statement;
type Expression = hbs.AST.Expression;
type PathExpression = hbs.AST.PathExpression;
type MustacheStatement = hbs.AST.MustacheStatement;
type BlockStatement = hbs.AST.BlockStatement;
type SubExpression = hbs.AST.SubExpression;
type Hash = hbs.AST.Hash;
type HandlebarsEnv = typeof Handlebars;

/**
 * TemplateContext is what a template reads: `apiVersion`, `kind`, `metadata`, `spec`, `status`,
 * `cross`, `external`, `git`, `docker`, `providers`, `children`, `item`, `index`, `value`, `<as>`
 * (section 17.2). Values are plain JSON data.
 */
export interface TemplateContext {
  readonly [key: string]: unknown;
}

/** CompileTemplateOptions locate a template in the Katalog. */
export interface CompileTemplateOptions {
  /** Katalog path of the field, named by every error. */
  readonly path?: string | undefined;
}

/**
 * CompiledTemplate is a template compiled once at load and rendered per reconcile.
 *
 * `render` returns the source unchanged for a static string, the native value for a whole
 * expression (`undefined` when absent or null: the field is not set), else the trimmed string.
 */
export interface CompiledTemplate {
  readonly source: string;
  /** Katalog path the template was compiled for. */
  readonly path: string | undefined;
  /** True when the source contains no `{{` and renders as itself. */
  readonly isStatic: boolean;
  /** True when the trimmed source is exactly one `{{ … }}` expression (not a block). */
  readonly isWholeExpression: boolean;
  /** Every context path the template reads (see `referencedPaths`). */
  readonly referencedPaths: readonly string[];
  /** Helper names the template calls, sorted. */
  readonly helpers: readonly string[];
  /** Every helper call with its arguments, inner calls before the call they are an argument of (for static checks). */
  readonly helperCalls: readonly HelperCall[];
  /** True when the template calls `now`, `uuid` or a random helper, so two renders may differ. */
  readonly isVolatile: boolean;
  /** Renders against a context; a failing helper throws a `TemplateError` naming the path. */
  render(context: TemplateContext): unknown;
}

/** TemplateEngineOptions are the effects the helpers use. */
export interface TemplateEngineOptions {
  /** Source of random bytes for the random helpers and `uuid`. Default `crypto.randomBytes`. */
  readonly random?: RandomSource;
  /** Source of time for `now`. Default the system clock. */
  readonly clock?: Clock;
}

/**
 * TemplateEngine compiles and renders templates with one helper library. Compiles are cached by
 * source string, so compiling the same source twice costs a map lookup.
 */
export interface TemplateEngine {
  /** The helper library, by name (aliases included). */
  readonly helpers: Readonly<Record<string, HelperDefinition>>;
  /** Compiles a template; a syntax error, unknown helper or Go-template construct throws a `TemplateError`. */
  compileTemplate(source: string, options?: CompileTemplateOptions): CompiledTemplate;
  /** Compiles (cached) and renders in one call; suitable as the `renderTemplate` callback of conditions. */
  renderTemplate(source: string, context: TemplateContext, options?: CompileTemplateOptions): unknown;
  /** Tells whether a name is a helper (library or Handlebars built-in). */
  isHelper(name: string): boolean;
}

interface TemplateCore {
  readonly source: string;
  readonly isStatic: boolean;
  readonly isWholeExpression: boolean;
  readonly referencedPaths: readonly string[];
  readonly helpers: readonly string[];
  readonly helperCalls: readonly HelperCall[];
  readonly isVolatile: boolean;
  readonly run: (context: TemplateContext) => unknown;
}

const nativeHelper = '__orkNative';
const stringHelper = '__orkString';
const blockHelpers = new Set(['if', 'unless', 'each', 'with']);

function pathNode(name: string, loc: hbs.AST.SourceLocation): PathExpression {
  return { type: 'PathExpression', data: false, depth: 0, parts: [name], original: name, loc };
}

/** simpleName returns the helper-candidate name of a path (`foo`, not `this.foo`, `../foo`, `@foo`, `a.b`). */
function simpleName(path: PathExpression | hbs.AST.Literal): string | undefined {
  if (path.type !== 'PathExpression') return undefined;
  const p = path as PathExpression;
  if (p.data || p.depth > 0 || p.parts.length !== 1 || /^(?:this|\.)[./]/.test(p.original)) return undefined;
  return p.parts[0];
}

/**
 * bindWordNotes points a call with arguments of an upstream note named by an ordinary word
 * (`{{ name .children.deployment }}`, GO_WORD_NOTES) at the note's internal name; the same word
 * without arguments stays a context key (`{{ name }}`).
 */
function bindWordNotes(statements: readonly Statement[], isHelper: (name: string) => boolean): void {
  const bind = (node: MustacheStatement | SubExpression | BlockStatement): void => {
    const name = simpleName(node.path);
    if (name != null && hasArguments(node) && !isHelper(name) && Object.hasOwn(GO_WORD_NOTES, name)) {
      const path = node.path as PathExpression;
      const internal = GO_WORD_NOTES[name] ?? name;
      path.parts = [internal];
      path.original = internal;
    }
    for (const param of node.params) expression(param);
    for (const pair of node.hash?.pairs ?? []) expression(pair.value);
  };
  const expression = (node: Expression): void => {
    if (node.type === 'SubExpression') bind(node as SubExpression);
  };
  for (const statement of statements) {
    if (statement.type === 'MustacheStatement') bind(statement as MustacheStatement);
    if (statement.type === 'BlockStatement') {
      const block = statement as BlockStatement;
      bind(block);
      bindWordNotes(block.program.body, isHelper);
      if (block.inverse != null) bindWordNotes(block.inverse.body, isHelper);
    }
  }
}

function hasArguments(node: { params: Expression[]; hash?: Hash | undefined }): boolean {
  return node.params.length > 0 || (node.hash != null && node.hash.pairs.length > 0);
}

interface ParseFailure {
  readonly message: string;
  readonly line: number;
  readonly column: number;
}

/** lexerLocation reads where the shared Handlebars lexer stopped after a parse error. */
function lexerLocation(env: HandlebarsEnv): { line: number; column: number } {
  const parser = (
    env as unknown as { Parser?: { lexer?: { yylloc?: { first_line?: number; first_column?: number } } } }
  ).Parser;
  const loc = parser?.lexer?.yylloc;
  return { line: loc?.first_line ?? 1, column: (loc?.first_column ?? 0) + 1 };
}

function describeParseError(env: HandlebarsEnv, source: string, error: unknown): ParseFailure {
  const raw = error instanceof Error ? error.message : String(error);
  const located = error as { lineNumber?: unknown; column?: unknown };
  if (typeof located.lineNumber === 'number' && typeof located.column === 'number') {
    // A Handlebars exception raised while building the AST (e.g. mismatched block close).
    const message = raw.replace(/ - \d+:\d+$/, '');
    return { message: `syntax error: ${message}`, line: located.lineNumber, column: located.column + 1 };
  }
  const lastOpen = source.lastIndexOf('{{');
  if (lastOpen >= 0 && !source.includes('}}', lastOpen)) {
    return { message: 'syntax error: missing }} to close this {{', ...offsetToPosition(source, lastOpen) };
  }
  const { line, column } = lexerLocation(env);
  const last = raw.split('\n').at(-1) ?? raw;
  const match = /^Expecting (.*), got '(.*)'$/.exec(last);
  if (match != null) {
    const got =
      match[2] === 'EOF' ? 'end of template' : match[2] === 'INVALID' ? 'invalid text' : `'${match[2]}'`;
    const expected = (match[1] ?? '').split(', ').slice(0, 4).join(', ');
    return { message: `syntax error: unexpected ${got}, expecting ${expected}`, line, column };
  }
  if (/Lexical error/.test(raw)) return { message: 'syntax error: unrecognized text', line, column };
  return { message: `syntax error: ${raw.replace(/ - \d+:\d+$/, '')}`, line, column };
}

function offsetToPosition(source: string, offset: number): { line: number; column: number } {
  const before = source.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - (before.lastIndexOf('\n') + 1) + 1;
  return { line, column };
}

class Engine implements TemplateEngine {
  readonly helpers: Readonly<Record<string, HelperDefinition>>;
  readonly #env: HandlebarsEnv;
  readonly #knownHelpers: Record<string, boolean>;
  readonly #cache = new Map<string, TemplateCore | TemplateError>();
  #captured: unknown;
  #checkingHint = false;

  constructor(options: TemplateEngineOptions) {
    this.helpers = createHelpers({
      ...(options.random == null ? {} : { random: options.random }),
      ...(options.clock == null ? {} : { clock: options.clock }),
    });
    const env = Handlebars.create();
    env.unregisterHelper('log');
    const knownHelpers: Record<string, boolean> = { log: false, [nativeHelper]: true, [stringHelper]: true };
    for (const [name, helper] of Object.entries(this.helpers)) {
      const fn = helper.fn;
      env.registerHelper(name, (...args: unknown[]) => fn(args.slice(0, -1)));
      knownHelpers[name] = true;
    }
    env.registerHelper(nativeHelper, (value: unknown) => {
      this.#captured = value;
      return '';
    });
    env.registerHelper(stringHelper, (value: unknown) => stringForm(value));
    this.#env = env;
    this.#knownHelpers = knownHelpers;
  }

  isHelper(name: string): boolean {
    return Object.hasOwn(this.helpers, name) || Object.hasOwn(builtinHelperArity, name);
  }

  compileTemplate(source: string, options: CompileTemplateOptions = {}): CompiledTemplate {
    let core = this.#cache.get(source);
    if (core == null) {
      try {
        checkNesting(source);
        core = this.#compile(source);
      } catch (error) {
        core = error instanceof TemplateError ? error : new TemplateError(String(error), { cause: error });
      }
      this.#cache.set(source, core);
    }
    if (core instanceof TemplateError) throw core.withPath(options.path);
    return new Bound(core, options.path);
  }

  renderTemplate(source: string, context: TemplateContext, options: CompileTemplateOptions = {}): unknown {
    return this.compileTemplate(source, options).render(context);
  }

  #compile(source: string): TemplateCore {
    if (!source.includes('{{')) {
      return {
        source,
        isStatic: true,
        isWholeExpression: false,
        referencedPaths: [],
        helpers: [],
        helperCalls: [],
        isVolatile: false,
        run: () => source,
      };
    }
    let handlebars = source;
    if (isGoTemplate(source)) {
      // Upstream's Go text/template syntax: parsed and compiled to Handlebars with the same meaning.
      try {
        handlebars = translateGoTemplate(source, { isHelper: (name) => this.isHelper(name) });
      } catch (error) {
        if (!(error instanceof GoTemplateError)) throw error;
        throw new TemplateError(error.message, {
          ...offsetToPosition(source, error.offset),
          suggestion: error.suggestion,
        });
      }
    } else {
      const go = findGoSyntax(source, (action) => this.#translateAction(action));
      if (go != null) {
        throw new TemplateError(go.message, {
          ...offsetToPosition(source, go.offset),
          suggestion: go.suggestion,
        });
      }
    }
    const rewritten = rewriteLeadingDots(handlebars);
    let ast: Program;
    try {
      ast = this.#env.parseWithoutProcessing(rewritten);
    } catch (error) {
      const failure = describeParseError(this.#env, source, error);
      throw new TemplateError(failure.message, { line: failure.line, column: failure.column, cause: error });
    }
    bindWordNotes(ast.body, (name) => this.isHelper(name));
    const used = new Set<string>();
    this.#check(ast.body, used);
    const helpers = [...used].sort();
    const isVolatile = helpers.some((name) => this.helpers[name]?.volatile === true);
    const { paths: referencedPaths, calls: helperCalls } = collectReferencedPaths(ast, (name) =>
      this.isHelper(name),
    );
    const meaningful = ast.body.filter(
      (statement) =>
        !(
          statement.type === 'ContentStatement' && (statement as hbs.AST.ContentStatement).value.trim() === ''
        ),
    );
    const single = meaningful.length === 1 ? meaningful[0] : undefined;
    const base = { source, isStatic: false, referencedPaths, helpers, helperCalls, isVolatile };

    if (single?.type === 'MustacheStatement') {
      const mustache = single as MustacheStatement;
      const direct = this.#directPath(mustache);
      if (direct != null)
        return { ...base, isWholeExpression: true, run: (context) => direct(context) ?? undefined };
      const program: Program = {
        type: 'Program',
        body: [
          {
            type: 'MustacheStatement',
            path: pathNode(nativeHelper, mustache.loc),
            params: [this.#valueExpression(mustache)],
            escaped: false,
            strip: { open: false, close: false },
            loc: mustache.loc,
          } as MustacheStatement,
        ],
        blockParams: [],
        loc: ast.loc,
      };
      const template = this.#build(program);
      return {
        ...base,
        isWholeExpression: true,
        run: (context) => {
          this.#captured = undefined;
          template(context);
          const value = this.#captured;
          this.#captured = undefined;
          return value ?? undefined;
        },
      };
    }

    const concat = this.#concatenation(ast);
    if (concat != null) return { ...base, isWholeExpression: false, run: concat };
    const template = this.#build({
      ...ast,
      body: ast.body.map((statement) => this.#stringStatement(statement)),
    });
    return { ...base, isWholeExpression: false, run: (context) => template(context).trim() };
  }

  /**
   * #translateAction is the suggestion for one Go action found in a Handlebars template: its
   * translation, when it translates and compiles on its own (so the hint renders the same value).
   */
  #translateAction(action: string): string | undefined {
    // A hint is checked once: the check of a hint does not look for a hint of its own.
    if (this.#checkingHint) return undefined;
    this.#checkingHint = true;
    try {
      const translated = translateGoTemplate(action, { isHelper: (name) => this.isHelper(name) });
      if (translated.trim() === '') return undefined;
      this.#compile(translated);
      return translated;
    } catch {
      return undefined;
    } finally {
      this.#checkingHint = false;
    }
  }

  /** #check rejects unknown helpers, wrong arity, partials, decorators and misused block helpers. */
  #check(statements: readonly Statement[], used: Set<string>): void {
    const fail = (message: string, node: hbs.AST.Node): never => {
      throw new TemplateError(message, { line: node.loc.start.line, column: node.loc.start.column + 1 });
    };
    const call = (node: MustacheStatement | SubExpression | BlockStatement, block: boolean): void => {
      const name = simpleName(node.path);
      const helper = name == null ? undefined : (this.helpers[name] ?? builtinHelperArity[name]);
      const args = hasArguments(node);
      if (helper == null || name == null) {
        if (args) {
          const written = (node.path as PathExpression).original ?? String(node.path);
          const hint = Object.hasOwn(UPSTREAM_HELPER_HINTS, written)
            ? UPSTREAM_HELPER_HINTS[written]
            : undefined;
          fail(`unknown helper "${written}"${hint == null ? '' : `: ${hint}`}`, node.path);
        }
      } else {
        if (blockHelpers.has(name) && !block) {
          fail(`"${name}" is a block helper: write {{#${name} …}} … {{/${name}}}`, node.path);
        }
        if (block && !blockHelpers.has(name)) {
          fail(`"${name}" is not a block helper: write {{#if (${name} …)}} … {{/if}}`, node.path);
        }
        if (args || node.type === 'SubExpression' || this.helpers[name] != null) {
          const count = node.params.length;
          if (count < helper.minArgs || count > helper.maxArgs) {
            const want =
              helper.minArgs === helper.maxArgs
                ? `${helper.minArgs}`
                : helper.maxArgs === Infinity
                  ? `at least ${helper.minArgs}`
                  : `${helper.minArgs} to ${helper.maxArgs}`;
            fail(
              `helper "${name}" takes ${want} argument${want === '1' ? '' : 's'}, got ${count}`,
              node.path,
            );
          }
          used.add(name);
        }
      }
      for (const param of node.params) expression(param);
      for (const pair of node.hash?.pairs ?? []) expression(pair.value);
    };
    const expression = (node: Expression): void => {
      if (node.type === 'SubExpression') call(node as SubExpression, false);
      else if (node.type === 'PathExpression') {
        const name = simpleName(node as PathExpression);
        if (name != null && this.helpers[name]?.maxArgs === 0) used.add(name);
      }
    };
    for (const statement of statements) {
      switch (statement.type) {
        case 'MustacheStatement':
          call(statement as MustacheStatement, false);
          break;
        case 'BlockStatement': {
          const block = statement as BlockStatement;
          call(block, true);
          this.#check(block.program.body, used);
          if (block.inverse != null) this.#check(block.inverse.body, used);
          break;
        }
        case 'PartialStatement':
        case 'PartialBlockStatement':
          fail('partials are not supported', statement);
          break;
        case 'DecoratorBlock':
        case 'Decorator':
          fail('decorators are not supported', statement);
          break;
        default:
          break;
      }
    }
  }

  /** #param turns a bare zero-argument helper name used as an argument (`now`) into a call `(now)`. */
  #param(node: Expression): Expression {
    if (node.type === 'SubExpression') {
      const sub = node as SubExpression;
      return { ...sub, params: sub.params.map((p) => this.#param(p)) } as SubExpression;
    }
    if (node.type === 'PathExpression') {
      const name = simpleName(node as PathExpression);
      if (name != null && this.helpers[name]?.maxArgs === 0) {
        return {
          type: 'SubExpression',
          path: node as PathExpression,
          params: [],
          loc: node.loc,
        } as unknown as SubExpression;
      }
    }
    return node;
  }

  #hash(hash: Hash | undefined): Hash | undefined {
    if (hash == null) return undefined;
    return { ...hash, pairs: hash.pairs.map((pair) => ({ ...pair, value: this.#param(pair.value) })) };
  }

  /** #valueExpression is the expression of a mustache as a value: a helper call becomes a subexpression. */
  #valueExpression(mustache: MustacheStatement): Expression {
    const name = simpleName(mustache.path);
    if (hasArguments(mustache) || (name != null && this.helpers[name] != null) || name === 'lookup') {
      const sub = {
        type: 'SubExpression',
        path: mustache.path,
        params: mustache.params.map((p) => this.#param(p)),
        hash: this.#hash(mustache.hash),
        loc: mustache.loc,
      };
      return sub as unknown as SubExpression;
    }
    return mustache.path as Expression;
  }

  #stringStatement(statement: Statement): Statement {
    switch (statement.type) {
      case 'MustacheStatement': {
        const mustache = statement as MustacheStatement;
        return {
          type: 'MustacheStatement',
          path: pathNode(stringHelper, mustache.loc),
          params: [this.#valueExpression(mustache)],
          escaped: mustache.escaped,
          strip: mustache.strip,
          loc: mustache.loc,
        } as MustacheStatement;
      }
      case 'BlockStatement': {
        const block = statement as BlockStatement;
        return {
          ...block,
          params: block.params.map((p) => this.#param(p)),
          hash: this.#hash(block.hash),
          program: this.#stringProgram(block.program),
          inverse: block.inverse == null ? block.inverse : this.#stringProgram(block.inverse),
        } as BlockStatement;
      }
      case 'ContentStatement':
        return { ...statement } as Statement;
      default:
        return statement;
    }
  }

  #stringProgram(program: Program): Program {
    return { ...program, body: program.body.map((statement) => this.#stringStatement(statement)) };
  }

  /** #build compiles an AST eagerly and reuses the runtime setup across renders. */
  #build(program: Program): (context: TemplateContext) => string {
    const env = this.#env;
    const options = {
      knownHelpers: { ...this.#knownHelpers },
      knownHelpersOnly: true,
      noEscape: true,
      strict: false,
      data: true,
    };
    const processed = env.parse(program as unknown as string);
    const compilers = env as unknown as {
      Compiler: new () => { compile(program: Program, options: object): unknown };
      JavaScriptCompiler: new () => {
        compile(environment: unknown, options: object, context: undefined, asObject: true): unknown;
      };
      template(
        spec: unknown,
      ): ((context: unknown, options?: object) => string) & { _setup: (options: object) => void };
    };
    let template: ((context: unknown, options?: object) => string) & { _setup: (options: object) => void };
    try {
      const environment = new compilers.Compiler().compile(processed, options);
      const spec = new compilers.JavaScriptCompiler().compile(environment, options, undefined, true);
      template = compilers.template(spec);
    } catch (error) {
      const hbsError = error as { message?: string; lineNumber?: number; column?: number };
      throw new TemplateError((hbsError.message ?? String(error)).replace(/ - \d+:\d+$/, ''), {
        line: hbsError.lineNumber,
        column: hbsError.column == null ? undefined : hbsError.column + 1,
        cause: error,
      });
    }
    // Handlebars merges and wraps every helper on each call; the helpers never change, so the
    // first setup is kept (the per-call merge costs more than the template itself).
    const setup = template._setup;
    let ready = false;
    template._setup = (setupOptions: object) => {
      if (!ready) {
        setup(setupOptions);
        ready = true;
      }
    };
    return (context) => template(context);
  }

  /** #directPath resolves a whole-expression plain path (`{{ spec.replicas }}`) without Handlebars. */
  #directPath(mustache: MustacheStatement): ((context: TemplateContext) => unknown) | undefined {
    if (hasArguments(mustache) || mustache.path.type !== 'PathExpression') return undefined;
    const path = mustache.path as PathExpression;
    if (path.data || path.depth > 0 || path.parts.length === 0) return undefined;
    if (path.parts.length === 1 && this.isHelper(path.parts[0] ?? '')) return undefined;
    if (/^(?:this|\.)/.test(path.original)) return undefined;
    return resolver(path.parts);
  }

  /** #concatenation renders text with plain-path mustaches only (`{{ metadata.name }}-web`) directly. */
  #concatenation(ast: Program): ((context: TemplateContext) => string) | undefined {
    const pieces: Array<string | ((context: TemplateContext) => unknown)> = [];
    for (const statement of ast.body) {
      if (statement.type === 'ContentStatement') {
        pieces.push((statement as hbs.AST.ContentStatement).value);
        continue;
      }
      if (statement.type !== 'MustacheStatement') return undefined;
      const mustache = statement as MustacheStatement;
      if (mustache.strip.open || mustache.strip.close) return undefined;
      const direct = this.#directPath(mustache);
      if (direct == null) return undefined;
      pieces.push(direct);
    }
    return (context) => {
      let out = '';
      for (const piece of pieces) out += typeof piece === 'string' ? piece : stringForm(piece(context));
      return out.trim();
    };
  }
}

/** resolver builds a lookup of own properties along a path, as Handlebars does (absent past null). */
function resolver(parts: readonly string[]): (context: TemplateContext) => unknown {
  const [a, b, c] = parts;
  const step = (value: unknown, key: string): unknown => {
    if (value == null) return value;
    const next = (value as Record<string, unknown>)[key];
    return next == null || Object.hasOwn(value as object, key) ? next : undefined;
  };
  if (parts.length === 1 && a != null) return (context) => step(context, a);
  if (parts.length === 2 && a != null && b != null) return (context) => step(step(context, a), b);
  if (parts.length === 3 && a != null && b != null && c != null) {
    return (context) => step(step(step(context, a), b), c);
  }
  return (context) => {
    let value: unknown = context;
    for (const key of parts) value = step(value, key);
    return value;
  };
}

class Bound implements CompiledTemplate {
  readonly #core: TemplateCore;
  readonly path: string | undefined;

  constructor(core: TemplateCore, path: string | undefined) {
    this.#core = core;
    this.path = path;
  }

  get source(): string {
    return this.#core.source;
  }
  get isStatic(): boolean {
    return this.#core.isStatic;
  }
  get isWholeExpression(): boolean {
    return this.#core.isWholeExpression;
  }
  get referencedPaths(): readonly string[] {
    return this.#core.referencedPaths;
  }
  get helpers(): readonly string[] {
    return this.#core.helpers;
  }
  get helperCalls(): readonly HelperCall[] {
    return this.#core.helperCalls;
  }
  get isVolatile(): boolean {
    return this.#core.isVolatile;
  }

  render(context: TemplateContext): unknown {
    try {
      return this.#core.run(context);
    } catch (error) {
      if (error instanceof TemplateError) throw error.withPath(this.path);
      const message = error instanceof Error ? error.message : String(error);
      throw new TemplateError(`render failed: ${message}`, { katalogPath: this.path, cause: error });
    }
  }
}

/**
 * createTemplateEngine builds an isolated Handlebars environment (HTML escaping off) with the
 * helper library bound to the given random source and clock.
 *
 * @example
 * const engine = createTemplateEngine({ clock: { now: () => Date.UTC(2026, 0, 1) } });
 * engine.compileTemplate('{{ now }}').render({}); // "2026-01-01T00:00:00Z"
 */
export function createTemplateEngine(options: TemplateEngineOptions = {}): TemplateEngine {
  return new Engine(options);
}

let defaultEngine: TemplateEngine | undefined;

/** getDefaultEngine returns the shared engine (system clock, `crypto.randomBytes`) used when none is passed. */
export function getDefaultEngine(): TemplateEngine {
  defaultEngine ??= createTemplateEngine();
  return defaultEngine;
}

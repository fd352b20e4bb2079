type Program = hbs.AST.Program;
type Statement = hbs.AST.Statement;
type Expression = hbs.AST.Expression;
type PathExpression = hbs.AST.PathExpression;
type MustacheStatement = hbs.AST.MustacheStatement;
type BlockStatement = hbs.AST.BlockStatement;
type SubExpression = hbs.AST.SubExpression;

/** A scope is the context path the current object stands for; `undefined` when unknown. */
type Scope = readonly string[] | undefined;

interface Frame {
  readonly scope: Scope;
  /** Block parameters introduced at this level: name → path (`undefined` for `@index`-like names). */
  readonly params: ReadonlyMap<string, Scope>;
}

/**
 * HelperArgument is what one argument of a helper call is, as far as the template tells without
 * data: a context path (`undefined` when it is not one: a data variable, a block parameter of
 * unknown origin), a literal, or another helper's answer.
 */
export type HelperArgument =
  | { readonly kind: 'path'; readonly path: string | undefined }
  | { readonly kind: 'string'; readonly value: string }
  | { readonly kind: 'number'; readonly value: number }
  | { readonly kind: 'boolean'; readonly value: boolean }
  | { readonly kind: 'null' }
  | { readonly kind: 'call'; readonly helper: string | undefined };

/** HelperCall is one call of a helper and its positional arguments (for static checks such as `ork validate --strict`). */
export interface HelperCall {
  readonly helper: string;
  readonly args: readonly HelperArgument[];
}

/** ReferencedTemplateParts are the context paths a template reads and the helper calls it makes. */
export interface ReferencedTemplateParts {
  readonly paths: string[];
  readonly calls: HelperCall[];
}

/**
 * collectReferencedPaths lists the context paths a parsed template reads, as dot paths from the
 * top of the context, and its helper calls with their arguments. Inside `#each x` the element is
 * `x.*`; inside `#with x` it is `x`; block parameters, `../` and `@root` are followed; data
 * variables (`@index`) and helper names are not paths.
 */
export function collectReferencedPaths(
  program: Program,
  isHelper: (name: string) => boolean,
): ReferencedTemplateParts {
  const found = new Set<string>();
  const calls: HelperCall[] = [];

  const resolve = (path: PathExpression, frames: readonly Frame[]): Scope => {
    if (path.data) {
      if (path.parts[0] !== 'root') return undefined;
      return path.parts.slice(1);
    }
    const frame = frames[frames.length - 1 - path.depth];
    if (frame == null) return undefined;
    const [head, ...rest] = path.parts;
    const explicitThis = /^(?:this|\.)(?:[./]|$)/.test(path.original);
    if (head != null && !explicitThis && path.depth === 0) {
      for (let i = frames.length - 1; i >= 0; i--) {
        const param = frames[i]?.params.get(head);
        if (frames[i]?.params.has(head)) return param == null ? undefined : [...param, ...rest];
      }
    }
    return frame.scope == null ? undefined : [...frame.scope, ...path.parts];
  };

  const record = (scope: Scope): void => {
    if (scope != null && scope.length > 0) found.add(scope.join('.'));
  };

  const isCall = (node: MustacheStatement | SubExpression | BlockStatement): boolean => {
    if (node.params.length > 0 || (node.hash != null && node.hash.pairs.length > 0)) return true;
    if (node.path.type !== 'PathExpression') return false;
    const path = node.path as PathExpression;
    return !path.data && path.depth === 0 && path.parts.length === 1 && isHelper(path.parts[0] ?? '');
  };

  const expression = (node: Expression, frames: readonly Frame[]): Scope => {
    if (node.type === 'PathExpression') {
      const path = node as PathExpression;
      const name = path.parts.length === 1 && !path.data && path.depth === 0 ? path.parts[0] : undefined;
      if (name != null && isHelper(name) && !/^(?:this|\.)/.test(path.original)) return undefined;
      const scope = resolve(path, frames);
      record(scope);
      return scope;
    }
    if (node.type === 'SubExpression') call(node as SubExpression, frames);
    return undefined;
  };

  const call = (
    node: MustacheStatement | SubExpression | BlockStatement,
    frames: readonly Frame[],
  ): Scope[] => {
    if (!isCall(node)) return [expression(node.path as Expression, frames)];
    const scopes = node.params.map((param) => expression(param, frames));
    for (const pair of node.hash?.pairs ?? []) expression(pair.value, frames);
    const path = node.path as PathExpression;
    const helper = path.type === 'PathExpression' && path.parts.length === 1 ? path.parts[0] : undefined;
    if (helper != null && isHelper(helper))
      calls.push({ helper, args: node.params.map((param, i) => argument(param, scopes[i])) });
    if (path.parts[0] === 'lookup') {
      const [target] = scopes;
      const key = node.params[1];
      if (target != null && key != null && (key.type === 'StringLiteral' || key.type === 'NumberLiteral')) {
        record([...target, String((key as hbs.AST.StringLiteral).value)]);
      }
    }
    return scopes;
  };

  const statements = (body: readonly Statement[], frames: readonly Frame[]): void => {
    for (const statement of body) {
      if (statement.type === 'MustacheStatement') {
        call(statement as MustacheStatement, frames);
      } else if (statement.type === 'BlockStatement') {
        const block = statement as BlockStatement;
        const scopes = call(block, frames);
        const helper =
          block.path.type === 'PathExpression' ? (block.path as PathExpression).parts[0] : undefined;
        const target = scopes[0];
        const names = block.program.blockParams ?? [];
        // Like Handlebars, only blocks that change the context add a depth for `../`.
        let inner: Frame | undefined;
        if (helper === 'each' && isCall(block)) {
          const element = target == null ? undefined : [...target, '*'];
          inner = {
            scope: element,
            params: new Map<string, Scope>([
              ...(names[0] == null ? [] : [[names[0], element] as const]),
              ...(names[1] == null ? [] : [[names[1], undefined] as const]),
            ]),
          };
        } else if ((helper === 'with' && isCall(block)) || !isCall(block)) {
          inner = { scope: target, params: new Map(names[0] == null ? [] : [[names[0], target]]) };
        }
        statements(block.program.body, inner == null ? frames : [...frames, inner]);
        if (block.inverse != null) statements(block.inverse.body, frames);
      }
    }
  };

  statements(program.body, [{ scope: [], params: new Map() }]);
  return { paths: [...found].sort(), calls };
}

/** argument describes one helper argument (its resolved path, for a path). */
function argument(node: Expression, scope: Scope): HelperArgument {
  switch (node.type) {
    case 'PathExpression':
      return { kind: 'path', path: scope == null || scope.length === 0 ? undefined : scope.join('.') };
    case 'StringLiteral':
      return { kind: 'string', value: (node as hbs.AST.StringLiteral).value };
    case 'NumberLiteral':
      return { kind: 'number', value: (node as hbs.AST.NumberLiteral).value };
    case 'BooleanLiteral':
      return { kind: 'boolean', value: (node as hbs.AST.BooleanLiteral).value };
    case 'SubExpression': {
      const path = (node as SubExpression).path as PathExpression;
      return { kind: 'call', helper: path.type === 'PathExpression' ? path.parts[0] : undefined };
    }
    default:
      return { kind: 'null' };
  }
}

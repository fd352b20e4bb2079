import type { CoerceType } from './coerce.js';
import { coerce, isCoerceType } from './coerce.js';
import { joinPath } from './katalog-path.js';
import { isPlainMap } from './string-form.js';
import type { CompiledTemplate, TemplateContext, TemplateEngine } from './template-engine.js';
import { getDefaultEngine } from './template-engine.js';
import { TemplateError } from './template-error.js';

/**
 * FieldTypes maps field patterns, relative to the compiled value, to their known type. Segments
 * are dot-separated; `*` (or a trailing `[]`) matches any key or list index:
 * `{ replicas: 'int', 'containers[].ports[].containerPort': 'int', 'resources.limits.*': 'quantity' }`.
 */
export type FieldTypes = Readonly<Record<string, CoerceType>>;

/** CompileValueOptions locate a value in the Katalog and say which of its fields have known types. */
export interface CompileValueOptions {
  /** Katalog path of the value, prefixed to every error path. */
  readonly path?: string | undefined;
  /** Known field types, coerced after rendering (section 17.4). */
  readonly fieldTypes?: FieldTypes | undefined;
  /** Top-level keys left out of the compiled value (e.g. `forEach`, `when`, `anyOf`). */
  readonly omitKeys?: readonly string[] | undefined;
  /** Engine to compile with; default the shared engine. */
  readonly engine?: TemplateEngine | undefined;
}

/** CompiledValueTemplate is one template found inside a compiled value, with its Katalog path. */
export interface CompiledValueTemplate {
  readonly path: string;
  readonly template: CompiledTemplate;
}

/**
 * CompiledValue is a YAML value (an entry, a map, a list or a scalar) whose string leaves
 * containing `{{` were compiled. `render` returns a fresh deep copy with every template rendered,
 * native values kept, known fields coerced and fields whose whole expression is absent left out.
 */
export interface CompiledValue {
  /** True when the value holds no template. */
  readonly isStatic: boolean;
  /** Every template inside the value, for static checks. */
  readonly templates: readonly CompiledValueTemplate[];
  /** Union of the templates' context paths, sorted. */
  readonly referencedPaths: readonly string[];
  /** Renders a fresh deep copy; errors are `TemplateError`s naming the field's Katalog path. */
  render(context: TemplateContext): unknown;
}

interface TypeTrie {
  type?: CoerceType;
  readonly children: Map<string, TypeTrie>;
  any?: TypeTrie;
}

function emptyTrie(): TypeTrie {
  return { children: new Map() };
}

function buildTrie(fieldTypes: FieldTypes, path: string | undefined): TypeTrie {
  const root = emptyTrie();
  for (const [pattern, type] of Object.entries(fieldTypes)) {
    if (!isCoerceType(type)) {
      throw new TemplateError(`unknown field type ${JSON.stringify(type)} for ${pattern}`, {
        katalogPath: path,
      });
    }
    let node = root;
    for (const segment of pattern.replace(/\[\*?\]/g, '.*').split('.')) {
      if (segment === '') continue;
      if (segment === '*') {
        node.any ??= emptyTrie();
        node = node.any;
      } else {
        let child = node.children.get(segment);
        if (child == null) {
          child = emptyTrie();
          node.children.set(segment, child);
        }
        node = child;
      }
    }
    node.type = type;
  }
  return root;
}

function childTrie(trie: TypeTrie | undefined, key: string | number): TypeTrie | undefined {
  if (trie == null) return undefined;
  return trie.children.get(String(key)) ?? trie.any;
}

/** cloneCoerced deep-copies a native value and coerces the fields the trie types. */
function cloneCoerced(value: unknown, trie: TypeTrie | undefined, path: string): unknown {
  if (trie?.type != null) return coerce(value, trie.type, path);
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    value.forEach((item, index) => {
      const rendered = cloneCoerced(item, childTrie(trie, index), joinPath(path, index));
      if (rendered !== undefined) out.push(rendered);
    });
    return out;
  }
  if (isPlainMap(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const rendered = cloneCoerced(item, childTrie(trie, key), joinPath(path, key));
      if (rendered !== undefined) out[key] = rendered;
    }
    return out;
  }
  return value ?? undefined;
}

type Renderer = (context: TemplateContext) => unknown;

/**
 * compileValue walks a YAML value and compiles every string leaf containing `{{` (map keys are
 * literal). Literal values of known-typed fields are coerced at compile time, so `replicas: three`
 * fails at load.
 *
 * @example
 * const entry = compileValue({ name: '{{ metadata.name }}-web', replicas: '{{ spec.replicas }}' }, {
 *   path: 'website.operatorBox.onReconcile.deployments[0]',
 *   fieldTypes: { replicas: 'int' },
 * });
 * entry.render({ metadata: { name: 'shop' }, spec: { replicas: '3' } }); // { name: 'shop-web', replicas: 3 }
 */
export function compileValue(value: unknown, options: CompileValueOptions = {}): CompiledValue {
  const engine = options.engine ?? getDefaultEngine();
  const basePath = options.path ?? '';
  const trie = options.fieldTypes == null ? undefined : buildTrie(options.fieldTypes, options.path);
  const omit = new Set(options.omitKeys ?? []);
  const templates: CompiledValueTemplate[] = [];

  const compileNode = (node: unknown, types: TypeTrie | undefined, path: string, top: boolean): Renderer => {
    if (typeof node === 'string' && node.includes('{{')) {
      const template = engine.compileTemplate(node, { path });
      templates.push({ path, template });
      const type = types?.type;
      if (type != null) return (context) => coerce(template.render(context), type, path);
      if (template.isWholeExpression) return (context) => cloneCoerced(template.render(context), types, path);
      return (context) => template.render(context);
    }
    if (Array.isArray(node)) {
      const items = node.map((item, index) =>
        compileNode(item, childTrie(types, index), joinPath(path, index), false),
      );
      return (context) => {
        const out: unknown[] = [];
        for (const item of items) {
          const rendered = item(context);
          if (rendered !== undefined) out.push(rendered);
        }
        return out;
      };
    }
    if (isPlainMap(node)) {
      const entries: Array<readonly [string, Renderer]> = [];
      for (const [key, item] of Object.entries(node)) {
        if (top && omit.has(key)) continue;
        entries.push([key, compileNode(item, childTrie(types, key), joinPath(path, key), false)] as const);
      }
      return (context) => {
        const out: Record<string, unknown> = {};
        for (const [key, item] of entries) {
          const rendered = item(context);
          if (rendered !== undefined) out[key] = rendered;
        }
        return out;
      };
    }
    const constant = types?.type == null ? node : coerce(node, types.type, path);
    return () => constant;
  };

  const render = compileNode(value, trie, basePath, true);
  const referencedPaths = [...new Set(templates.flatMap((t) => t.template.referencedPaths))].sort();
  return {
    isStatic: templates.length === 0,
    templates,
    referencedPaths,
    render,
  };
}

/** hasTemplate tells whether a YAML value holds any string containing `{{`. */
export function hasTemplate(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('{{');
  if (Array.isArray(value)) return value.some(hasTemplate);
  if (isPlainMap(value)) return Object.values(value).some(hasTemplate);
  return false;
}

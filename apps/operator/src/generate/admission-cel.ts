/**
 * CEL for the comparisons of docs/reference/katalog.md §8.3, written so that the API server reaches the verdict
 * `evaluateCondition` (the reconcile-time evaluator) reaches on the same object (ADR 0049). A
 * comparison CEL cannot decide the same way on every value is not translated; the reason says why.
 */
import { numberForm, stringForm } from '@orkestra/types';
import type { Condition, Expected, FieldCondition } from '@orkestra/types';

/** LeafType is a schema type the translation distinguishes. */
export type LeafType = 'string' | 'integer' | 'number' | 'boolean' | 'object' | 'array';

/**
 * FieldAccess reads one field: `present` is true when the field is there and not null, `value` reads
 * it (only evaluated when present). `type` is the declared schema type; undefined means the value
 * can be anything (a field under `x-kubernetes-preserve-unknown-fields`).
 */
export interface FieldAccess {
  readonly present: string;
  readonly value: string;
  readonly type?: LeafType;
  /** The declared item type of an array field. */
  readonly itemType?: LeafType;
}

/** Translation is CEL that is true exactly when the condition passes, or why there is none. */
export type Translation = { readonly cel: string } | { readonly reason: string };

/** Resolve gives the access to a `spec.` field, or a reason it cannot be read at admission. */
export type Resolve = (segments: readonly string[]) => FieldAccess | { readonly reason: string };

const DECIMAL = String.raw`^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$`;
/** The regex subject limit of docs/reference/katalog.md §8.3 (linear-regex.ts). */
const REGEX_SUBJECT_LIMIT = 4096;

class Untranslatable extends Error {}

/** celString is a CEL string literal. */
export function celString(text: string): string {
  // JSON's escapes (\" \\ \n \uXXXX) are CEL's too.
  return JSON.stringify(text);
}

function celDouble(value: number): string {
  const text = String(value);
  return /[.eE]/.test(text) || !Number.isFinite(value) ? text : `${text}.0`;
}

/** A JSON number that is not whole reaches CEL as a double; numberForm is its string form. */
function doubleWithForm(text: string): number | undefined {
  if (!/^-?\d+\.\d+$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isFinite(n) && !Number.isInteger(n) && numberForm(n) === text ? n : undefined;
}

const readExpectedNumber = (value: unknown): number | undefined => {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && new RegExp(DECIMAL).test(value.trim())) return Number(value.trim());
  return undefined;
};

function listItems(expected: Expected | undefined): string[] {
  if (Array.isArray(expected)) return expected.map(stringForm);
  return stringForm(expected)
    .split(',')
    .map((item) => item.trim());
}

const and = (...parts: string[]): string => {
  const kept = parts.filter((p) => p !== 'true');
  if (kept.includes('false')) return 'false';
  return kept.length === 0 ? 'true' : kept.map((p) => `(${p})`).join(' && ');
};
const or = (...parts: string[]): string => {
  const kept = parts.filter((p) => p !== 'false');
  if (kept.includes('true')) return 'true';
  return kept.length === 0 ? 'false' : kept.map((p) => `(${p})`).join(' || ');
};
const not = (p: string): string => (p === 'true' ? 'false' : p === 'false' ? 'true' : `!(${p})`);
const constant = (b: boolean): string => (b ? 'true' : 'false');

/** The outcome of one comparison before `negate`: false `can` means "cannot be evaluated" (false whatever `negate`). */
interface Raw {
  readonly can: string;
  readonly res: string;
}

/** What a string comparison gives for each kind of value a dynamic field can hold. */
interface StringTest {
  /** The comparison on a CEL string expression. */
  readonly onString: (s: string) => string;
  /** The comparison on the empty string (an absent field), decided here. */
  readonly onEmpty: boolean;
  /** On a double, whose string form CEL cannot write as JavaScript does. */
  readonly onDouble: (v: string) => string;
  /** On a list or map, whose string form is JSON. */
  readonly onList: (v: string) => string;
  readonly onMap: (v: string) => string;
}

function stringTest(operator: string, expected: Expected | undefined): StringTest {
  const want = stringForm(expected);
  const numeric = /^[-0-9.]*$/;
  switch (operator) {
    case 'equals':
    case 'in': {
      const items = operator === 'in' ? listItems(expected) : [want];
      const doubles = items.map(doubleWithForm).filter((d): d is number => d !== undefined);
      if (items.some((w) => w.startsWith('{') || w.startsWith('[')))
        throw new Untranslatable(
          'a value written as JSON ({…} or […]) compares with a map or list field’s JSON text',
        );
      return {
        onString: (s) =>
          items.length === 1
            ? `${s} == ${celString(items[0] ?? '')}`
            : `${s} in [${items.map(celString).join(', ')}]`,
        onEmpty: items.includes(''),
        onDouble: (v) => or(...doubles.map((d) => `${v} == ${celDouble(d)}`)),
        onList: () => 'false',
        onMap: () => 'false',
      };
    }
    case 'prefix':
    case 'suffix': {
      const method = operator === 'prefix' ? 'startsWith' : 'endsWith';
      if (want === '') return allTrue();
      const edge = operator === 'prefix' ? want[0] : want[want.length - 1];
      const bracket = operator === 'prefix' ? ['[', '{'] : [']', '}'];
      return {
        onString: (s) => `${s}.${method}(${celString(want)})`,
        onEmpty: false,
        onDouble: () => {
          if (numeric.test(want))
            throw new Untranslatable(`${JSON.stringify(want)} could be part of a number’s decimal form`);
          return 'false';
        },
        onList: () => {
          if (edge === bracket[0]) throw new Untranslatable('the value could be part of a list’s JSON text');
          return 'false';
        },
        onMap: () => {
          if (edge === bracket[1]) throw new Untranslatable('the value could be part of a map’s JSON text');
          return 'false';
        },
      };
    }
    case 'contains':
      return {
        onString: (s) => `${s}.contains(${celString(want)})`,
        onEmpty: want === '',
        onDouble: () => {
          throw new Untranslatable('contains on a field of any type reads a map’s JSON text');
        },
        onList: () => 'false',
        onMap: () => 'false',
      };
    case 'regex':
      return {
        onString: (s) => `${s}.matches(${celString(want)})`,
        onEmpty: false,
        onDouble: () => {
          throw new Untranslatable('a regex on a field of any type reads numbers, maps and lists as text');
        },
        onList: () => 'false',
        onMap: () => 'false',
      };
    default:
      throw new Untranslatable(`operator ${operator} has no string test`);
  }
}

function allTrue(): StringTest {
  return {
    onString: () => 'true',
    onEmpty: true,
    onDouble: () => 'true',
    onList: () => 'true',
    onMap: () => 'true',
  };
}

/** stringFormOf is the CEL string form of a typed field whose string form CEL writes as JavaScript does. */
function typedString(field: FieldAccess): string {
  switch (field.type) {
    case 'string':
      return `(${field.present} ? ${field.value} : '')`;
    case 'integer':
    case 'boolean':
      return `(${field.present} ? string(${field.value}) : '')`;
    default:
      throw new Untranslatable(
        `a field of type ${field.type ?? 'any'} has a string form (decimal or JSON) CEL does not write`,
      );
  }
}

/** dynString applies a string test to a field of any type, by the type it holds at admission. */
function dynString(field: FieldAccess, test: StringTest): string {
  const v = field.value;
  return `!(${field.present}) ? ${constant(test.onEmpty)} : type(${v}) == string ? (${test.onString(v)}) : (type(${v}) == int || type(${v}) == bool) ? (${test.onString(`string(${v})`)}) : type(${v}) == double ? (${test.onDouble(v)}) : type(${v}) == list ? (${test.onList(v)}) : (${test.onMap(v)})`;
}

function stringComparison(field: FieldAccess, operator: string, expected: Expected | undefined): Raw {
  const test = stringTest(operator, expected);
  if (operator === 'contains' && field.type === 'array') {
    // A list contains a value when an item's string form equals it (evaluate-conditions.ts).
    const item = { present: `type(x) != null_type`, value: 'x' };
    const equals = stringTest('equals', expected);
    const itemTest =
      field.itemType === 'string' || field.itemType === 'integer' || field.itemType === 'boolean'
        ? equals.onString(field.itemType === 'string' ? 'x' : 'string(x)')
        : dynString(item, equals);
    return {
      can: 'true',
      res: `${field.present} ? ${field.value}.exists(x, ${itemTest}) : ${constant(test.onEmpty)}`,
    };
  }
  if (field.type === undefined) {
    if (operator === 'contains')
      throw new Untranslatable('contains on a field of any type reads a map’s JSON text');
    if (operator === 'regex')
      throw new Untranslatable('a regex on a field of any type reads numbers, maps and lists as text');
    return { can: 'true', res: dynString(field, test) };
  }
  const s = typedString(field);
  if (operator === 'regex') return { can: `size(${s}) <= ${REGEX_SUBJECT_LIMIT}`, res: test.onString(s) };
  return { can: 'true', res: test.onString(s) };
}

function numberOf(field: FieldAccess): Raw {
  const { present: p, value: v } = field;
  switch (field.type) {
    case 'integer':
    case 'number':
      return { can: 'true', res: `(${p} ? double(${v}) : 0.0)` };
    case 'string':
      return {
        can: `!(${p}) || ${v} == '' || ${v}.matches(${celString(DECIMAL)})`,
        res: `((!(${p}) || ${v} == '') ? 0.0 : double(${v}))`,
      };
    case 'boolean':
    case 'object':
    case 'array':
      return { can: `!(${p})`, res: '0.0' };
    default:
      return {
        can: `!(${p}) || type(${v}) == int || type(${v}) == double || (type(${v}) == string && (${v} == '' || ${v}.matches(${celString(DECIMAL)})))`,
        res: `(!(${p}) ? 0.0 : type(${v}) == string ? (${v} == '' ? 0.0 : double(${v})) : double(${v}))`,
      };
  }
}

function numericComparison(field: FieldAccess, operator: string, expected: Expected | undefined): Raw {
  const n = numberOf(field);
  if (operator === 'between' || operator === 'notBetween') {
    const bounds = Array.isArray(expected) ? expected : stringForm(expected).split(',');
    const lo = readExpectedNumber(bounds[0]);
    const hi = readExpectedNumber(bounds[1]);
    if (bounds.length !== 2 || lo === undefined || hi === undefined) return { can: 'false', res: 'false' };
    const inside = `${celDouble(lo)} <= ${n.res} && ${n.res} <= ${celDouble(hi)}`;
    return { can: n.can, res: operator === 'between' ? inside : `!(${inside})` };
  }
  const e = readExpectedNumber(expected);
  if (e === undefined) return { can: 'false', res: 'false' };
  const symbol = { gt: '>', lt: '<', gte: '>=', lte: '<=' }[operator as 'gt' | 'lt' | 'gte' | 'lte'];
  return { can: n.can, res: `${n.res} ${symbol} ${celDouble(e)}` };
}

const TYPE_NAMES: Readonly<Record<LeafType, string>> = {
  string: 'string',
  integer: 'number',
  number: 'number',
  boolean: 'bool',
  object: 'map',
  array: 'slice',
};
const TYPE_OPERATORS: Readonly<Record<string, string>> = {
  typeMap: 'map',
  typeList: 'slice',
  typeString: 'string',
  typeNumber: 'number',
  typeBool: 'bool',
  typeNull: 'null',
};

function typeComparison(field: FieldAccess, wanted: string): Raw {
  if (field.type !== undefined) {
    const declared = TYPE_NAMES[field.type];
    return {
      can: 'true',
      res: or(
        and(field.present, constant(declared === wanted)),
        and(not(field.present), constant(wanted === 'null')),
      ),
    };
  }
  const v = field.value;
  const name = `(!(${field.present}) ? 'null' : type(${v}) == string ? 'string' : (type(${v}) == int || type(${v}) == double) ? 'number' : type(${v}) == bool ? 'bool' : type(${v}) == list ? 'slice' : 'map')`;
  return { can: 'true', res: `${name} == ${celString(wanted)}` };
}

function raw(condition: FieldCondition, field: FieldAccess): Raw {
  const { operator, value } = condition;
  switch (operator) {
    case 'exists':
    case 'notExists': {
      const exists =
        field.type === 'string'
          ? and(field.present, `${field.value} != ''`)
          : field.type !== undefined
            ? field.present
            : and(field.present, `!(type(${field.value}) == string && ${field.value} == '')`);
      return { can: 'true', res: operator === 'exists' ? exists : not(exists) };
    }
    case 'equals':
    case 'contains':
    case 'prefix':
    case 'suffix':
    case 'regex':
    case 'in':
      return stringComparison(field, operator, value);
    case 'notEquals':
    case 'notContains':
    case 'notPrefix':
    case 'notSuffix':
    case 'notIn': {
      const positive = {
        notEquals: 'equals',
        notContains: 'contains',
        notPrefix: 'prefix',
        notSuffix: 'suffix',
        notIn: 'in',
      }[operator];
      const r = stringComparison(field, positive, value);
      return { can: r.can, res: not(r.res) };
    }
    case 'gt':
    case 'lt':
    case 'gte':
    case 'lte':
    case 'between':
    case 'notBetween':
      return numericComparison(field, operator, value);
    case 'typeOf':
      return typeComparison(field, stringForm(value));
    case 'typeMap':
    case 'typeList':
    case 'typeString':
    case 'typeNumber':
    case 'typeBool':
    case 'typeNull':
      return typeComparison(field, TYPE_OPERATORS[operator] ?? '');
    case 'unique':
      throw new Untranslatable('unique compares with the other CRs of the entry, which CEL does not see');
  }
}

const hasTemplate = (value: unknown): boolean =>
  Array.isArray(value) ? value.some(hasTemplate) : typeof value === 'string' && value.includes('{{');

/**
 * translateCondition gives CEL that is true exactly when `evaluateCondition` passes the condition
 * on the same CR, reading fields through `resolve`, or the reason there is none.
 */
export function translateCondition(condition: Condition, resolve: Resolve): Translation {
  if (!('field' in condition)) return { reason: 'a time condition depends on the clock, not on the object' };
  if (hasTemplate(condition.field) || hasTemplate(condition.value))
    return { reason: 'a template is rendered with the reconcile’s context' };
  const path = condition.field.replace(/^\./, '');
  const segments = path.split('.');
  if (segments[0] !== 'spec' || segments.length < 2)
    return { reason: `${path} is not a field under spec (admission checks what the client sends)` };
  const field = resolve(segments.slice(1));
  if ('reason' in field) return field;
  try {
    const r = raw(condition, field);
    return { cel: and(r.can, condition.negate ? not(r.res) : r.res) };
  } catch (error) {
    if (error instanceof Untranslatable) return { reason: error.message };
    throw error;
  }
}

/** translateGate gives CEL that is true exactly when `evaluateConditions` passes the gate. */
export function translateGate(
  gate: { readonly when?: readonly Condition[]; readonly anyOf?: readonly Condition[] },
  resolve: Resolve,
): Translation {
  const when: string[] = [];
  for (const condition of gate.when ?? []) {
    const t = translateCondition(condition, resolve);
    if ('reason' in t) return t;
    when.push(t.cel);
  }
  const anyOf: string[] = [];
  for (const condition of gate.anyOf ?? []) {
    const t = translateCondition(condition, resolve);
    if ('reason' in t) return t;
    anyOf.push(t.cel);
  }
  return { cel: and(...when, anyOf.length === 0 ? 'true' : or(...anyOf)) };
}

/** CEL_RESERVED are words a CRD rule cannot name a field by (they would need escaping). */
const CEL_RESERVED = new Set(
  'true false null in as break const continue else for function if import let loop package namespace return var'.split(
    ' ',
  ),
);

type Schema = Record<string, unknown>;
const isSchema = (value: unknown): value is Schema =>
  value != null && typeof value === 'object' && !Array.isArray(value);
const LEAF_TYPES = new Set(['string', 'integer', 'number', 'boolean', 'object', 'array']);

/**
 * typedResolver reads fields of `self` = the CRD's `spec` schema node, each declared with a type
 * (a CRD rule cannot name an undeclared field); `reason` when one is not.
 */
export function typedResolver(spec: Schema): Resolve {
  return (segments) => {
    let node: Schema = spec;
    let expr = 'self';
    const present: string[] = [];
    for (const segment of segments) {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(segment) || CEL_RESERVED.has(segment))
        return { reason: `field name ${segment} needs escaping in a CRD rule` };
      const props = node['properties'];
      const child = isSchema(props) ? props[segment] : undefined;
      if (node['type'] !== 'object' || !isSchema(child) || !LEAF_TYPES.has(String(child['type'])))
        return { reason: `spec.${segments.join('.')} has no declared type in the entry's schema` };
      expr = `${expr}.${segment}`;
      present.push(`has(${expr})`);
      node = child;
    }
    const items = node['items'];
    const itemType =
      isSchema(items) && LEAF_TYPES.has(String(items['type'])) ? (items['type'] as LeafType) : undefined;
    return {
      present: present.join(' && '),
      value: expr,
      type: node['type'] as LeafType,
      ...(itemType === undefined ? {} : { itemType }),
    };
  };
}

/** dynamicResolver reads fields of `object.spec` in a ValidatingAdmissionPolicy, whatever the schema declares. */
export function dynamicResolver(): Resolve {
  return (segments) => {
    let expr = 'object.spec';
    const present = ['has(object.spec)'];
    for (const segment of segments) {
      if (/^(?:0|[1-9]\d*)$/.test(segment))
        return { reason: `path segment ${segment} indexes a list or names a map key, by the value's type` };
      present.push(`type(${expr}) == map`, `${celString(segment)} in ${expr}`);
      expr = `${expr}[${celString(segment)}]`;
    }
    present.push(`type(${expr}) != null_type`);
    return { present: present.map((p) => `(${p})`).join(' && '), value: expr };
  };
}

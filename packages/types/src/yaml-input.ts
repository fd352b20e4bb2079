/**
 * Limits on YAML input (Katalogs, and the CR files of `ork render` and `ork simulate`), checked
 * before the document is built, so bad input is a named, positioned error and never a stack
 * overflow, silently replaced bytes or an unbounded allocation (docs/reference/katalog.md §2):
 * at most YAML_SIZE_LIMIT bytes, UTF-8 only (a UTF-8 byte order mark is allowed; UTF-16 and UTF-32
 * are refused by their mark), and collections nested at most YAML_DEPTH_LIMIT deep.
 */
import { readFileSync } from 'node:fs';
import { LineCounter, Parser } from 'yaml';

/** YAML_SIZE_LIMIT is the largest input read: 2 MiB. */
export const YAML_SIZE_LIMIT = 2 * 1024 * 1024;

/** YAML_DEPTH_LIMIT is the deepest nesting of maps and lists accepted. */
export const YAML_DEPTH_LIMIT = 128;

/** YamlInputCode names what is wrong with an input. */
export type YamlInputCode = 'InputTooLarge' | 'NotUtf8' | 'Utf16OrUtf32' | 'NestingTooDeep';

/** YamlInputProblem is a refused input: a code, a 1-based position and a message. */
export interface YamlInputProblem {
  readonly code: YamlInputCode;
  readonly line: number;
  readonly column: number;
  readonly message: string;
}

/** YamlInputResult is the decoded, checked text or the problem found. */
export type YamlInputResult =
  { readonly ok: true; readonly text: string } | { readonly ok: false; readonly problem: YamlInputProblem };

const BYTE_ORDER_MARKS: readonly (readonly [readonly number[], string])[] = [
  [[0x00, 0x00, 0xfe, 0xff], 'UTF-32 (big-endian)'],
  [[0xff, 0xfe, 0x00, 0x00], 'UTF-32 (little-endian)'],
  [[0xfe, 0xff], 'UTF-16 (big-endian)'],
  [[0xff, 0xfe], 'UTF-16 (little-endian)'],
];

/**
 * decodeYamlBytes turns the bytes of a YAML file into text, or names why it cannot: larger than
 * YAML_SIZE_LIMIT, a UTF-16 or UTF-32 byte order mark, or a byte sequence that is not UTF-8 (at its
 * line and column). It then checks the text as checkYamlText does.
 */
export function decodeYamlBytes(bytes: Uint8Array): YamlInputResult {
  if (bytes.length > YAML_SIZE_LIMIT) return { ok: false, problem: tooLarge(bytes.length) };
  for (const [mark, encoding] of BYTE_ORDER_MARKS) {
    if (mark.every((byte, i) => bytes[i] === byte)) {
      return refuse(
        'Utf16OrUtf32',
        1,
        1,
        `the input is ${encoding} (it starts with a byte order mark); YAML input must be UTF-8`,
      );
    }
  }
  const bad = firstInvalidUtf8(bytes);
  if (bad !== undefined) {
    let line = 1;
    let lineStart = 0;
    for (let i = 0; i < bad; i++) {
      if (bytes[i] === 0x0a) {
        line++;
        lineStart = i + 1;
      }
    }
    const column = new TextDecoder().decode(bytes.subarray(lineStart, bad)).length + 1;
    return refuse(
      'NotUtf8',
      line,
      column,
      `the input is not valid UTF-8 (byte 0x${(bytes[bad] ?? 0).toString(16).padStart(2, '0')} at offset ${bad}); YAML input must be UTF-8`,
    );
  }
  const text = new TextDecoder('utf-8', { ignoreBOM: false }).decode(bytes);
  return checkYamlText(text);
}

/** readYamlFile reads a file with decodeYamlBytes; an unreadable file throws as readFileSync does. */
export function readYamlFile(path: string): YamlInputResult {
  return decodeYamlBytes(readFileSync(path));
}

/**
 * checkYamlText checks text already decoded: at most YAML_SIZE_LIMIT bytes as UTF-8, and no map
 * or list nested deeper than YAML_DEPTH_LIMIT (found with yaml's iterative parser, before any
 * recursive step sees the document).
 */
export function checkYamlText(text: string): YamlInputResult {
  // A UTF-16 code unit is at most 3 UTF-8 bytes: measure only when the text may be over the limit.
  if (text.length * 3 > YAML_SIZE_LIMIT) {
    const size = Buffer.byteLength(text, 'utf8');
    if (size > YAML_SIZE_LIMIT) return { ok: false, problem: tooLarge(size) };
  }
  const lineCounter = new LineCounter();
  for (const token of new Parser(lineCounter.addNewLine).parse(text)) {
    const deep = tooDeep(token);
    if (deep !== undefined) {
      const { line, col } = lineCounter.linePos(deep);
      return refuse(
        'NestingTooDeep',
        line,
        col,
        `maps and lists nest deeper than ${YAML_DEPTH_LIMIT} levels here; flatten the document`,
      );
    }
  }
  return { ok: true, text };
}

function refuse(code: YamlInputCode, line: number, column: number, message: string): YamlInputResult {
  return { ok: false, problem: { code, line, column, message } };
}

function tooLarge(size: number): YamlInputProblem {
  return {
    code: 'InputTooLarge',
    line: 1,
    column: 1,
    message: `the input is ${size} bytes; at most ${YAML_SIZE_LIMIT} bytes (2 MiB) are read`,
  };
}

interface CstNode {
  readonly type?: string;
  readonly offset?: number;
  readonly value?: unknown;
  readonly items?: readonly { readonly key?: unknown; readonly value?: unknown }[];
}

const COLLECTIONS = new Set(['block-map', 'block-seq', 'flow-collection']);

/** tooDeep walks one CST token without recursion and returns the offset of the first collection nested too deep. */
function tooDeep(token: unknown): number | undefined {
  const stack: [CstNode, number][] = [[token as CstNode, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [CstNode, number];
    if (depth > YAML_DEPTH_LIMIT) return node.offset ?? 0;
    const children: unknown[] = [];
    if (node.type === 'document' || node.type === 'block-scalar') children.push(node.value);
    for (const item of node.items ?? []) children.push(item.key, item.value);
    for (const child of children) {
      if (child == null || typeof child !== 'object') continue;
      const c = child as CstNode;
      stack.push([c, depth + (COLLECTIONS.has(c.type ?? '') ? 1 : 0)]);
    }
  }
  return undefined;
}

/** firstInvalidUtf8 returns the offset of the first byte that does not start or continue a valid UTF-8 sequence. */
function firstInvalidUtf8(bytes: Uint8Array): number | undefined {
  let i = 0;
  const n = bytes.length;
  while (i < n) {
    const b = bytes[i] ?? 0;
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let min: number;
    if (b >= 0xc2 && b <= 0xdf) [need, min] = [1, 0x80];
    else if (b >= 0xe0 && b <= 0xef) [need, min] = [2, 0x800];
    else if (b >= 0xf0 && b <= 0xf4) [need, min] = [3, 0x10000];
    else return i;
    let cp = b & (0x3f >> need);
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (c & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += need + 1;
  }
  return undefined;
}

/**
 * The shape check of custom resources read from files (`ork render --cr`, `ork simulate`'s
 * `apply.cr`): one place that turns parsed YAML into a CustomResource or a clear error naming the
 * file and the field, so the render and simulate pipelines never meet a CR whose `apiVersion` is a
 * map or whose name is a list.
 */
import { checkYamlText, readYamlFile } from '@orkestra/types';
import { isScalar, parseAllDocuments } from 'yaml';
import type { Document } from 'yaml';
import { isMap } from '../is-map.js';

/** CustomResourceMetadata is the metadata of a checked CR: `name` is a non-empty string, `namespace` and `uid` strings when given. */
export interface CustomResourceMetadata extends Record<string, unknown> {
  readonly name: string;
  readonly namespace?: string;
  readonly uid?: string;
}

/** CustomResource is a CR whose identity fields have been checked by checkCustomResource; other fields are as written. */
export interface CustomResource extends Record<string, unknown> {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: CustomResourceMetadata;
}

/** CrInputError says a CR file does not hold a usable custom resource; the message names the file and the field. */
export class CrInputError extends Error {
  override readonly name = 'CrInputError';
  /** The `CrInputError` code, for callers that test codes. */
  readonly code = 'CrInputError';
}

/** describeValue names a value's type for messages: `null`, `a list`, `a map`, `"text"`, `3`. */
function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a map';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean') return `${typeof value} ${String(value)}`;
  return typeof value;
}

/**
 * checkCustomResource checks a parsed CR once, where it is read: a mapping with string
 * `apiVersion` and `kind`, a `metadata` map with a non-empty string `name`, string `namespace` and
 * `uid` when given, and `spec`/`status` maps when given (null counts as absent). It returns the CR
 * typed, or throws a CrInputError whose message starts with `source`.
 *
 * @example
 * const cr = checkCustomResource(parse(text), 'cr.yaml'); // cr.metadata.name is a string
 */
export function checkCustomResource(value: unknown, source: string): CustomResource {
  function fail(message: string): never {
    throw new CrInputError(`${source}: ${message}`);
  }
  if (!isMap(value)) {
    return fail(`expected a custom resource (a YAML mapping), got ${describeValue(value)}`);
  }
  for (const key of ['apiVersion', 'kind'] as const) {
    const field = value[key];
    if (field == null) fail(`${key} is missing`);
    else if (typeof field !== 'string') fail(`${key} must be a string, got ${describeValue(field)}`);
    else if (field === '') fail(`${key} must not be empty`);
  }
  const metadata = value['metadata'];
  if (metadata == null) fail('metadata.name is missing');
  if (!isMap(metadata)) return fail(`metadata must be a map, got ${describeValue(metadata)}`);
  const name = metadata['name'];
  if (name == null) fail('metadata.name is missing');
  else if (typeof name !== 'string') fail(`metadata.name must be a string, got ${describeValue(name)}`);
  else if (name === '') fail('metadata.name must not be empty');
  for (const key of ['namespace', 'uid'] as const) {
    const field = metadata[key];
    if (field != null && typeof field !== 'string')
      fail(`metadata.${key} must be a string, got ${describeValue(field)}`);
  }
  for (const key of ['spec', 'status'] as const) {
    const field = value[key];
    if (field != null && !isMap(field)) fail(`${key} must be a map, got ${describeValue(field)}`);
  }
  return value as CustomResource;
}

/** ReadCustomResourcesOptions configures readCustomResources. */
export interface ReadCustomResourcesOptions {
  /** Require exactly one CR in the file (`ork simulate`'s `apply.cr`). Default false. */
  readonly single?: boolean;
}

/** isEmptyDocument tells a document with nothing in it (an empty file, `---` then `---`) from an explicit `null`. */
function isEmptyDocument(doc: Document): boolean {
  const contents = doc.contents;
  if (contents == null) return true;
  const range = contents.range;
  return isScalar(contents) && range != null && range[0] === range[1];
}

/**
 * readCustomResources parses a CR file (one or more YAML documents; empty documents between `---`
 * are skipped) and checks each document with checkCustomResource. A YAML error, a file without any
 * document, or a document that is not a CR throws a CrInputError naming `source` (and the document
 * number when the file holds several).
 */
export function readCustomResources(
  text: string,
  source: string,
  options: ReadCustomResourcesOptions = {},
): CustomResource[] {
  const checked = checkYamlText(text);
  if (!checked.ok) {
    const { line, column, message } = checked.problem;
    throw new CrInputError(`${source}:${line}:${column}: ${message}`);
  }
  const parsed = parseAllDocuments(text);
  const documents = (Array.isArray(parsed) ? parsed : []).filter((doc) => !isEmptyDocument(doc));
  if (documents.length === 0) {
    throw new CrInputError(`${source}: expected a custom resource (a YAML mapping), got an empty file`);
  }
  if (options.single === true && documents.length > 1)
    throw new CrInputError(`${source} must hold exactly one YAML document (one CR)`);
  return documents.map((doc, index) => {
    const where = documents.length > 1 ? `${source} (document ${index + 1})` : source;
    const error = doc.errors[0];
    if (error != null) throw new CrInputError(`${where}: ${error.message.split('\n')[0] ?? 'invalid YAML'}`);
    return checkCustomResource(doc.toJS(), where);
  });
}

/**
 * readCrFile reads a CR (or context) file as UTF-8 within the YAML input limits (2 MiB, no UTF-16,
 * valid UTF-8, bounded nesting), or throws a CrInputError naming `source` and the position.
 */
export function readCrFile(path: string, source: string): string {
  const read = readYamlFile(path);
  if (read.ok) return read.text;
  const { line, column, message } = read.problem;
  throw new CrInputError(`${source}:${line}:${column}: ${message}`);
}

import { dirname, resolve } from 'node:path';
import { loadKatalog, readYamlFile } from '@orkestra/types';
import type { Katalog, KatalogIssue, YamlInputResult } from '@orkestra/types';
import { createTemplateEngine } from '@orkestra/template';
import type { TemplateEngine } from '@orkestra/template';
import { reportCaughtError } from './caught-error.js';

/** KatalogFile is a loaded Katalog with the text it came from and the name it is reported under. */
export interface KatalogFile {
  /** The path as given on the command line; every message names it. */
  readonly file: string;
  /** The file's text (the bundle's ConfigMap carries it verbatim). */
  readonly text: string;
  readonly katalog: Katalog;
  readonly warnings: readonly KatalogIssue[];
}

/** LoadKatalogFileResult is a KatalogFile or every error found. */
export type LoadKatalogFileResult =
  | ({ readonly ok: true } & KatalogFile)
  | {
      readonly ok: false;
      readonly errors: readonly KatalogIssue[];
      readonly warnings: readonly KatalogIssue[];
    };

/** LoadKatalogFileOptions configures loadKatalogFile. */
export interface LoadKatalogFileOptions {
  /** Directory relative paths are resolved against. */
  readonly cwd: string;
  /** Engine templates are compiled with; default a fresh engine. */
  readonly engine?: TemplateEngine;
}

/**
 * loadKatalogFile reads a Katalog file, validates it with @orkestra/types and compiles every
 * template with @orkestra/template, so template syntax errors, unknown helpers and Go-template
 * constructs come back as positioned issues like schema errors do.
 */
export function loadKatalogFile(file: string, options: LoadKatalogFileOptions): LoadKatalogFileResult {
  let read: YamlInputResult;
  try {
    read = readYamlFile(resolve(options.cwd, file));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      errors: [{ file, line: 1, column: 1, path: '', message: `cannot read file: ${reason}` }],
      warnings: [],
    };
  }
  if (!read.ok) {
    const { line, column, message } = read.problem;
    return { ok: false, errors: [{ file, line, column, path: '', message }], warnings: [] };
  }
  return loadKatalogText(file, read.text, options);
}

/**
 * loadKatalogText is loadKatalogFile for text already in hand (`ork migrate` checks its output
 * with it); `file` names the messages and places neighbouring files (`crdFile`, motifs).
 */
export function loadKatalogText(
  file: string,
  text: string,
  options: LoadKatalogFileOptions,
): LoadKatalogFileResult {
  const engine = options.engine ?? createTemplateEngine();
  const result = loadKatalog(
    { text, file },
    {
      // An upstream Katalog's crdFile is read next to it.
      baseDir: dirname(resolve(options.cwd, file)),
      checkTemplate: (source) => {
        try {
          engine.compileTemplate(source);
          return undefined;
        } catch (error) {
          reportCaughtError(error, 'load: template');
          return error instanceof Error ? error.message : String(error);
        }
      },
    },
  );
  if (!result.ok) return { ok: false, errors: result.errors, warnings: result.warnings };
  return { ok: true, file, text, katalog: result.katalog, warnings: result.warnings };
}

/** formatIssue renders an issue as one line: `file:line:col: path: message` (the path is left out when empty). */
export function formatIssue(issue: KatalogIssue, prefix = ''): string {
  const where = `${issue.file}:${issue.line}:${issue.column}`;
  return issue.path === ''
    ? `${where}: ${prefix}${issue.message}`
    : `${where}: ${issue.path}: ${prefix}${issue.message}`;
}

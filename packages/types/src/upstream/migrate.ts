/**
 * migrateKatalog: `ork migrate`'s rewrite of an upstream Katalog into canonical text, comments and
 * key order kept (docs/reference/katalog.md §24).
 */
import { LineCounter as LineCounterClass, parseDocument } from 'yaml';
import { katalogInConfigMap } from './configmap-katalog.js';
import { upgradeDialect } from './upgrade-dialect.js';
import type { UpgradeDialectResult } from './upgrade-dialect.js';
import type { DialectChange, DialectProblem } from './upgrader.js';

/** MigrateKatalogOptions locate the Katalog being migrated. */
export interface MigrateKatalogOptions {
  /** Directory `crdFile` paths are resolved against. Default: `crdFile` is not read. */
  readonly baseDir?: string | undefined;
}

/** MigrateKatalogResult is the canonical text of a Katalog with what was changed and what could not be. */
export interface MigrateKatalogResult {
  /** The canonical document; comments and key order of the original are kept. */
  readonly text: string;
  readonly generation: UpgradeDialectResult['generation'];
  readonly changes: readonly DialectChange[];
  readonly problems: readonly DialectProblem[];
}

/**
 * migrateKatalog rewrites the text of an upstream Katalog into the canonical form with the YAML
 * Document API, so comments and key order survive. A canonical Katalog comes back unchanged.
 *
 * @example
 * const { text, changes } = migrateKatalog(readFileSync('katalog.yaml', 'utf8'), { baseDir: '.' });
 */
export function migrateKatalog(source: string, options: MigrateKatalogOptions = {}): MigrateKatalogResult {
  // A Katalog deployed in a ConfigMap (upstream's way) is migrated to a Katalog file.
  const wrapped = katalogInConfigMap(source);
  const text = wrapped?.ok === true ? wrapped.text : source;
  const lineCounter = new LineCounterClass();
  const doc = parseDocument(text, { lineCounter, keepSourceTokens: true });
  if (doc.errors.length > 0) {
    const error = doc.errors[0];
    const pos = error?.linePos?.[0];
    return {
      text,
      generation: undefined,
      changes: [],
      problems: [
        {
          path: '',
          line: pos?.line ?? 1,
          column: pos?.col ?? 1,
          message: `YAML syntax error: ${error?.message.split('\n')[0] ?? ''}`,
        },
      ],
    };
  }
  const result = upgradeDialect(doc, { lineCounter, baseDir: options.baseDir, migrating: true });
  const changes =
    wrapped?.ok === true
      ? [
          {
            path: `data.${wrapped.key}`,
            line: lineCounter.linePos(wrapped.offset).line,
            column: lineCounter.linePos(wrapped.offset).col,
            message: `the Katalog in data key ${wrapped.key} of ConfigMap ${wrapped.configMap}, written as a Katalog file`,
          },
          ...result.changes,
        ]
      : result.changes;
  return {
    text: changes.length === 0 ? text : doc.toString({ lineWidth: 0 }),
    generation: result.generation,
    changes,
    problems: result.problems,
  };
}

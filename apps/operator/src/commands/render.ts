import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'yaml';
import { createTemplateEngine } from '@orkestra/template';
import { readCustomResources } from '../cr-input.js';
import type { CustomResource } from '../cr-input.js';
import { formatIssue, loadKatalogFile } from '../katalog-file.js';
import { toMultiDocumentYaml } from '../manifest-yaml.js';
import { RenderInputError, fakeUid, findEntry, renderCr } from '../render-cr.js';
import type { RenderContext } from '../render-cr.js';
import { createSeededRandom } from '../seeded-random.js';
import type { CliIo, Command } from './command.js';
import { ExitCode, UsageError, parseCommandArgs } from './command.js';
import { reportCaughtError } from '../caught-error.js';

const CONTEXT_KEYS = ['cross', 'git', 'external', 'docker', 'providers', 'children'];

const usage = `Usage: ork render <katalog> --cr <file>… [--context <file>] [--now <time>]

Render offline, as multi-document YAML, every child each CR would get and the status the runtime
would write. Nothing is sent to a cluster; hooks and providers are not called.

Options:
  --cr <file>        A CR (YAML; several documents allowed). Repeat for more files. A CR
                     without metadata.uid gets a fake UID derived from its entry, namespace, name.
  --context <file>   YAML or JSON with results the render cannot compute: top-level keys
                     ${CONTEXT_KEYS.join(', ')}. external.<name>: {ok, status, json, …};
                     providers.<provider>.<name>: {ready, message, outputs}; children: the
                     status-field view of observed children (children.deployment, …).
  --now <time>       RFC 3339 time for time conditions, now and timestamps (default: now).
  -h, --help         Show this help.

Random helpers (randomAlphanumeric, uuid, …) use a generator seeded with the CR's UID, so the
output is reproducible; those values are placeholders, not secrets.`;

type Json = Record<string, unknown>;
const isMap = (value: unknown): value is Json =>
  value != null && typeof value === 'object' && !Array.isArray(value);

function readContext(file: string, cwd: string): RenderContext {
  const value: unknown = parse(readFileSync(resolve(cwd, file), 'utf8'));
  if (value == null) return {};
  if (!isMap(value)) throw new RenderInputError(`${file}: the context must be a map`);
  for (const key of Object.keys(value)) {
    if (!CONTEXT_KEYS.includes(key)) {
      throw new RenderInputError(`${file}: unknown context key ${key}; expected ${CONTEXT_KEYS.join(', ')}`);
    }
    if (!isMap(value[key])) throw new RenderInputError(`${file}: ${key} must be a map`);
  }
  return value as RenderContext;
}

/** renderCommand is `ork render`: the children and status a CR would get, computed offline. */
export const renderCommand: Command = {
  name: 'render',
  summary: 'Render the children and status of CRs offline',
  usage,
  async run(args: readonly string[], io: CliIo): Promise<number> {
    const parsed = parseCommandArgs(args, {
      cr: { type: 'string', multiple: true },
      context: { type: 'string' },
      now: { type: 'string' },
    });
    if (parsed.help) {
      io.stdout.write(`${usage}\n`);
      return ExitCode.Ok;
    }
    const [file, ...extra] = parsed.positionals;
    if (file == null) throw new UsageError('missing <katalog>');
    if (extra.length > 0)
      throw new UsageError(`unexpected argument ${extra[0] ?? ''}; pass CR files with --cr`);
    const crFiles = parsed.values.cr ?? [];
    if (crFiles.length === 0) throw new UsageError('missing --cr <file>');
    const now = parsed.values.now == null ? new Date() : new Date(parsed.values.now);
    if (Number.isNaN(now.getTime()))
      throw new UsageError(`--now ${parsed.values.now ?? ''} is not a valid time`);

    const loaded = loadKatalogFile(file, { cwd: io.cwd });
    if (!loaded.ok) {
      for (const error of loaded.errors) io.stderr.write(`${formatIssue(error)}\n`);
      return ExitCode.Failed;
    }
    let context: RenderContext = {};
    try {
      if (parsed.values.context != null) context = readContext(parsed.values.context, io.cwd);
    } catch (error) {
      reportCaughtError(error, 'render');
      io.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
      return ExitCode.Failed;
    }

    let code: number = ExitCode.Ok;
    for (const crFile of crFiles) {
      let crs: CustomResource[];
      try {
        crs = readCustomResources(readFileSync(resolve(io.cwd, crFile), 'utf8'), crFile);
      } catch (error) {
        reportCaughtError(error, 'render');
        io.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
        code = ExitCode.Failed;
        continue;
      }
      for (const cr of crs) {
        const meta = cr.metadata;
        const found = findEntry(loaded.katalog, cr.apiVersion, cr.kind);
        const seed = meta.uid ?? fakeUid(found?.[0] ?? '', meta.namespace ?? 'default', meta.name);
        const engine = createTemplateEngine({
          random: createSeededRandom(seed),
          clock: { now: () => now.getTime() },
        });
        try {
          const result = renderCr(loaded.katalog, cr, { engine, now, context });
          const ref = `${result.kind} ${result.namespace == null ? '' : `${result.namespace}/`}${result.name}`;
          const ready =
            result.failure == null ? 'Ready=True ReconcileSucceeded' : `Ready=False ${result.failure.reason}`;
          const header = [
            `${crFile}: ${ref} (entry ${result.entryName}): ${result.children.length} ${result.children.length === 1 ? 'child' : 'children'}, ${ready}`,
          ];
          const statusDoc = {
            apiVersion: result.apiVersion,
            kind: result.kind,
            metadata: {
              name: result.name,
              ...(result.namespace == null ? {} : { namespace: result.namespace }),
            },
            status: result.status,
          };
          io.stdout.write(
            toMultiDocumentYaml([...result.children.map((c) => c.manifest), statusDoc], header),
          );
          for (const note of result.notes) io.stderr.write(`note: ${crFile}: ${ref}: ${note}\n`);
          if (result.failure != null) {
            io.stderr.write(
              `${crFile}: ${ref}: Ready=False ${result.failure.reason}: ${result.failure.message}\n`,
            );
            if (
              result.failure.reason === 'TemplateError' ||
              result.failure.reason === 'DuplicateChild' ||
              result.failure.reason === 'InternalError'
            ) {
              code = ExitCode.Failed;
            }
          }
        } catch (error) {
          reportCaughtError(error, 'render');
          io.stderr.write(`error: ${crFile}: ${error instanceof Error ? error.message : String(error)}\n`);
          code = ExitCode.Failed;
        }
      }
    }
    return code;
  },
};

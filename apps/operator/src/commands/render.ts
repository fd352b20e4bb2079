import { resolve } from 'node:path';
import { LineCounter, isNode, parse, parseDocument } from 'yaml';
import type { KubeObject } from '@orkestra/registry';
import { createTemplateEngine } from '@orkestra/template';
import { OfflineEngine, PROTOCOL_ROOT, hookRoots, uidOf } from '@orkestra/reconciler/offline';
import type { OfflineResults, OfflineRun } from '@orkestra/reconciler/offline';
import type { Katalog } from '@orkestra/types';
import { readCrFile, readCustomResources } from '../offline/cr-input.js';
import type { CustomResource } from '../offline/cr-input.js';
import { formatIssue, loadKatalogFile } from '../katalog-file.js';
import { toMultiDocumentYaml } from '../generate/manifest-yaml.js';
import { createSeededRandom } from '../process/seeded-random.js';
import type { CliIo, Command } from './command.js';
import { ExitCode, UsageError, parseCommandArgs } from './command.js';
import { reportCaughtError } from '../caught-error.js';
import { isMap } from '../is-map.js';
import { declaredCalls, scriptedAnswerProblem } from '../offline/simulate/scripted-answers.js';

/** The context file's keys: each hook root of the hook table, and the observed objects. */
const CONTEXT_KEYS = [...hookRoots.map((root) => root.key), 'observed'];

const usage = `Usage: ork render <katalog> --cr <file>… [--context <file>] [--now <time>]

Run one reconcile of each CR offline — the operator's own pipeline against an in-memory cluster —
and print, as multi-document YAML, every child it writes and the status it writes. Nothing is sent
to a cluster; hook and provider results come from the context file.

Options:
  --cr <file>        A CR (YAML; several documents allowed). Repeat for more files. A CR
                     without metadata.uid gets a fake UID derived from its entry, namespace, name.
  --context <file>   YAML or JSON with results the render cannot compute: top-level keys
                     ${CONTEXT_KEYS.join(', ')}. external.<name>: {ok, status, json, …};
                     providers.<provider>.<name>: {ready, message, outputs}; observed: a list
                     of objects as the cluster holds them before the reconcile (e.g. a
                     Deployment with its status), which status fields then read.
  --now <time>       RFC 3339 time for time conditions, now and timestamps (default: now).
  -h, --help         Show this help.

Random helpers (randomAlphanumeric, uuid, …) use a generator seeded with the CR's UID, so the
output is reproducible; those values are placeholders, not secrets.`;

/** RenderContext is a `--context` file: the offline results plus the observed objects. */
interface RenderContext extends OfflineResults {
  readonly observed?: readonly KubeObject[];
}

/** RenderInputError is a context file or CR the render cannot use. */
class RenderInputError extends Error {
  override readonly name = 'RenderInputError';
}

function readContext(file: string, cwd: string, katalog: Katalog): RenderContext {
  const text = readCrFile(resolve(cwd, file), file);
  const value: unknown = parse(text);
  if (value == null) return {};
  if (!isMap(value)) throw new RenderInputError(`${file}: the context must be a map`);
  for (const key of Object.keys(value)) {
    if (!CONTEXT_KEYS.includes(key)) {
      throw new RenderInputError(`${file}: unknown context key ${key}; expected ${CONTEXT_KEYS.join(', ')}`);
    }
    if (key === 'observed') {
      const observed = value[key];
      if (!Array.isArray(observed)) throw new RenderInputError(`${file}: observed must be a list`);
      observed.forEach((item: unknown, index) => {
        const object = isMap(item) ? item : {};
        const meta = isMap(object['metadata']) ? object['metadata'] : {};
        if (
          typeof object['apiVersion'] !== 'string' ||
          typeof object['kind'] !== 'string' ||
          typeof meta['name'] !== 'string'
        )
          throw new RenderInputError(
            `${file}: observed[${index}] needs apiVersion, kind and metadata.name (strings)`,
          );
      });
      continue;
    }
    if (!isMap(value[key])) throw new RenderInputError(`${file}: ${key} must be a map`);
  }
  // A scripted protocol answer must fit its call's result shape (docs/reference/katalog.md §15.1.1).
  const external = value[PROTOCOL_ROOT];
  if (isMap(external)) {
    const calls = declaredCalls(katalog);
    for (const [name, answer] of Object.entries(external)) {
      if (answer == null) continue;
      const problem = scriptedAnswerProblem(calls, name, answer);
      if (problem != null)
        throw new RenderInputError(
          `${positionIn(text, file, [PROTOCOL_ROOT, name, ...problem.path])}: ${PROTOCOL_ROOT}.${name}: ${problem.message}`,
        );
    }
  }
  return value as RenderContext;
}

/** positionIn is `file:line:col` of the node at `path` of a YAML or JSON text (its nearest existing ancestor). */
function positionIn(text: string, file: string, path: readonly (string | number)[]): string {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter });
  for (let length = path.length; length >= 0; length--) {
    const node: unknown = length === 0 ? doc.contents : doc.getIn(path.slice(0, length), true);
    if (isNode(node) && node.range != null) {
      const { line, col } = lineCounter.linePos(node.range[0]);
      return `${file}:${line}:${col}`;
    }
  }
  return file;
}

/** SERVER_FIELDS are the metadata fields the (in-memory) API server sets; the render does not print them. */
const SERVER_FIELDS = ['uid', 'resourceVersion', 'generation', 'creationTimestamp'];
const TLS_KEYS = ['ca.crt', 'tls.crt', 'tls.key'];

/** printable drops server-set metadata and status, and blanks generated TLS material (random keys). */
function printable(object: KubeObject, notes: string[]): KubeObject {
  const metadata = Object.fromEntries(
    Object.entries(object.metadata).filter(([key]) => !SERVER_FIELDS.includes(key)),
  ) as KubeObject['metadata'];
  const { status: _status, ...rest } = object;
  const out: KubeObject = { ...rest, metadata };
  if (object.kind === 'Secret' && object['type'] === 'kubernetes.io/tls' && isMap(object['data'])) {
    notes.push(
      `TLS Secret ${object.metadata.name ?? ''} is shown with empty data; the runtime generates the CA and certificate`,
    );
    const data = { ...object['data'] };
    for (const key of TLS_KEYS) if (key in data) data[key] = '';
    return { ...out, data };
  }
  return out;
}

interface Rendered {
  readonly entry: string;
  readonly namespace: string | undefined;
  readonly children: readonly KubeObject[];
  readonly status: Record<string, unknown>;
  readonly ready: { readonly status: string; readonly reason: string; readonly message: string };
  readonly notes: readonly string[];
}

/**
 * renderOne runs one reconcile of `input` through the offline engine: the CR (with a UID derived
 * from its entry, namespace and name when it has none) and the observed objects go into a fresh
 * in-memory cluster; the children are what the run wrote, in write order.
 */
async function renderOne(
  katalog: Katalog,
  input: CustomResource,
  context: RenderContext,
  now: Date,
): Promise<Rendered> {
  const entry = Object.entries(katalog.spec.crds).find(
    ([, e]) =>
      e.enabled &&
      `${e.apiTypes.group}/${e.apiTypes.version}` === input.apiVersion &&
      e.apiTypes.kind === input.kind,
  )?.[0];
  if (entry == null) {
    throw new RenderInputError(
      `no CRD entry of Katalog ${katalog.metadata.name} serves ${input.apiVersion} ${input.kind}`,
    );
  }
  const namespaced = katalog.spec.crds[entry]?.namespaced ?? true;
  const meta = input.metadata;
  const namespace = namespaced ? (meta.namespace ?? 'default') : undefined;
  const uid = meta.uid ?? uidOf(`${entry}/${namespace ?? ''}/${meta.name}`);
  const clock = fixedClock(now);
  const engine = new OfflineEngine({
    katalog,
    clock,
    engine: createTemplateEngine({ random: createSeededRandom(uid), clock }),
  });
  const { observed, ...results } = context;
  engine.results = results;
  for (const object of observed ?? []) engine.cluster.put(object);
  const { metadata: _m, status: _s, ...body } = input;
  const cr = engine.cluster.put({
    ...structuredClone(body),
    metadata: {
      ...structuredClone(meta),
      ...(namespace == null ? {} : { namespace }),
      uid,
    },
    ...(isMap(input['status']) ? { status: structuredClone(input['status']) } : {}),
  } as KubeObject);
  const before = cr.metadata['generation'];
  const run = await engine.reconcile({
    apiVersion: cr.apiVersion,
    kind: cr.kind,
    name: meta.name,
    ...(namespace == null ? {} : { namespace }),
  });
  const notes = [...run.notes];
  if (run.cr != null && run.cr.metadata['generation'] !== before)
    notes.push('mutation rules changed the spec; the runtime merge-patches it');
  return {
    entry,
    namespace,
    children: childrenOf(run, uid, engine, notes),
    status: isMap(run.cr?.['status']) ? (run.cr['status'] as Record<string, unknown>) : {},
    ready: readyOf(run),
    notes,
  };
}

/** childrenOf lists the CR's children: each written one as last sent, in write order, then any observed child the run left alone. */
function childrenOf(run: OfflineRun, uid: string, engine: OfflineEngine, notes: string[]): KubeObject[] {
  const bodies = new Map<string, KubeObject>();
  for (const write of run.writes) {
    if ((write.verb === 'create' || write.verb === 'apply') && write.body != null)
      bodies.set(identity(write.body), write.body);
  }
  const owned = engine.cluster.childStore.listAllOwned(uid);
  const out = [...bodies.values()].filter((b) => owned.some((o) => identity(o) === identity(b)));
  for (const object of owned) if (!bodies.has(identity(object))) out.push(object);
  return out.map((o) => printable(o, notes));
}

function identity(object: KubeObject): string {
  return `${object.apiVersion}/${object.kind}/${object.metadata.namespace ?? ''}/${object.metadata.name ?? ''}`;
}

function readyOf(run: OfflineRun): Rendered['ready'] {
  const conditions = (run.cr?.['status'] as { conditions?: unknown } | undefined)?.conditions;
  const ready = Array.isArray(conditions)
    ? (conditions as Record<string, unknown>[]).find((c) => c['type'] === 'Ready')
    : undefined;
  if (ready != null)
    return {
      status: String(ready['status']),
      reason: String(ready['reason']),
      message: String(ready['message'] ?? ''),
    };
  return {
    status: run.error == null ? 'Unknown' : 'False',
    reason: run.error?.code ?? '',
    message: run.error?.message ?? '',
  };
}

function fixedClock(now: Date): { now(): number; setTimeout(): object; clearTimeout(): void } {
  return { now: () => now.getTime(), setTimeout: () => ({}), clearTimeout: () => undefined };
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
      if (parsed.values.context != null) context = readContext(parsed.values.context, io.cwd, loaded.katalog);
    } catch (error) {
      reportCaughtError(error, 'render');
      io.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
      return ExitCode.Failed;
    }

    let code: number = ExitCode.Ok;
    for (const crFile of crFiles) {
      let crs: CustomResource[];
      try {
        crs = readCustomResources(readCrFile(resolve(io.cwd, crFile), crFile), crFile);
      } catch (error) {
        reportCaughtError(error, 'render');
        io.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
        code = ExitCode.Failed;
        continue;
      }
      for (const cr of crs) {
        try {
          const result = await renderOne(loaded.katalog, cr, context, now);
          const ref = `${cr.kind} ${result.namespace == null ? '' : `${result.namespace}/`}${cr.metadata.name}`;
          const ready = `Ready=${result.ready.status} ${result.ready.reason}`;
          const count = result.children.length;
          const header = [
            `${crFile}: ${ref} (entry ${result.entry}): ${count} ${count === 1 ? 'child' : 'children'}, ${ready}`,
          ];
          const statusDoc = {
            apiVersion: cr.apiVersion,
            kind: cr.kind,
            metadata: {
              name: cr.metadata.name,
              ...(result.namespace == null ? {} : { namespace: result.namespace }),
            },
            status: result.status,
          };
          io.stdout.write(toMultiDocumentYaml([...result.children, statusDoc], header));
          for (const note of result.notes) io.stderr.write(`note: ${crFile}: ${ref}: ${note}\n`);
          if (result.ready.status !== 'True') {
            io.stderr.write(
              `${crFile}: ${ref}: Ready=${result.ready.status} ${result.ready.reason}: ${result.ready.message}\n`,
            );
            if (
              result.ready.reason === 'TemplateError' ||
              result.ready.reason === 'DuplicateChild' ||
              result.ready.reason === 'InternalError'
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

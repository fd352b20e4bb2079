/**
 * Entry-level motif imports: a motif's kind lists and status fields imported into the entry, its
 * inputs substituted into its templates (docs/reference/katalog.md §24).
 */
import { isMap, isScalar, isSeq, Pair, YAMLMap } from 'yaml';
import type { YAMLSeq } from 'yaml';
import { formatPath, keyOf, mapAt, pairOf, rangeOf, scalar, takeOut, walkScalars } from './nodes.js';
import type { Path } from './nodes.js';
import type { Upgrader } from './upgrader.js';

interface MotifImport {
  readonly item: YAMLMap;
  readonly path: Path;
}

/** takeImports removes every `imports:` list (entry, G1 reconciler, G3 reconcile) and returns its items. */
export function takeImports(up: Upgrader, entry: YAMLMap, base: Path): MotifImport[] {
  const out: MotifImport[] = [];
  const holders: [YAMLMap | undefined, Path][] = [
    [entry, base],
    [mapAt(entry, 'reconciler'), [...base, 'reconciler']],
    [mapAt(entry, 'operatorBox'), [...base, 'operatorBox']],
    [mapAt(mapAt(entry, 'operatorBox'), 'reconcile'), [...base, 'operatorBox', 'reconcile']],
    [mapAt(mapAt(entry, 'operatorBox'), 'reconciler'), [...base, 'operatorBox', 'reconciler']],
  ];
  for (const [holder, path] of holders) {
    const pair = holder == null ? undefined : pairOf(holder, 'imports');
    if (holder == null || pair == null) continue;
    takeOut(holder, pair);
    if (!isSeq(pair.value)) {
      up.problem([...path, 'imports'], pair.value, 'imports is a list of {motif, with} items');
      continue;
    }
    (pair.value as YAMLSeq).items.forEach((item, i) => {
      if (isMap(item)) out.push({ item: item as YAMLMap, path: [...path, 'imports', i] });
      else
        up.problem(
          [...path, 'imports', i],
          item,
          'an import is a map with `motif` (a file path) and `with` (inputs)',
        );
    });
  }
  return out;
}

export function applyImports(
  up: Upgrader,
  entry: YAMLMap,
  imports: readonly MotifImport[],
  boxPath: Path,
): void {
  for (const { item, path } of imports) {
    // Inrun names a motif a module: `module: <file>` (docs/reference/katalog.md §24, ADR 0081).
    const ref =
      pairOf(item, 'motif') ?? pairOf(item, 'module') ?? pairOf(item, 'path') ?? pairOf(item, 'ref');
    const refKey = (ref == null ? undefined : keyOf(ref)) ?? 'motif';
    const file = ref != null && isScalar(ref.value) ? String(ref.value.value) : undefined;
    if (file == null) {
      up.problem(path, item, 'an import needs `motif: <file>` (Inrun: `module: <file>`)');
      continue;
    }
    if (/^(oci|https?):\/\//.test(file)) {
      up.problem(
        [...path, refKey],
        ref?.value,
        `motif ${file} is remote; only motif files next to the Katalog are read`,
      );
      continue;
    }
    const motif = up.readYaml(file, [...path, refKey], ref?.value, 'motif');
    if (motif == null) continue;
    const values = new Map<string, MotifInput>();
    const given = mapAt(item, 'with');
    for (const pair of given?.items ?? []) {
      const key = keyOf(pair as Pair);
      const node = (pair as Pair).value;
      if (key != null && node != null && !isScalar(node))
        up.problem(
          [...path, 'with', key],
          node,
          `motif input \`${key}\` must be a string, number or boolean (a template is a string); lists and maps are not inputs`,
        );
      if (key != null) values.set(key, { value: isScalar(node) ? node.value : undefined, node });
    }
    const inputs = pairOf(motif, 'inputs')?.value;
    let missing = false;
    for (const input of isSeq(inputs) ? (inputs as YAMLSeq).items : []) {
      if (!isMap(input)) continue;
      const name = pairOf(input as YAMLMap, 'name')?.value;
      const key = isScalar(name) ? String(name.value) : undefined;
      if (key == null || values.has(key)) continue;
      const fallback = pairOf(input as YAMLMap, 'default')?.value;
      const required = pairOf(input as YAMLMap, 'required')?.value;
      if (fallback != null && isScalar(fallback)) values.set(key, { value: fallback.value, node: fallback });
      else if (isScalar(required) && required.value === true) {
        up.problem(
          [...path, 'with'],
          given ?? item,
          `motif ${file} needs input \`${key}\` (required); give it under \`with:\``,
        );
        missing = true;
      }
    }
    if (missing) continue;
    const box = up.ensureMap(entry, 'operatorBox', item);
    const counts = new Map<string, number>();
    const mergeList = (groupKey: string, pair: Pair): void => {
      const listKey = keyOf(pair);
      if (listKey == null) return;
      substituteInputs(up, pair.value, values, [...path, 'with']);
      const group = up.ensureMap(box, groupKey, item);
      const target = pairOf(group, listKey);
      if (target != null && isSeq(target.value) && isSeq(pair.value))
        (target.value as YAMLSeq).items.push(...(pair.value as YAMLSeq).items);
      else group.items.push(pair);
      counts.set(
        groupKey,
        (counts.get(groupKey) ?? 0) + (isSeq(pair.value) ? (pair.value as YAMLSeq).items.length : 1),
      );
    };
    // A motif's `resources` holds kind lists (imported into onReconcile) or the lifecycle groups
    // `onCreate` / `onReconcile` of kind lists (imported into the same group). Anything else is
    // refused at its key — nothing is dropped silently (docs/reference/katalog.md §24, ADR 0004).
    const resources = mapAt(motif, 'resources');
    for (const pair of resources?.items ?? []) {
      const key = keyOf(pair as Pair);
      const value = (pair as Pair).value;
      const at = [...path, refKey, 'resources', key ?? '?'];
      if (key === 'onCreate' || key === 'onReconcile') {
        if (!isMap(value)) {
          up.problem(at, (pair as Pair).key, `a motif's \`resources.${key}\` is a map of kind lists`);
          continue;
        }
        for (const inner of (value as YAMLMap).items) mergeList(key, inner as Pair);
      } else if (key === 'onDelete') {
        up.problem(
          at,
          (pair as Pair).key,
          "a motif's `resources.onDelete` is not imported: deletion steps are the entry's own; write them under the entry's `operatorBox.onDelete` (docs/reference/katalog.md §5.6)",
        );
      } else if (key != null && isSeq(value)) mergeList('onReconcile', pair as Pair);
      else
        up.problem(
          at,
          (pair as Pair).key,
          `a motif's \`resources.${key ?? '?'}\` must be a kind list (such as \`deployments: [...]\`) or a lifecycle group \`onCreate\` / \`onReconcile\``,
        );
    }
    const motifNotes = pairOf(motif, 'notes');
    if (motifNotes != null)
      up.change(
        [...path, refKey, 'notes'],
        motifNotes.key,
        'not imported: an entry-level import lends no notes (as upstream); import the motif under spec.imports',
      );
    const fields = pairOf(mapAt(motif, 'status') ?? new YAMLMap(), 'fields')?.value;
    if (isSeq(fields)) {
      substituteInputs(up, fields, values, [...path, 'with']);
      const status = up.ensureMap(box, 'status', item);
      const own = pairOf(status, 'fields');
      if (own != null && isSeq(own.value)) (own.value as YAMLSeq).items.push(...(fields as YAMLSeq).items);
      else status.items.push(new Pair(scalar('fields', item), fields));
    }
    const total = [...counts.values()].reduce((a, b) => a + b, 0);
    const into = counts.size === 0 ? ['onReconcile'] : [...counts.keys()];
    up.change(
      path,
      item,
      `imported ${total} ${total === 1 ? 'child' : 'children'} from motif ${file} into ${into
        .map((group) => formatPath([...boxPath.slice(-1), group]))
        .join(' and ')}`,
    );
  }
}

/** MotifInput is one value given to a motif (`with:` or the input's `default`), with its node. */
interface MotifInput {
  readonly value: unknown;
  readonly node: unknown;
}

const INPUT_REF = /index\s+\.inputs\s+"([^"]+)"|\.inputs\.([A-Za-z_][A-Za-z0-9_]*)/g;

const ONLY_REF = /^\{\{-?\s*(?:index\s+\.inputs\s+"([^"]+)"|\.inputs\.([A-Za-z_][A-Za-z0-9_]*))\s*-?\}\}$/;

const ONE_ACTION = /^\{\{-?\s*([^{}]*?)\s*-?\}\}$/;

/**
 * substituteInputs writes a motif's input values into its templates (`.inputs.x`,
 * `index .inputs "x"`). A literal value is written as a constant. A value that is itself a
 * template (`"{{ .spec.replicas }}"`) is evaluated against the CR, as upstream does. A field that
 * is only the input takes the value as written — a template stays a template, a literal stays a
 * literal of its own type — and the value's position, so errors point at the `with:` line. An
 * input used inside a larger expression takes a template's expression in parentheses. A template with text around it cannot be spliced into an expression and is
 * refused at the `with:` value (docs/reference/katalog.md §24).
 */
function substituteInputs(
  up: Upgrader,
  node: unknown,
  values: ReadonlyMap<string, MotifInput>,
  withPath: Path,
): void {
  const template = (input: MotifInput | undefined): string | undefined =>
    typeof input?.value === 'string' && input.value.includes('{{') ? input.value : undefined;
  const expression = (key: string): string => {
    const input = values.get(key);
    const text = template(input);
    if (text == null) {
      const value = input?.value;
      return typeof value === 'number' || typeof value === 'boolean'
        ? String(value)
        : JSON.stringify(value == null ? '' : String(value));
    }
    const action = ONE_ACTION.exec(text.trim());
    if (action?.[1] != null) return `(${action[1]})`;
    up.problem(
      [...withPath, key],
      input?.node,
      `motif input \`${key}\` is a template with text around it, and the motif uses it inside an expression; give a single \`{{ … }}\` action, or text without a template`,
    );
    return '""';
  };
  walkScalars(node, (scalarNode) => {
    if (typeof scalarNode.value !== 'string' || !scalarNode.value.includes('.inputs')) return;
    const only = ONLY_REF.exec(scalarNode.value.trim());
    const key = only?.[1] ?? only?.[2];
    const input = key == null ? undefined : values.get(key);
    if (input != null && (input.value == null || typeof input.value !== 'object')) {
      // The field is the input alone: it takes the value as written (a template stays a template,
      // a literal stays a literal of its own type) and the value's position.
      scalarNode.value = input.value ?? '';
      const range = rangeOf(input.node);
      if (range != null) scalarNode.range = [...range];
      return;
    }
    scalarNode.value = scalarNode.value.replace(/\{\{[\s\S]*?\}\}/g, (action) =>
      action
        .replace(INPUT_REF, (_m, a: string | undefined, b: string | undefined) => expression(a ?? b ?? ''))
        .replace(
          /\.inputs\b/g,
          () => `(dict ${[...values.keys()].map((k) => `${JSON.stringify(k)} ${expression(k)}`).join(' ')})`,
        ),
    );
  });
}

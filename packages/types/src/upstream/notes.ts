/**
 * Upstream `notes` (user-defined template functions, ADR 0025) and Katalog-level `spec.imports`:
 * read once, then every call written out where it is made (note-calls.ts).
 */
import { isMap, isScalar, isSeq } from 'yaml';
import type { Pair, Scalar, YAMLMap, YAMLSeq } from 'yaml';
import { expandNoteCalls, isNoteName, prepareNotes } from './note-calls.js';
import { formatPath, keyOf, mapAt, pairOf, scalarText, takeOut, walk } from './nodes.js';
import type { Path } from './nodes.js';
import { readProfiles } from './presets.js';
import type { Upgrader } from './upgrader.js';

/**
 * katalogImports reads upstream's Katalog-level `spec.imports` (docs/reference/katalog.md §24): each
 * motif lends its `notes` and `profiles` to the whole Katalog, in the order written (upstream reads
 * nothing else of a motif at this level, so its other keys are removed with a note). The list is
 * removed. Two motifs declaring the same note is an error, as upstream.
 */
export function katalogImports(up: Upgrader, root: YAMLMap): void {
  const spec = mapAt(root, 'spec');
  const pair = spec == null ? undefined : pairOf(spec, 'imports');
  if (spec == null || pair == null) return;
  takeOut(spec, pair);
  const path = ['spec', 'imports'];
  if (!isSeq(pair.value)) {
    up.problem(path, pair.value, 'spec.imports is a list of {motif} items');
    return;
  }
  const before = up.notes.size;
  (pair.value as YAMLSeq).items.forEach((item, i) => {
    // Inrun names a motif a module: `module: <file>` (docs/reference/katalog.md §24, ADR 0081).
    const ref = isMap(item)
      ? (pairOf(item as YAMLMap, 'motif') ?? pairOf(item as YAMLMap, 'module'))
      : undefined;
    const refKey = (ref == null ? undefined : keyOf(ref)) ?? 'motif';
    const file = isScalar(ref?.value) ? String((ref?.value as Scalar).value) : undefined;
    if (file == null) {
      up.problem([...path, i], item, 'an import needs `motif: <file>` (Inrun: `module: <file>`)');
      return;
    }
    if (/^(oci|https?):\/\/|^git@/.test(file)) {
      up.problem(
        [...path, i, refKey],
        ref?.value,
        `motif ${file} is remote; only motif files next to the Katalog are read`,
      );
      return;
    }
    const motif = up.readYaml(file, [...path, i, refKey], ref?.value, 'motif');
    if (motif == null) return;
    readNotes(up, motif, root, [...path, i]);
    readProfiles(up, motif);
    const ignored = motif.items
      .map((p) => keyOf(p as Pair))
      .filter(
        (key): key is string =>
          key != null && !['apiVersion', 'kind', 'metadata', 'inputs', 'notes', 'profiles'].includes(key),
      );
    if (ignored.length > 0)
      up.change(
        [...path, i],
        item,
        `motif ${file}: ${ignored.join(', ')} not imported (a Katalog-level import lends only notes and profiles, as upstream; import a motif's resources under an entry's \`imports\`)`,
      );
  });
  up.change(
    path,
    pair.key,
    `removed: ${up.notes.size - before} notes read from its motifs, written out where they are called`,
  );
}

/**
 * readNotes reads upstream's `notes` of the Katalog or of a motif it imports: a list of
 * `{name, description, expression, shadow}` (the first release), or `{include, functions}` whose
 * `include` names a file holding `functions: [...]`. The key is removed. A note declared in the
 * Katalog itself wins over one of the same name from a motif (upstream documents that); two in
 * the same place are an error. Each name must be a Go identifier and each expression non-empty.
 */
export function readNotes(up: Upgrader, holder: YAMLMap, root: YAMLMap, at: Path): void {
  const pair = pairOf(holder, 'notes');
  if (pair == null) return;
  const local = holder === root;
  const path = [...at, 'notes'];
  takeOut(holder, pair);
  const lists: [YAMLSeq, Path][] = [];
  if (isSeq(pair.value)) lists.push([pair.value as YAMLSeq, path]);
  else if (isMap(pair.value)) {
    const block = pair.value as YAMLMap;
    const include = pairOf(block, 'include');
    if (include != null && isScalar(include.value)) {
      const file = up.readYaml(
        String(include.value.value),
        [...path, 'include'],
        include.value,
        'notes file',
      );
      const functions = file == null ? undefined : pairOf(file, 'functions')?.value;
      if (isSeq(functions)) lists.push([functions as YAMLSeq, [...path, 'include', 'functions']]);
      else if (file != null)
        up.problem([...path, 'include'], include.value, 'a notes file holds `functions: [...]`');
    }
    const functions = pairOf(block, 'functions')?.value;
    if (isSeq(functions)) lists.push([functions as YAMLSeq, [...path, 'functions']]);
    for (const key of block.items.map((p) => keyOf(p as Pair))) {
      if (key != null && key !== 'include' && key !== 'functions')
        up.problem(
          [...path, key],
          pairOf(block, key)?.key,
          `upstream \`notes.${key}\` is not known (notes take \`include\` and \`functions\`)`,
        );
    }
  } else {
    up.problem(path, pair.value, 'notes is a list of {name, expression} items (or {functions: [...]})');
    return;
  }
  const here = new Set<string>();
  let read = 0;
  for (const [list, listPath] of lists) {
    list.items.forEach((item, i) => {
      const itemPath = [...listPath, i];
      if (!isMap(item)) {
        up.problem(itemPath, item, 'a note is a map with `name` and `expression`');
        return;
      }
      const map = item as YAMLMap;
      for (const key of map.items.map((p) => keyOf(p as Pair)))
        if (key != null && !['name', 'description', 'expression', 'shadow'].includes(key))
          up.problem(
            [...itemPath, key],
            pairOf(map, key)?.key,
            `unknown key \`${key}\` in a note (known: name, description, expression, shadow)`,
          );
      const nameNode = pairOf(map, 'name')?.value;
      const name = scalarText(nameNode);
      const expressionNode = pairOf(map, 'expression')?.value;
      const expression = scalarText(expressionNode);
      if (name == null || name === '') {
        up.problem([...itemPath, 'name'], item, 'a note needs `name`');
        return;
      }
      if (!isNoteName(name)) {
        up.problem(
          [...itemPath, 'name'],
          nameNode,
          `note name ${JSON.stringify(name)} must be a Go identifier (letters, digits and _, not a keyword): it is called as \`{{ ${name} }}\``,
        );
        return;
      }
      if (expression == null || expression.trim() === '') {
        up.problem(
          [...itemPath, 'expression'],
          expressionNode ?? item,
          `note \`${name}\` needs an \`expression\` (a template)`,
        );
        return;
      }
      if (here.has(name)) {
        up.problem([...itemPath, 'name'], nameNode, `note \`${name}\` is declared twice here`);
        return;
      }
      here.add(name);
      const earlier = up.notes.get(name);
      if (earlier != null && !local) {
        up.problem(
          [...itemPath, 'name'],
          nameNode,
          `note \`${name}\` is declared by two imported motifs (first at ${formatPath(earlier.path)}); rename one, or declare it in the Katalog to override both`,
        );
        return;
      }
      up.notes.set(name, { expression, node: expressionNode, path: itemPath });
      read++;
    });
  }
  if (local)
    up.change(
      path,
      pair.key,
      `removed: ${read} ${read === 1 ? 'note' : 'notes'} written out where they are called`,
    );
}

/**
 * expandNotes writes out every note call in the templates under `spec` (docs/reference/katalog.md
 * §24, note-calls.ts). A note that cannot be prepared (it calls itself, an action is not
 * closed) is reported at its expression; a call that cannot be written out, at the template.
 */
export function expandNotes(up: Upgrader, spec: YAMLMap): void {
  const expressions = new Map([...up.notes].map(([name, note]) => [name, note.expression]));
  const prepared = prepareNotes(expressions);
  if (!prepared.ok) {
    const note = up.notes.get(prepared.name);
    up.problem([...(note?.path ?? []), 'expression'], note?.node, prepared.message);
    return;
  }
  walk(spec, ['spec'], (map, path) => {
    for (const pair of map.items) {
      const value = (pair as Pair).value;
      const key = keyOf(pair as Pair);
      const visit = (node: unknown, at: Path) => {
        if (!isScalar(node) || typeof node.value !== 'string') return;
        const expanded = expandNoteCalls(node.value, prepared.notes);
        if (!expanded.ok) up.problem(at, node, expanded.message);
        else if (expanded.calls > 0) {
          node.value = expanded.text;
          up.change(
            at,
            node,
            `${expanded.calls} note ${expanded.calls === 1 ? 'call' : 'calls'} written out`,
          );
        }
      };
      if (key == null) continue;
      if (isSeq(value)) (value as YAMLSeq).items.forEach((item, i) => visit(item, [...path, key, i]));
      else visit(value, [...path, key]);
    }
  });
}

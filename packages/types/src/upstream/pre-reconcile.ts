/**
 * Upstream's `operatorBox.preReconcile` (docs/reference/katalog.md §20.3, ADR 0047): the sentinels and
 * the two gates, moved to the entry's `preReconcile`. A sentinel called in a gate's template as
 * upstream writes it (`{{ labelsChanged }}`) is written `{{ .sentinels.labelsChanged }}`, the
 * canonical form; one that `preReconcile.sentinels` does not declare is an error at the template,
 * as upstream's validator reports it. The shared `preReconcile.external` calls and each gate's
 * `external` calls are kept (their upstream protocol spellings written as external calls are).
 */
import { isSeq } from 'yaml';
import type { Scalar, YAMLMap, YAMLSeq } from 'yaml';
import { SENTINELS } from '../schema/crd-parts.js';
import { expandNoteCalls, prepareNotes } from './note-calls.js';
import { mapAt, pairOf, scalarText, walkScalars } from './nodes.js';
import type { Path } from './nodes.js';
import { externalProtocols } from './external.js';
import type { Upgrader } from './upgrader.js';

const GATES = ['enqueueGate', 'reconcileGate'] as const;

/** upgradePreReconcile moves `operatorBox.preReconcile` to the entry and writes out its sentinel calls. */
export function upgradePreReconcile(up: Upgrader, entry: YAMLMap, base: Path): void {
  const box = mapAt(entry, 'operatorBox');
  const pre = box == null ? undefined : mapAt(box, 'preReconcile');
  if (box == null || pre == null) return;
  const path = [...base, 'operatorBox', 'preReconcile'];
  const declaredNode = pairOf(pre, 'sentinels')?.value;
  const declared = isSeq(declaredNode)
    ? new Set((declaredNode as YAMLSeq).items.map(scalarText).filter((s): s is string => s != null))
    : undefined;
  externalProtocols(up, pre, path);
  for (const gateKey of GATES) {
    const gate = mapAt(pre, gateKey);
    if (gate == null) continue;
    const gatePath = [...path, gateKey];
    externalProtocols(up, gate, gatePath);
    writeSentinelCalls(up, gate, gatePath, gateKey, declared);
  }
  up.move(box, 'preReconcile', entry, 'preReconcile', path, 'preReconcile');
}

/**
 * writeSentinelCalls writes the sentinel calls in a gate's templates as upstream writes them
 * (`{{ labelsChanged }}`) in the canonical form `{{ .sentinels.labelsChanged }}`. With `declared`
 * (the entry's `preReconcile.sentinels`), a call of a sentinel not in it is an error at the template;
 * a watch item's gate (docs/reference/katalog.md §3.2) declares none: every sentinel is computed.
 */
export function writeSentinelCalls(
  up: Upgrader,
  gate: YAMLMap,
  gatePath: Path,
  gateKey: string,
  declared: ReadonlySet<string> | undefined,
): void {
  // Every known sentinel is expanded, so an undeclared one can be named in the error.
  const prepared = prepareNotes(new Map(SENTINELS.map((name) => [name, `{{ .sentinels.${name} }}`])));
  const notes = prepared.ok ? prepared.notes : new Map();
  walkScalars(gate, (node: Scalar) => {
    if (typeof node.value !== 'string' || !node.value.includes('{{')) return;
    const expanded = expandNoteCalls(node.value, notes);
    if (!expanded.ok || expanded.calls === 0) return;
    const undeclared =
      declared == null ? [] : SENTINELS.filter((s) => !declared.has(s) && callsName(node.value as string, s));
    if (undeclared.length > 0) {
      up.problem(
        gatePath,
        node,
        `sentinel ${undeclared.join(', ')} is used in ${gateKey} but not declared in preReconcile.sentinels`,
      );
      return;
    }
    up.change(gatePath, node, `sentinel calls written as {{ .sentinels.<name> }}`);
    node.value = expanded.text;
  });
}

/** callsName tells whether a template names an identifier as a word (a call of a note or sentinel). */
function callsName(template: string, name: string): boolean {
  return new RegExp(`(^|[^.\\w$])${name}(?![\\w])`).test(template);
}

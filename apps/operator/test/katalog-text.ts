import { loadKatalog } from '@orkestra/types';
import type { Katalog } from '@orkestra/types';

/** katalogFrom loads an inline Katalog whose single entry `app` has the given YAML lines (indented under the entry); it throws on load errors. */
export function katalogFrom(entryYaml: string, head = ''): Katalog {
  const indented = entryYaml
    .split('\n')
    .map((line) => (line === '' ? line : `      ${line}`))
    .join('\n');
  const text = `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: { name: test-operator }
spec:
${head}  crds:
    app:
      apiTypes: { group: t.example.com, version: v1, kind: App, plural: apps }
${indented}
`;
  const result = loadKatalog({ text, file: 'inline.yaml' });
  if (!result.ok)
    throw new Error(result.errors.map((e) => `${e.line}:${e.column} ${e.path}: ${e.message}`).join('\n'));
  return result.katalog;
}

/**
 * greetingKatalogText is the text of the sharding tests' Katalog `name`: one entry `app` (kind App
 * of `group`, version v1) whose CRs each get a ConfigMap `<name>-config` with `GREETING` copied from
 * `spec.greeting`; `entryLines` are more keys of the entry (indented under it, e.g. `workers: 4`).
 */
export function greetingKatalogText(name: string, group: string, entryLines: readonly string[] = []): string {
  return `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: ${name}}
spec:
  crds:
    app:
      apiTypes: {group: ${group}, version: v1, kind: App, plural: apps}
${entryLines.map((line) => `      ${line}\n`).join('')}      operatorBox:
        onReconcile:
          configMaps:
            - name: "{{ metadata.name }}-config"
              data: {GREETING: "{{ spec.greeting }}"}
`;
}

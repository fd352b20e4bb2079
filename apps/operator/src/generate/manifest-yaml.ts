import { stringify } from 'yaml';

/**
 * toMultiDocumentYaml writes objects as one multi-document YAML stream (`---` before each
 * document), with optional comment lines at the top. Long strings are never folded, so output
 * is stable and diffable.
 */
export function toMultiDocumentYaml(documents: readonly unknown[], header: readonly string[] = []): string {
  const comments = header.map((line) => (line === '' ? '#' : `# ${line}`)).join('\n');
  const body = documents
    .map((doc) => `---\n${stringify(doc, { lineWidth: 0, aliasDuplicateObjects: false })}`)
    .join('');
  return comments === '' ? body : `${comments}\n${body}`;
}

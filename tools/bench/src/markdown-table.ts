/** markdownTable: the bench documents' Markdown tables (docs/performance.md). */
import type { TableRow } from './size-document.js';

const cellText = (cell: string): string => cell.trim().replace(/\|/g, '\\|');

/** markdownTable renders rows (the first is the header) as a Markdown table. */
export function markdownTable(rows: readonly TableRow[] | readonly (readonly string[])[]): string {
  const [header, ...body] = rows;
  if (header == null) return '';
  const line = (r: readonly string[]): string => `| ${r.map(cellText).join(' | ')} |`;
  return [line(header), `| ${header.map(() => '---').join(' | ')} |`, ...body.map(line)].join('\n');
}

/**
 * Source positions of a Katalog's YAML nodes, shared by the loader (load-katalog.ts) and the upstream
 * dialect (upstream/): a node read from an included file or a motif has its range shifted, and
 * positionIn maps it back to the file, line and column it was written at.
 */
import type { LineCounter } from 'yaml';

/**
 * IncludedFile is a file read by `include:` or a motif import. Its nodes' ranges are shifted by
 * `base` so a position found in the merged document can be traced back to the file it came from.
 */
export interface IncludedFile {
  readonly base: number;
  readonly file: string;
  readonly lineCounter: LineCounter;
}

/** INCLUDE_OFFSET is the range shift of the first included file; the n-th is shifted n times as far. */
export const INCLUDE_OFFSET = 1e12;

/** positionIn maps a (possibly shifted) offset to the file, line and column it was written at. */
export function positionIn(
  offset: number,
  file: string,
  lineCounter: LineCounter,
  included: readonly IncludedFile[],
): { file: string; line: number; column: number } {
  const source = offset >= INCLUDE_OFFSET ? included[Math.floor(offset / INCLUDE_OFFSET) - 1] : undefined;
  if (source == null) {
    const { line, col } = lineCounter.linePos(offset);
    return { file, line, column: col };
  }
  const { line, col } = source.lineCounter.linePos(offset - source.base);
  return { file: source.file, line, column: col };
}

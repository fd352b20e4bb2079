import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * directoryBytes is the disk space the files under `dir` take (allocated blocks, or the size when
 * the file system reports none), symbolic links not followed; 0 for a missing directory. It stops
 * counting once the total passes `stopAbove` (the answer is then just above it), so a check against
 * a cap costs no more than the cap's worth of entries. Entries that vanish while it walks are skipped.
 *
 * @example
 * if ((await directoryBytes(checkout, cap)) > cap) throw new Error('over the cap');
 */
export async function directoryBytes(
  dir: string,
  stopAbove: number = Number.POSITIVE_INFINITY,
  exclude: ReadonlySet<string> = new Set(),
): Promise<number> {
  let total = 0;
  const pending = [dir];
  while (pending.length > 0 && total <= stopAbove) {
    const current = pending.pop() ?? '';
    let names: string[];
    try {
      names = await readdir(current);
    } catch {
      continue;
    }
    for (const name of names) {
      const path = join(current, name);
      if (exclude.has(path)) continue;
      try {
        const stat = await lstat(path);
        total += stat.blocks > 0 ? stat.blocks * 512 : stat.size;
        if (stat.isDirectory()) pending.push(path);
      } catch {
        // removed meanwhile
      }
      if (total > stopAbove) break;
    }
  }
  return total;
}

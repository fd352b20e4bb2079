import { readFile } from 'node:fs/promises';

/** procRss reads VmRSS of process `pid` from /proc, in bytes (Linux only). */
export async function procRss(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  if (match?.[1] == null) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(match[1]) * 1024;
}

/**
 * How the machine's CPU time was spent over a measurement, from the kernel's `/proc/stat`
 * counters: the shares of busy time at ordinary priority (the benchmark, its control planes and
 * anything else not reniced), of time at lowered priority (`nice`: other work the operator of the
 * bench moved out of the way, e.g. with `renice 19`), and of idle time. The load average alone
 * cannot say this: it counts runnable processes whatever their priority.
 */
import { readFileSync } from 'node:fs';

/** CpuCounters are the aggregate `cpu` line's jiffies, by what they were spent on. */
export interface CpuCounters {
  readonly busy: number;
  readonly niced: number;
  readonly idle: number;
}

/** CpuShare is each kind of time as a fraction of the window's total, rounded to 3 places. */
export interface CpuShare {
  readonly busy: number;
  readonly niced: number;
  readonly idle: number;
}

/** parseProcStat reads the aggregate `cpu` line of a `/proc/stat` text; null when absent. */
export function parseProcStat(text: string): CpuCounters | null {
  const line = text.split('\n').find((l) => l.startsWith('cpu '));
  if (line == null) return null;
  // user nice system idle iowait irq softirq steal guest guest_nice
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = line
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  return { busy: user + system + irq + softirq + steal, niced: nice, idle: idle + iowait };
}

/** readCpuCounters reads this machine's counters; null where `/proc/stat` does not exist. */
export function readCpuCounters(): CpuCounters | null {
  try {
    return parseProcStat(readFileSync('/proc/stat', 'utf8'));
  } catch {
    return null;
  }
}

/** cpuShare is the split of the time between two readings; null when either is missing or no time passed. */
export function cpuShare(start: CpuCounters | null, end: CpuCounters | null): CpuShare | null {
  if (start == null || end == null) return null;
  const busy = end.busy - start.busy;
  const niced = end.niced - start.niced;
  const idle = end.idle - start.idle;
  const total = busy + niced + idle;
  if (total <= 0) return null;
  const r = (n: number): number => Math.round((n / total) * 1000) / 1000;
  return { busy: r(busy), niced: r(niced), idle: r(idle) };
}

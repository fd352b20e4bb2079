/**
 * summarizeProfile reads a V8 CPU profile (`node --cpu-prof`, a `.cpuprofile` file) and returns
 * where the time went: self time per function and per source area (a workspace package, a
 * dependency, Node's internals), largest first. `pnpm --filter @orkestra/bench profile-summary
 * FILE` prints it; the bench writes profiles with `--cpu-prof DIR`.
 */
import { readFileSync } from 'node:fs';

/** CpuProfile is the part of a `.cpuprofile` document the summary reads. */
export interface CpuProfile {
  readonly nodes: readonly {
    readonly id: number;
    readonly callFrame: {
      readonly functionName: string;
      readonly url: string;
      readonly lineNumber: number;
    };
    readonly hitCount?: number;
  }[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples?: readonly number[];
  readonly timeDeltas?: readonly number[];
}

/** ProfileLine is one row of the summary: a name and its self time. */
export interface ProfileLine {
  readonly name: string;
  readonly selfMs: number;
  readonly share: number;
}

/** ProfileSummary is the whole summary. */
export interface ProfileSummary {
  readonly totalMs: number;
  /** Time not idle (garbage collection and `(program)` included). */
  readonly busyMs: number;
  readonly functions: readonly ProfileLine[];
  readonly areas: readonly ProfileLine[];
}

/** areaOf names the source area of a script URL. */
export function areaOf(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return 'node internals';
  const pkg = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg?.[1] != null) return pkg[1];
  const ws = /\/(packages|providers|apps|tools)\/([^/]+)\/src\/(.+)$/.exec(url);
  if (ws != null) return `@orkestra/${ws[2]} ${ws[3]}`;
  return url;
}

/** summarizeProfile attributes each sample's interval to its leaf function. */
export function summarizeProfile(profile: CpuProfile, top = 25): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) {
    // Each delta is the time before sample i; attribute the next delta to sample i.
    const id = samples[i] as number;
    const us = deltas[i + 1] ?? 0;
    selfUs.set(id, (selfUs.get(id) ?? 0) + us);
  }
  const functions = new Map<string, number>();
  const areas = new Map<string, number>();
  let totalUs = 0;
  let idleUs = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (node == null) continue;
    totalUs += us;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)') idleUs += us;
    const area = areaOf(url, functionName);
    const name = `${functionName || '(anonymous)'} ${area}${url === '' ? '' : `:${lineNumber + 1}`}`;
    functions.set(name, (functions.get(name) ?? 0) + us);
    areas.set(area, (areas.get(area) ?? 0) + us);
  }
  const lines = (m: Map<string, number>): ProfileLine[] =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, selfMs: us / 1000, share: totalUs > 0 ? us / totalUs : 0 }));
  return {
    totalMs: totalUs / 1000,
    busyMs: (totalUs - idleUs) / 1000,
    functions: lines(functions),
    areas: lines(areas),
  };
}

/** formatProfileSummary prints the summary as two ranked lists. */
export function formatProfileSummary(s: ProfileSummary): string {
  const row = (l: ProfileLine): string =>
    `${l.selfMs.toFixed(0).padStart(8)} ms ${(l.share * 100).toFixed(1).padStart(5)}%  ${l.name}`;
  return [
    `total ${s.totalMs.toFixed(0)} ms, busy (not idle) ${s.busyMs.toFixed(0)} ms`,
    'by area (self time):',
    ...s.areas.map(row),
    'by function (self time):',
    ...s.functions.map(row),
  ].join('\n');
}

const file = process.argv[2];
if (file != null && import.meta.url === `file://${process.argv[1] ?? ''}`) {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  process.stdout.write(`${formatProfileSummary(summarizeProfile(profile, Number(process.argv[3] ?? 25)))}\n`);
}

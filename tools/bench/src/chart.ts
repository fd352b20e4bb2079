/**
 * SVG charts of a benchmark run, drawn by our own code (no plotting library): convergence time
 * against N for every system and both floors, and RSS against N. Each point is the median over
 * the rounds, with a bar from the fastest to the slowest round. Both axes are logarithmic when
 * the values span more than a factor of ten.
 */
import type { SizeDocument } from './size-document.js';
import type { Spread } from './stats.js';

/** ChartPoint is one median with its range. */
export interface ChartPoint {
  readonly x: number;
  readonly y: number;
  readonly lo: number;
  readonly hi: number;
}

/** ChartSeries is one line. */
export interface ChartSeries {
  readonly name: string;
  readonly color: string;
  readonly dashed?: boolean;
  readonly points: readonly ChartPoint[];
}

/** LineChartOptions describes a chart. */
export interface LineChartOptions {
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly series: readonly ChartSeries[];
  readonly width?: number;
  readonly height?: number;
}

const escape = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const fmtTick = (v: number): string =>
  v >= 1000 ? `${Number((v / 1000).toPrecision(3))}k` : String(Number(v.toPrecision(3)));

/** niceTicks returns round tick values covering [min, max]: decades (1, 2, 5 steps) on a log axis. */
export function niceTicks(min: number, max: number, log: boolean): number[] {
  if (!(max > min)) return [min];
  if (log) {
    const ticks: number[] = [];
    for (let e = Math.floor(Math.log10(min)); e <= Math.ceil(Math.log10(max)); e++) {
      for (const m of [1, 2, 5]) {
        const v = m * 10 ** e;
        if (v >= min * 0.999 && v <= max * 1.001) ticks.push(v);
      }
    }
    return ticks.length >= 2 ? ticks : [min, max];
  }
  const raw = (max - min) / 5;
  const step = [1, 2, 5, 10].map((m) => m * 10 ** Math.floor(Math.log10(raw))).find((s) => s >= raw) ?? raw;
  const ticks: number[] = [];
  for (let v = Math.ceil(min / step) * step; v <= max + step * 1e-9; v += step)
    ticks.push(Number(v.toPrecision(12)));
  return ticks;
}

/** lineChart draws the series as an SVG document (a string). */
export function lineChart(options: LineChartOptions): string {
  const width = options.width ?? 720;
  const height = options.height ?? 420;
  const m = { left: 70, right: 190, top: 40, bottom: 50 };
  const points = options.series.flatMap((s) => s.points);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
    `<text x="${width / 2 - m.right / 2 + m.left / 2}" y="22" text-anchor="middle" font-size="14">${escape(options.title)}</text>`,
  ];
  if (points.length === 0) {
    out.push(`<text x="${width / 2}" y="${height / 2}" text-anchor="middle">no data</text>`, '</svg>');
    return `${out.join('\n')}\n`;
  }
  const xs = points.map((p) => p.x);
  const ys = points.flatMap((p) => [p.lo, p.hi, p.y]).filter((v) => v > 0);
  let [xMin, xMax] = [Math.min(...xs), Math.max(...xs)];
  let [yMin, yMax] = [Math.min(...ys), Math.max(...ys)];
  const logX = xMin > 0 && xMax / xMin > 10;
  const logY = yMin > 0 && yMax / yMin > 10;
  if (xMin === xMax) [xMin, xMax] = [xMin * 0.5, xMax * 1.5];
  if (logY) [yMin, yMax] = [10 ** Math.floor(Math.log10(yMin)), 10 ** Math.ceil(Math.log10(yMax))];
  else [yMin, yMax] = [0, yMax * 1.1];
  if (logX) [xMin, xMax] = [xMin / 1.3, xMax * 1.3];
  const plotW = width - m.left - m.right;
  const plotH = height - m.top - m.bottom;
  const sx = (x: number): number =>
    m.left + (logX ? Math.log(x / xMin) / Math.log(xMax / xMin) : (x - xMin) / (xMax - xMin)) * plotW;
  const sy = (y: number): number =>
    m.top + plotH - (logY ? Math.log(y / yMin) / Math.log(yMax / yMin) : (y - yMin) / (yMax - yMin)) * plotH;
  const r = (v: number): string => v.toFixed(1);
  out.push(`<rect x="${m.left}" y="${m.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#999"/>`);
  for (const t of niceTicks(yMin, yMax, logY)) {
    out.push(
      `<line x1="${m.left}" x2="${m.left + plotW}" y1="${r(sy(t))}" y2="${r(sy(t))}" stroke="#eee"/>`,
      `<text x="${m.left - 6}" y="${r(sy(t) + 4)}" text-anchor="end">${fmtTick(t)}</text>`,
    );
  }
  for (const t of [...new Set(xs)].sort((a, b) => a - b)) {
    out.push(
      `<line x1="${r(sx(t))}" x2="${r(sx(t))}" y1="${m.top}" y2="${m.top + plotH}" stroke="#eee"/>`,
      `<text x="${r(sx(t))}" y="${m.top + plotH + 16}" text-anchor="middle">${fmtTick(t)}</text>`,
    );
  }
  out.push(
    `<text x="${m.left + plotW / 2}" y="${height - 12}" text-anchor="middle">${escape(options.xLabel)}${logX ? ' (log scale)' : ''}</text>`,
    `<text transform="translate(16 ${m.top + plotH / 2}) rotate(-90)" text-anchor="middle">${escape(options.yLabel)}${logY ? ' (log scale)' : ''}</text>`,
  );
  options.series.forEach((s, i) => {
    const sorted = [...s.points].sort((a, b) => a.x - b.x);
    const dash = s.dashed === true ? ' stroke-dasharray="5 4"' : '';
    if (sorted.length > 1) {
      const d = sorted.map((p, j) => `${j === 0 ? 'M' : 'L'}${r(sx(p.x))} ${r(sy(p.y))}`).join(' ');
      out.push(`<path d="${d}" fill="none" stroke="${s.color}" stroke-width="2"${dash}/>`);
    }
    for (const p of sorted) {
      const x = sx(p.x);
      out.push(
        `<line x1="${r(x)}" x2="${r(x)}" y1="${r(sy(p.lo))}" y2="${r(sy(p.hi))}" stroke="${s.color}" stroke-width="1.5"/>`,
        `<circle cx="${r(x)}" cy="${r(sy(p.y))}" r="3.5" fill="${s.color}"><title>${escape(s.name)}: ${fmtTick(p.y)} [${fmtTick(p.lo)}–${fmtTick(p.hi)}] at N = ${p.x}</title></circle>`,
      );
    }
    const ly = m.top + 10 + i * 20;
    const lx = m.left + plotW + 14;
    out.push(
      `<line x1="${lx}" x2="${lx + 22}" y1="${ly}" y2="${ly}" stroke="${s.color}" stroke-width="2"${dash}/>`,
      `<text x="${lx + 28}" y="${ly + 4}">${escape(s.name)}</text>`,
    );
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

const point = (x: number, s: Spread | undefined): ChartPoint[] =>
  s == null || s.median == null || s.min == null || s.max == null
    ? []
    : [{ x, y: s.median, lo: s.min, hi: s.max }];

const COLORS = {
  orkestra: '#1f6feb',
  kro: '#d1242f',
  kroDefault: '#bf8700',
  fullFloor: '#1a7f37',
  floor: '#6e7781',
};

/** convergenceChart plots convergence time against N: Orkestra, both kro runs, both floors. */
export function convergenceChart(documents: readonly SizeDocument[]): string {
  const by = (pick: (d: SizeDocument) => Spread | undefined): ChartPoint[] =>
    documents.flatMap((d) => point(d.size, pick(d)));
  return lineChart({
    title: 'Convergence time for N CRs (4 children each); median, bar = range over rounds',
    xLabel: 'CRs (N)',
    yLabel: 'convergence time, ms',
    series: [
      { name: 'Orkestra', color: COLORS.orkestra, points: by((d) => d.orkestra?.convergenceMs) },
      { name: 'kro, 30 s resync', color: COLORS.kro, points: by((d) => d.peerResult?.convergenceMs) },
      {
        name: 'kro, default resync',
        color: COLORS.kroDefault,
        points: by((d) => d.peerDefaultResult?.convergenceMs),
      },
      {
        name: 'full floor',
        color: COLORS.fullFloor,
        dashed: true,
        points: by((d) => d.fullFloor.convergenceMs),
      },
      {
        name: 'children-only floor',
        color: COLORS.floor,
        dashed: true,
        points: by((d) => d.floor.convergenceMs),
      },
    ].filter((s) => s.points.length > 0),
  });
}

/** rssChart plots each operator's RSS with N CRs cached against N. */
export function rssChart(documents: readonly SizeDocument[]): string {
  const by = (pick: (d: SizeDocument) => Spread | undefined): ChartPoint[] =>
    documents.flatMap((d) => point(d.size, pick(d)));
  return lineChart({
    title: 'Operator RSS with N CRs and 4N children cached; median, bar = range',
    xLabel: 'CRs (N)',
    yLabel: 'RSS, MiB',
    series: [
      { name: 'Orkestra', color: COLORS.orkestra, points: by((d) => d.orkestra?.rssFullMb) },
      { name: 'kro, 30 s resync', color: COLORS.kro, points: by((d) => d.peerResult?.rssFullMb) },
      {
        name: 'kro, default resync',
        color: COLORS.kroDefault,
        points: by((d) => d.peerDefaultResult?.rssFullMb),
      },
    ].filter((s) => s.points.length > 0),
  });
}

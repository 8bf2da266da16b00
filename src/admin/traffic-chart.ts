import { escapeHtml } from '../content/display-text.js';
import type { TrafficReport } from '../traffic/traffic-report.js';

/** The colour of each purpose class in the chart and its legend (distinct under the common colour-vision deficiencies). */
export const PURPOSE_COLOURS: Readonly<Record<string, string>> = Object.freeze({
  training: '#d55e00',
  search: '#0072b2',
  'user-fetch': '#009e73',
  'coding-agent': '#cc79a7',
  'other-bot': '#e69f00',
  browser: '#56b4e9',
  unknown: '#999999',
});

const WIDTH = 720;
const HEIGHT = 240;
const LEFT = 48;
const BOTTOM = 28;
const TOP = 12;

/** A round upper bound for the axis: 1, 2, 5 × 10^n. */
function niceMax(n: number): number {
  if (n <= 5) return 5;
  const p = 10 ** Math.floor(Math.log10(n));
  return [1, 2, 5, 10].map((m) => m * p).find((v) => v >= n)!;
}

/**
 * Requests per day by purpose as a stacked bar chart, drawn here as SVG markup (no script, no
 * style attribute: the admin pages' CSP allows neither), with a title and a description for screen
 * readers and a text label per bar. Only numbers and fixed labels go into it.
 */
export function trafficChartSvg(report: TrafficReport): string {
  const days = report.daily;
  const purposes = Object.keys(PURPOSE_COLOURS);
  const max = niceMax(Math.max(0, ...days.map((d) => d.requests)));
  const plotW = WIDTH - LEFT - 8;
  const plotH = HEIGHT - TOP - BOTTOM;
  const slot = plotW / Math.max(1, days.length);
  const barW = Math.max(2, Math.min(40, slot * 0.7));
  const y = (v: number) => TOP + plotH - (v / max) * plotH;
  const parts: string[] = [];
  for (let t = 0; t <= 5; t++) {
    const v = (max / 5) * t;
    parts.push(`<line x1="${LEFT}" x2="${WIDTH - 8}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" stroke="#ddd"/>`);
    parts.push(`<text x="${LEFT - 6}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end" font-size="11" fill="#444">${Math.round(v)}</text>`);
  }
  const labelEvery = Math.ceil(days.length / 12);
  days.forEach((d, i) => {
    const x = LEFT + i * slot + (slot - barW) / 2;
    let base = 0;
    for (const p of purposes) {
      const n = d.byPurpose[p] ?? 0;
      if (!n) continue;
      parts.push(
        `<rect x="${x.toFixed(1)}" y="${y(base + n).toFixed(1)}" width="${barW.toFixed(1)}" height="${(y(base) - y(base + n)).toFixed(1)}" fill="${PURPOSE_COLOURS[p]}"><title>${escapeHtml(`${d.day}: ${n} ${p}`)}</title></rect>`,
      );
      base += n;
    }
    if (i % labelEvery === 0) {
      parts.push(`<text x="${(x + barW / 2).toFixed(1)}" y="${HEIGHT - 10}" text-anchor="middle" font-size="11" fill="#444">${escapeHtml(d.day.slice(5))}</text>`);
    }
  });
  const total = days.reduce((a, d) => a + d.requests, 0);
  const desc = `Requests per day by purpose, ${days[0]?.day ?? ''} to ${days.at(-1)?.day ?? ''}: ${total} in all. ${purposes.map((p) => `${p} ${report.totals.byPurpose[p] ?? 0}`).join(', ')}.`;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" role="img" aria-labelledby="traffic-chart-title traffic-chart-desc" class="traffic-chart">`,
    `<title id="traffic-chart-title">Agent requests per day</title>`,
    `<desc id="traffic-chart-desc">${escapeHtml(desc)}</desc>`,
    `<line x1="${LEFT}" x2="${LEFT}" y1="${TOP}" y2="${TOP + plotH}" stroke="#888"/>`,
    ...parts,
    '</svg>',
  ].join('');
}

import type { AgentContext } from '../context.js';
import { readTrafficReport } from '../traffic/read-traffic-report.js';
import { parseSince, type TrafficReport } from '../traffic/traffic-report.js';
import { TRAFFIC_SURFACES } from '../traffic/traffic-mark.js';
import { AGENT_PURPOSES } from '../traffic/agent-catalogue.js';
import { PURPOSE_COLOURS, trafficChartSvg } from './traffic-chart.js';

/** The ranges the Agents page offers. */
export const TRAFFIC_RANGES = ['24h', '7d', '30d', '90d'] as const;

/** The range asked for (`?since=`), or the default 7 days; undefined for a value the page does not offer. */
export function askedRange(value: unknown): string | undefined {
  if (value === undefined || value === '') return '7d';
  return typeof value === 'string' && (TRAFFIC_RANGES as readonly string[]).includes(value) ? value : undefined;
}

/** The report of a range (`7d`), with the counts of this process not yet flushed; undefined without the traffic option. */
export async function trafficReportOf(ctx: AgentContext, since: string): Promise<TrafficReport | undefined> {
  if (!ctx.traffic) return undefined;
  return readTrafficReport(ctx.db, parseSince(since)!, ctx.options.defaultLanguage, ctx.traffic, ctx.agents?.ledger.peek());
}

const percent = (share: number) => `${Math.round(share * 100)} %`;

/** What the Agents page template shows. */
export function agentsPageVars(ctx: AgentContext, report: TrafficReport | undefined, since: string) {
  const base = { page: 'agents', since, ranges: TRAFFIC_RANGES, enabled: Boolean(ctx.traffic), active: ctx.traffic?.active() ?? false };
  if (!report) return base;
  return {
    ...base,
    report,
    chart: trafficChartSvg(report),
    legend: AGENT_PURPOSES.map((p) => ({ purpose: p, colour: PURPOSE_COLOURS[p], requests: report.totals.byPurpose[p] ?? 0 })),
    agents: report.agents.map((a) => ({
      ...a,
      surfaceList: TRAFFIC_SURFACES.filter((s) => a.surfaces[s]).map((s) => `${s} ${a.surfaces[s]}`).join(', '),
      toolList: Object.entries(a.tools).map(([t, n]) => `${t} ${n}`).join(', '),
      statusList: Object.entries(a.statuses).map(([s, n]) => `${s} ${n}`).join(', '),
      markdown: percent(a.markdownShare),
      verified: percent(a.verifiedShare),
      spoofed: percent(a.spoofedShare),
      methodList: Object.entries(a.methods).map(([m, n]) => `${m} ${n}`).join(', '),
      reasonList: Object.entries(a.claimReasons).map(([r, n]) => `${r} ${n}`).join(', '),
      outcomeList: Object.entries(a.outcomes).map(([o, n]) => `${o} ${n}`).join(', '),
      lastSeenText: a.lastSeen.replace('T', ' ').slice(0, 16) + ' UTC',
    })),
  };
}

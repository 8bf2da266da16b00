import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { localize } from '../content/language.js';
import type { TrafficRecorder } from './traffic-recorder.js';
import { readStoredTraffic } from './traffic-store.js';
import { readCharges, type ChargeRow } from './charge-ledger.js';
import { joinBatches, summarizeTraffic, topResourceIds, type TrafficReport } from './traffic-report.js';

/**
 * The traffic report of a range: the stored hourly rows, plus the counts of this process not yet
 * flushed (`recorder`) and the charges not yet written (`pendingCharges`), with the titles of the resources agents read most (in `language`). For the
 * signed-in admin pages and the CLI only: a title of a resource that is private now is shown there.
 */
export async function readTrafficReport(
  db: Kysely<Database>,
  range: { since: Date; until: Date },
  language: string,
  recorder?: TrafficRecorder,
  pendingCharges: readonly ChargeRow[] = [],
): Promise<TrafficReport> {
  const [stored, charges] = await Promise.all([readStoredTraffic(db, range.since, range.until), readCharges(db, range.since, range.until, pendingCharges)]);
  const pending = recorder?.pending() ?? { batch: { requests: [], resources: [], referrals: [], dropped: 0 }, requests: 0 };
  const batch = joinBatches({ requests: stored.requests, resources: stored.resources, referrals: stored.referrals, dropped: 0 }, pending.batch);
  const ids = topResourceIds({ ...batch, resources: batch.resources.filter((r) => r.hour >= range.since.getTime() && r.hour < range.until.getTime()) });
  const titles = new Map<number, string>();
  if (ids.length) {
    const rows = await db.selectFrom('rsc').select(['id', 'title']).where('id', 'in', ids).execute();
    for (const row of rows) titles.set(Number(row.id), localize(row.title, language, language));
  }
  const report = summarizeTraffic(batch, range.since, range.until, pending.requests, titles, { daily: stored.daily, referralVisits: stored.referralVisits, requestRows: stored.requests.length, referralRows: stored.referrals.length, referralsByAssistant: stored.referralsByAssistant });
  return { ...report, charges };
}

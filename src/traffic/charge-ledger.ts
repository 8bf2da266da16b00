import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

/** One hour's charges of one agent. */
export interface ChargeRow {
  hour: number;
  agent: string;
  requests: number;
  amountMicros: number;
}

const HOUR_MS = 3_600_000;
/** Distinct (hour, agent) keys kept between two flushes; past it a charge is still served and counted in `dropped`. */
const MAX_KEYS = 10_000;

/**
 * The pay-per-crawl ledger: each request served with `crawler-charged` adds its price to the hourly row of its
 * agent, kept in memory and written as additive upserts (several instances add up), at most every few seconds
 * and at close. No payment network is involved: the ledger is the record an owner bills from.
 */
export class ChargeLedger {
  #rows = new Map<string, ChargeRow>();
  #dropped = 0;

  add(time: number, agent: string, amountMicros: number): void {
    const hour = time - (time % HOUR_MS);
    const key = `${hour}\u0001${agent}`;
    let row = this.#rows.get(key);
    if (!row) {
      if (this.#rows.size >= MAX_KEYS) return void this.#dropped++;
      row = { hour, agent, requests: 0, amountMicros: 0 };
      this.#rows.set(key, row);
    }
    row.requests++;
    row.amountMicros += amountMicros;
  }

  /** The charges not yet written (copies). */
  peek(): ChargeRow[] {
    return [...this.#rows.values()].map((r) => ({ ...r }));
  }

  /** Writes what was charged since the last flush; on failure the rows are kept for the next one. */
  async flush(db: Kysely<Database>): Promise<void> {
    if (this.#rows.size === 0) return;
    const rows = [...this.#rows.values()];
    this.#rows = new Map();
    const json = JSON.stringify(rows.map((r) => [r.hour, r.agent, r.requests, r.amountMicros]));
    try {
      await sql`
        INSERT INTO agent_discovery_charges (hour, agent, requests, amount_micros)
        SELECT to_timestamp((e->>0)::bigint / 1000.0), e->>1, (e->>2)::bigint, (e->>3)::bigint
        FROM jsonb_array_elements(${json}::jsonb) AS e
        ON CONFLICT (hour, agent) DO UPDATE SET
          requests = agent_discovery_charges.requests + excluded.requests,
          amount_micros = agent_discovery_charges.amount_micros + excluded.amount_micros`.execute(db);
    } catch (error) {
      for (const r of rows) {
        const key = `${r.hour}\u0001${r.agent}`;
        const now = this.#rows.get(key);
        if (now) {
          now.requests += r.requests;
          now.amountMicros += r.amountMicros;
        } else this.#rows.set(key, r);
      }
      throw error;
    }
  }
}

/** The charges of a range per agent, stored and pending together, dearest first. */
export async function readCharges(db: Kysely<Database>, since: Date, until: Date, pending: readonly ChargeRow[]): Promise<{ agent: string; requests: number; amountUsd: string }[]> {
  const rows = await db
    .selectFrom('agent_discovery_charges')
    .select(['agent', sql<string>`sum(requests)`.as('requests'), sql<string>`sum(amount_micros)`.as('amount')])
    .where('hour', '>=', since)
    .where('hour', '<', until)
    .groupBy('agent')
    .execute();
  const totals = new Map(rows.map((r) => [r.agent, { requests: Number(r.requests), micros: Number(r.amount) }]));
  for (const p of pending) {
    if (p.hour < since.getTime() || p.hour >= until.getTime()) continue;
    const t = totals.get(p.agent) ?? { requests: 0, micros: 0 };
    t.requests += p.requests;
    t.micros += p.amountMicros;
    totals.set(p.agent, t);
  }
  return [...totals]
    .map(([agent, t]) => ({ agent, requests: t.requests, amountUsd: usd(t.micros) }))
    .sort((a, b) => Number(b.amountUsd) - Number(a.amountUsd) || a.agent.localeCompare(b.agent));
}

/** Millionths of a dollar as a decimal text (`2000` → `"0.002000"`). */
export const usd = (micros: number): string => `${Math.trunc(micros / 1_000_000)}.${String(micros % 1_000_000).padStart(6, '0')}`;

import { sql, type Kysely } from 'kysely';
import type { ContractProblem } from '../db/contract-check.js';

/**
 * When relations of the contract are missing from the connection's search path but another schema
 * holds them (a views-road recipe's `agent`), the flag that finds them:
 * `--search-path agent,public`. Undefined when no schema holds them all.
 *
 * ```sql
 * SELECT n.nspname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 * WHERE c.relname = ANY ($1) AND c.relkind IN ('r', 'v', 'm', 'p', 'f') GROUP BY n.nspname HAVING count(DISTINCT c.relname) = cardinality($1)
 * ```
 */
export async function searchPathHint(db: Kysely<any>, problems: readonly ContractProblem[]): Promise<string | undefined> {
  const missing = [...new Set(problems.filter((p) => p.column === undefined).map((p) => p.relation))];
  if (!missing.length) return undefined;
  const { rows } = await sql<{ schema: string; current: string }>`
    SELECT n.nspname::text AS "schema", current_schemas(false)::text AS "current" FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE c.relname = ANY (${missing}::text[]) AND c.relkind IN ('r', 'v', 'm', 'p', 'f')
      AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'
    GROUP BY n.nspname HAVING count(DISTINCT c.relname) = ${missing.length} ORDER BY n.nspname`.execute(db);
  if (!rows.length) return undefined;
  const current = rows[0]!.current.replace(/^\{|\}$/g, '').split(',').filter(Boolean);
  const schemas = rows.map((r) => r.schema);
  const path = [schemas[0]!, ...current.filter((s) => s !== schemas[0])].join(',');
  const where = schemas.length === 1 ? `schema ${schemas[0]}` : `schemas ${schemas.join(', ')} (each holds them all)`;
  return `The missing relations are in ${where}: run again with --search-path ${path} (and connect the plugin with that search_path).`;
}

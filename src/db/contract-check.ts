import { sql, type Kysely } from 'kysely';
import { CONTRACT_RELATIONS, CONTRACT_RELATION_NAMES, TYPE_FAMILIES, type ContractColumn } from './content-contract.js';

/** One way a database differs from the content contract. */
export interface ContractProblem {
  readonly relation: string;
  /** Absent when the whole relation is missing. */
  readonly column?: string;
  readonly expected: string;
  /** What the database has: a type, or `missing`. */
  readonly found: string;
}

/** What the start-up check found. */
export interface ContractReport {
  readonly problems: readonly ContractProblem[];
  /** Optional contract columns the database leaves out (`relation.column`): the plugin reads null there. */
  readonly absentOptional: readonly string[];
  /** Whether the text-search configuration exists. */
  readonly textConfigurationFound: boolean;
  /**
   * Every contract relation is a table (not a view): its rows carry versions (`xmin`), which exact
   * cache keys of compositions read (`compositionFingerprint`).
   */
  readonly tables: boolean;
}

interface CatalogRow {
  relation: string;
  present: boolean;
  /** `pg_class.relkind`: `r` a table, `p` a partitioned table, `v` a view, `m` a materialized view. */
  kind: string | null;
  column: string | null;
  type: string | null;
  configuration: boolean;
}

/**
 * Checks every relation and column of the content contract, with compatible types, in one catalog
 * query; relations are found on the connection's `search_path` (tables or views alike).
 *
 * ```sql
 * SELECT r.rel AS relation, to_regclass(r.rel) IS NOT NULL AS present, a.attname AS column,
 *   format_type(a.atttypid, a.atttypmod) AS type, EXISTS (SELECT 1 FROM pg_ts_config WHERE cfgname = $2) AS configuration
 * FROM unnest($1::text[]) AS r(rel)
 * LEFT JOIN pg_attribute a ON a.attrelid = to_regclass(r.rel) AND a.attnum > 0 AND NOT a.attisdropped
 * ```
 */
export async function checkContract(db: Kysely<any>, textConfiguration: string): Promise<ContractReport> {
  const { rows } = await sql<CatalogRow>`
    SELECT r.rel AS "relation", to_regclass(r.rel) IS NOT NULL AS "present",
      (SELECT c.relkind::text FROM pg_class c WHERE c.oid = to_regclass(r.rel)) AS "kind", a.attname::text AS "column",
      format_type(a.atttypid, a.atttypmod) AS "type",
      EXISTS (SELECT 1 FROM pg_ts_config WHERE cfgname = ${textConfiguration}) AS "configuration"
    FROM unnest(${sql.raw(`ARRAY[${CONTRACT_RELATION_NAMES.map((n) => `'${n}'`).join(', ')}]`)}::text[]) AS r(rel)
    LEFT JOIN pg_attribute a ON a.attrelid = to_regclass(r.rel) AND a.attnum > 0 AND NOT a.attisdropped`.execute(db);
  const problems: ContractProblem[] = [];
  const absentOptional: string[] = [];
  for (const relation of CONTRACT_RELATION_NAMES) {
    const found = rows.filter((r) => r.relation === relation);
    if (!found.some((r) => r.present)) {
      problems.push({ relation, expected: 'a table or view', found: 'missing' });
      continue;
    }
    const types = new Map(found.filter((r) => r.column !== null).map((r) => [r.column!, r.type ?? '']));
    const columns = CONTRACT_RELATIONS[relation].columns as Record<string, ContractColumn>;
    for (const [name, spec] of Object.entries(columns)) {
      const type = types.get(name);
      const family = TYPE_FAMILIES[spec.family];
      if (type === undefined) {
        if (spec.optional) absentOptional.push(`${relation}.${name}`);
        else problems.push({ relation, column: name, expected: family.describe, found: 'missing' });
      } else if (!family.accepts.some((pattern) => pattern.test(type))) {
        problems.push({ relation, column: name, expected: family.describe, found: type });
      }
    }
  }
  const tables = rows.every((r) => r.kind === 'r' || r.kind === 'p');
  return { problems, absentOptional, textConfigurationFound: Boolean(rows[0]?.configuration), tables };
}

/** Where the contract is written down, for the errors. */
const CONTRACT_REFERENCE = 'docs/reference/content-contract.md in the package';

/** The one start-up error for every problem found, naming relation, column, expected and found type. */
export function contractError(problems: readonly ContractProblem[]): Error {
  const lines = problems.map((p) =>
    p.column === undefined
      ? `  - ${p.relation}: the relation is missing (expected ${p.expected})`
      : p.found === 'missing'
        ? `  - ${p.relation}.${p.column}: missing (expected ${p.expected})`
        : `  - ${p.relation}.${p.column}: expected ${p.expected}, found ${p.found}`,
  );
  const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
  return new Error(
    `express-agent-discovery: the content relations on this database's search_path do not match the content contract (${count}):\n` +
      `${lines.join('\n')}\nEvery relation and column is described in ${CONTRACT_REFERENCE}; a view may rename a host column to the contract's name.`,
  );
}

/**
 * Fails at start-up unless the database holds every relation and column of the contract with a
 * compatible type and the text-search configuration exists; returns the report (which optional
 * columns are absent) otherwise.
 */
export async function assertContract(db: Kysely<any>, textConfiguration: string): Promise<ContractReport> {
  const report = await checkContract(db, textConfiguration);
  if (report.problems.length) throw contractError(report.problems);
  if (!report.textConfigurationFound) {
    throw new Error(
      `express-agent-discovery: option "textSearch.configuration": the text search configuration "${textConfiguration}" does not exist in this database (see \`SELECT cfgname FROM pg_ts_config\`).`,
    );
  }
  return report;
}

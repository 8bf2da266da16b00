import { accessRuleSql } from './access-rule-sql.js';
import type { Queryable } from './directus-model.js';
import { filterCompilerSql } from './filter-compiler-sql.js';
import { recipeNames } from './recipe-names.js';
import type { RecipePlan } from './recipe-plan.js';
import { schemaSql } from './schema-sql.js';
import { literal } from './sql-text.js';

/** How a served collection's Public read rule stands, as the recipe would translate it now. */
export interface RuleReport {
  readonly collection: string;
  /** The Public policy's read filter (`{}`: every item); undefined: the Public policy may not read the collection. */
  readonly filter: unknown;
  /** Why the rule cannot be followed (the collection is then hidden); undefined when it is followed. */
  readonly problem: string | undefined;
}

/**
 * Translates the served collections' rules with the recipe's own translator, in a transaction that
 * is rolled back (the translator is created in it and gone after): the generator reports what the
 * recipe will follow, and what it will hide because it cannot, before anything is applied.
 */
export async function reportRules(db: Queryable, plan: RecipePlan): Promise<RuleReport[]> {
  const names = recipeNames(plan.request.recipeSchema, plan.request.directusSchema, plan.request.timeZone);
  await db.query('BEGIN');
  try {
    await db.query(`SET LOCAL client_min_messages = warning;\n${schemaSql(names)}\n${filterCompilerSql(names)}\n${accessRuleSql(names)}`);
    const collections = plan.collections.map((c) => `(${literal(c.name)}, ARRAY[${c.served.map(literal).join(', ')}]::text[], ${c.number})`);
    const { rows } = await db.query<{ collection: string; filter: unknown; problem: string | null }>(
      `SELECT v.collection, r.filter, r.problem FROM (VALUES ${collections.join(', ')}) AS v (collection, served, number),
       LATERAL ${names.s}.directus_compile_rule(v.collection, v.served) r ORDER BY v.number`,
    );
    return rows.map((r) => ({ collection: r.collection, filter: r.filter ?? undefined, problem: r.problem ?? undefined }));
  } finally {
    await db.query('ROLLBACK');
  }
}

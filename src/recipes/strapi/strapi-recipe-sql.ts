import { applyRolledBack, type Queryable } from '../directus/directus-model.js';
import { VOCABULARY_BASE } from '../directus/id-scheme.js';
import { ident } from '../directus/sql-text.js';
import { keptTablesSql, pendingSql, refreshSql, strapiNames } from './strapi-kept-sql.js';
import { liveSql, noticeSql } from './strapi-live-sql.js';
import type { StrapiPlan } from './strapi-plan.js';
import { triggersSql } from './strapi-trigger-sql.js';

/**
 * The Strapi recipe as one SQL script, applied in one transaction (`psql -v ON_ERROR_STOP=1 -f`):
 * the schema the plugin reads (`agent`: the tables `rsc`, `category`, `predicate_category`, `edge`,
 * `medium` with the plugin's indexes, and the view `access_notice`), kept by triggers on Strapi's tables
 * from live views over them in a private schema (`agent_live`, replaced whole at each application, the
 * triggers with it). The fill merges every row from the live views, so applying the recipe again keeps
 * the ids and the versions of the rows it does not change.
 *
 * ```ts
 * strapiSql(plan) // BEGIN; CREATE SCHEMA IF NOT EXISTS "agent"; DROP SCHEMA IF EXISTS "agent_live" CASCADE; … COMMIT;
 * ```
 */
export function strapiSql(plan: StrapiPlan, header = '', { trial = false } = {}): string {
  const names = strapiNames(plan.request.recipeSchema);
  const { s, live } = names;
  const refresh = (k: number) => `${live}.${ident(`refresh_${k}`)}`;
  const fill = trial
    ? `SELECT ${live}.refresh_state()${plan.types.map((t) => ` + ${refresh(t.number)}(ARRAY[]::text[])`).join('')};
SELECT (SELECT count(*) FROM ${live}.rsc) + (SELECT count(*) FROM ${live}.edge) + (SELECT count(*) FROM ${s}.access_notice)
  + (SELECT count(*) FROM (SELECT body FROM ${live}.rsc WHERE id < ${VOCABULARY_BASE} LIMIT 5) b);`
    : `-- The fill: every row from the live views (rows that did not change keep their versions).
DO $$
BEGIN
  IF ${live}.refresh_all() > 0 THEN
    PERFORM ${live}.content_changed();
  END IF;
END
$$;
ANALYZE ${s}.rsc;
ANALYZE ${s}.edge;
ANALYZE ${s}.category;
ANALYZE ${s}.predicate_category;`;
  return [
    header,
    'SET client_min_messages = warning;',
    trial ? '' : 'BEGIN;',
    `CREATE SCHEMA IF NOT EXISTS ${s};`,
    `-- The live views, the refresh functions and the triggers on Strapi's tables of an earlier application go.
DROP SCHEMA IF EXISTS ${live} CASCADE;
CREATE SCHEMA ${live};`,
    keptTablesSql(names),
    liveSql(plan, live),
    refreshSql(plan, names),
    pendingSql(plan, names),
    triggersSql(plan, names),
    noticeSql(plan, s, live),
    fill,
    trial ? '' : 'COMMIT;',
    '',
  ].join('\n\n');
}

/**
 * Applies the recipe in a transaction that is rolled back, every refresh planned and run over no
 * document, and reads every live view once (a count, and one body per type): the SQL the generator
 * writes applies, and its views answer. Strapi's tables are locked only for that short transaction.
 */
export async function tryStrapiRecipe(db: Queryable, plan: StrapiPlan): Promise<void> {
  await applyRolledBack(db, strapiSql(plan, '', { trial: true }));
}

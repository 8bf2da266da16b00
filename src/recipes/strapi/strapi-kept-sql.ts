import { ITEM_SPAN, VOCABULARY_BASE } from '../directus/id-scheme.js';
import { ident, literal } from '../directus/sql-text.js';
import { EDGE_COLUMNS, RSC_COLUMNS, edgeLeg, rscLeg } from './strapi-live-sql.js';
import type { PlannedType, StrapiPlan } from './strapi-plan.js';

/** The recipe's two schemas: `s` the one the plugin reads (kept tables), `live` its private one (live views, functions). */
export interface StrapiNames {
  readonly recipe: string;
  readonly s: string;
  readonly liveName: string;
  readonly live: string;
}

export function strapiNames(recipeSchema: string): StrapiNames {
  const liveName = `${recipeSchema}_live`;
  return { recipe: recipeSchema, s: ident(recipeSchema), liveName, live: ident(liveName) };
}

/** The first and last id of a type's block. */
const block = (t: PlannedType) => [t.number * ITEM_SPAN + 1, (t.number + 1) * ITEM_SPAN - 1] as const;

/**
 * The tables the plugin reads, with the indexes the plugin's own schema has for its hot reads. Kept
 * when they exist (their rows keep their versions); an earlier recipe's views and functions in the
 * schema go.
 */
export function keptTablesSql({ s, recipe }: StrapiNames): string {
  return `-- An earlier recipe's views (and the functions they read) in ${s} give way to the kept tables.
DO $$
DECLARE r record;
BEGIN
  FOR r IN SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = ${literal(recipe)} AND c.relkind = 'v' AND c.relname IN ('access_notice', 'rsc', 'edge', 'category', 'predicate_category', 'medium') LOOP
    EXECUTE format('DROP VIEW %I.%I CASCADE', ${literal(recipe)}, r.relname);
  END LOOP;
  FOR r IN SELECT p.oid::regprocedure AS f FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
    WHERE n.nspname = ${literal(recipe)} AND p.proname LIKE 'strapi\\_%' LOOP
    EXECUTE format('DROP FUNCTION %s CASCADE', r.f);
  END LOOP;
END
$$;
DROP VIEW IF EXISTS ${s}.access_notice;

CREATE TABLE IF NOT EXISTS ${s}.rsc (
  id bigint PRIMARY KEY, name text UNIQUE, category_id bigint NOT NULL, is_published boolean NOT NULL, visibility text NOT NULL,
  publication_start timestamptz NOT NULL, publication_end timestamptz, created timestamptz, modified timestamptz,
  language text[] NOT NULL, title jsonb NOT NULL, summary jsonb NOT NULL, body jsonb NOT NULL, blocks jsonb NOT NULL, props jsonb NOT NULL,
  seo_noindex boolean NOT NULL, uri text, license jsonb, attribution jsonb, fts tsvector NOT NULL, page_url jsonb
);
CREATE INDEX IF NOT EXISTS rsc_publication_start_desc_idx ON ${s}.rsc (publication_start DESC, id);
CREATE INDEX IF NOT EXISTS rsc_publication_start_asc_idx ON ${s}.rsc (publication_start, id);
CREATE INDEX IF NOT EXISTS rsc_modified_desc_idx ON ${s}.rsc (modified DESC, id);
CREATE INDEX IF NOT EXISTS rsc_category_idx ON ${s}.rsc (category_id, id);
CREATE INDEX IF NOT EXISTS rsc_changed_idx ON ${s}.rsc ((greatest(modified, publication_start)), id);
CREATE INDEX IF NOT EXISTS rsc_fts_idx ON ${s}.rsc USING gin (fts);
CREATE TABLE IF NOT EXISTS ${s}.category (id bigint PRIMARY KEY, parent_id bigint, is_noindex boolean NOT NULL);
CREATE INDEX IF NOT EXISTS category_parent_idx ON ${s}.category (parent_id);
CREATE TABLE IF NOT EXISTS ${s}.predicate_category (predicate_id bigint, is_subject boolean, category_id bigint, PRIMARY KEY (predicate_id, is_subject, category_id));
CREATE TABLE IF NOT EXISTS ${s}.edge (
  id bigint NOT NULL, subject_id bigint, predicate_id bigint, object_id bigint, seq integer NOT NULL, created timestamptz,
  PRIMARY KEY (subject_id, predicate_id, object_id), UNIQUE (object_id, predicate_id, subject_id)
);
CREATE INDEX IF NOT EXISTS edge_subject_predicate_seq_idx ON ${s}.edge (subject_id, predicate_id, seq, id);
CREATE INDEX IF NOT EXISTS edge_object_predicate_seq_idx ON ${s}.edge (object_id, predicate_id, seq, id);
CREATE TABLE IF NOT EXISTS ${s}.medium (rsc_id bigint PRIMARY KEY, mime text NOT NULL, width integer, height integer, size bigint, filename text NOT NULL);`;
}

/**
 * One statement that makes the rows of `target` that `scope` selects (a condition on `t`) what
 * `source` holds, by diff, and yields how many rows it changed: rows gone are deleted, new ones
 * inserted, and only rows that differ are updated, so an unchanged row keeps its version (`xmin`),
 * which the plugin's composition cache keys on.
 *
 * ```sql
 * WITH s AS MATERIALIZED (<source>),
 *   gone AS (DELETE FROM rsc t WHERE <scope> AND NOT EXISTS (SELECT 1 FROM s WHERE t.id = s.id) RETURNING 1),
 *   changed AS (UPDATE rsc t SET … FROM s WHERE t.id = s.id AND (t.…) IS DISTINCT FROM (s.…) RETURNING 1),
 *   added AS (INSERT INTO rsc (…) SELECT … FROM s WHERE NOT EXISTS (SELECT 1 FROM rsc t WHERE t.id = s.id) RETURNING 1)
 * SELECT (SELECT count(*) FROM gone) + (SELECT count(*) FROM changed) + (SELECT count(*) FROM added)
 * ```
 */
export function mergeSql(target: string, columns: readonly string[], keys: readonly string[], source: string, scope: string, into = ''): string {
  const on = keys.map((k) => `t.${k} = s.${k}`).join(' AND ');
  const rest = columns.filter((c) => !keys.includes(c));
  const changed = rest.length
    ? `UPDATE ${target} t SET ${rest.map((c) => `${c} = s.${c}`).join(', ')} FROM s WHERE ${on}
      AND (${rest.map((c) => `t.${c}`).join(', ')}) IS DISTINCT FROM (${rest.map((c) => `s.${c}`).join(', ')}) RETURNING 1`
    : 'SELECT 1 WHERE false';
  return `WITH s AS MATERIALIZED (
${source}
  ),
  gone AS (DELETE FROM ${target} t WHERE ${scope} AND NOT EXISTS (SELECT 1 FROM s WHERE ${on}) RETURNING 1),
  changed AS (${changed}),
  added AS (INSERT INTO ${target} (${columns.join(', ')}) SELECT ${columns.map((c) => `s.${c}`).join(', ')} FROM s
    WHERE NOT EXISTS (SELECT 1 FROM ${target} t WHERE ${on}) RETURNING 1)
SELECT (SELECT count(*) FROM gone) + (SELECT count(*) FROM changed) + (SELECT count(*) FROM added)${into}`;
}

const rscKeys = ['id'];
const edgeKeys = ['subject_id', 'predicate_id', 'object_id'];

/**
 * The refresh functions, in the live schema:
 *
 * - `refresh_<k>(docs)`: type `k`'s rows of `rsc` for the documents `docs` (all when NULL) and the edges
 *   from or to them, merged from the live views; the number of rows changed.
 * - `refresh_state()`: the vocabulary's rows and every type's `visibility` (the Public role, the stored
 *   model, a failure), without reading any document.
 * - `refresh_all()`: every kept table from its live view (the fill, and applying the recipe again).
 * - `close_type(k, notice)`: type `k` hidden (fail closed), its notice kept in `broken`.
 * - `content_changed()`: the plugin's content version bumped, once the plugin has created it.
 */
export function refreshSql(plan: StrapiPlan, names: StrapiNames): string {
  const { s, live, recipe } = names;
  const merge = (target: string, source: string, scope: string, keys: readonly string[], columns: readonly string[]) =>
    `  ${mergeSql(`${s}.${target}`, columns, keys, source, scope, ' INTO c')};\n  n := n + c;`;
  const types = plan.types.map((t) => {
    const [lo, hi] = block(t);
    const ids = (k: number) => `ARRAY(SELECT ${k}::bigint * ${ITEM_SPAN} + ${live}.strapi_item(d) FROM unnest(docs) d)`;
    const touching = plan.relations.filter((r) => r.subject === t || r.object === t);
    const all = [
      merge('rsc', rscLeg(plan, t, live), `t.id BETWEEN ${lo} AND ${hi}`, rscKeys, RSC_COLUMNS),
      ...touching.map((r) => merge('edge', edgeLeg(plan, r, live), `t.predicate_id = ${r.id}`, edgeKeys, EDGE_COLUMNS)),
    ];
    const some = [
      merge('rsc', rscLeg(plan, t, live, 'x.document_id = ANY (docs)'), `t.id = ANY (${ids(t.number)})`, rscKeys, RSC_COLUMNS),
      ...touching.filter((r) => r.subject === t).map((r) =>
        merge('edge', edgeLeg(plan, r, live, 'a.document_id = ANY (docs)'), `t.predicate_id = ${r.id} AND t.subject_id = ANY (${ids(t.number)})`, edgeKeys, EDGE_COLUMNS)),
      ...touching.filter((r) => r.object === t).map((r) =>
        merge('edge', edgeLeg(plan, r, live, 'b.document_id = ANY (docs)'), `t.predicate_id = ${r.id} AND t.object_id = ANY (${ids(t.number)})`, edgeKeys, EDGE_COLUMNS)),
    ];
    return `-- ${t.uid} (k = ${t.number}): its documents' rows of rsc, and the edges from or to them.
CREATE FUNCTION ${live}.${ident(`refresh_${t.number}`)}(docs text[]) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE n bigint := 0; c bigint;
BEGIN
  -- Two branches, not one statement with \`docs IS NULL OR …\`: each keeps its own plan, a document's through Strapi's document index.
  IF docs IS NULL THEN
${all.join('\n')}
  ELSE
${some.join('\n')}
  END IF;
  RETURN n;
END
$$;`;
  });
  const stateOfType = plan.types.map((t) => {
    const [lo, hi] = block(t);
    return `  UPDATE ${s}.rsc t SET visibility = v.visibility FROM (SELECT min(visibility) AS visibility FROM ${live}.vocabulary WHERE id = ${t.categoryId}) v
    WHERE t.id BETWEEN ${lo} AND ${hi} AND t.visibility IS DISTINCT FROM v.visibility;
  GET DIAGNOSTICS c = ROW_COUNT;
  n := n + c;`;
  });
  const closeBranches = plan.types.map((t) => `    WHEN ${t.number} THEN type_uid := ${literal(t.uid)}; lo := ${block(t)[0]}; hi := ${block(t)[1]};`);
  return `${types.join('\n\n')}

CREATE FUNCTION ${live}.refresh_state() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE n bigint := 0; c bigint;
BEGIN
${merge('rsc', `SELECT * FROM ${live}.vocabulary`, `t.id >= ${VOCABULARY_BASE}`, rscKeys, RSC_COLUMNS)}
${stateOfType.join('\n')}
  RETURN n;
END
$$;

CREATE FUNCTION ${live}.refresh_all() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE n bigint := 0; c bigint;
BEGIN
${merge('rsc', `SELECT * FROM ${live}.rsc`, 'true', rscKeys, RSC_COLUMNS)}
${merge('edge', `SELECT * FROM ${live}.edge`, 'true', edgeKeys, EDGE_COLUMNS)}
${merge('category', `SELECT * FROM ${live}.category`, 'true', ['id'], ['id', 'parent_id', 'is_noindex'])}
${merge('predicate_category', `SELECT * FROM ${live}.predicate_category`, 'true', ['predicate_id', 'is_subject', 'category_id'], ['predicate_id', 'is_subject', 'category_id'])}
${merge('medium', `SELECT * FROM ${live}.medium`, 'true', ['rsc_id'], ['rsc_id', 'mime', 'width', 'height', 'size', 'filename'])}
  RETURN n;
END
$$;

-- Type k hidden (every type for -1) until the recipe is applied again: what cannot be followed is not served.
CREATE FUNCTION ${live}.close_type(k integer, notice text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE type_uid text; lo bigint; hi bigint;
BEGIN
  IF k = -1 THEN
${plan.types.map((t) => `    PERFORM ${live}.close_type(${t.number}, notice);`).join('\n')}
    RETURN;
  END IF;
  CASE k
${closeBranches.join('\n')}
  END CASE;
  INSERT INTO ${live}.broken (uid, notice) VALUES (type_uid, notice) ON CONFLICT (uid) DO UPDATE SET notice = EXCLUDED.notice;
  UPDATE ${s}.rsc SET visibility = 'closed' WHERE (id BETWEEN lo AND hi OR id = ${VOCABULARY_BASE + 100} + k) AND visibility <> 'closed';
END
$$;

CREATE FUNCTION ${live}.content_changed() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF to_regprocedure(${literal(`${ident(recipe)}.agent_discovery_content_changed()`)}) IS NOT NULL THEN
    EXECUTE ${literal(`SELECT ${ident(recipe)}.agent_discovery_content_changed()`)};
  END IF;
END
$$;`;
}

/**
 * What the triggers on Strapi's tables leave: `pending` (the documents a transaction wrote, per type;
 * `''` for all of a type's, type -1 for the state) and `flush()`, a deferred trigger on it that runs
 * once at the transaction's commit (the first of its calls does the work), inside Strapi's own
 * transaction: each type's documents refreshed once however many statements wrote them, one
 * transaction's refresh at a time (an advisory lock). A refresh that fails closes its type (with its
 * notice) instead of failing Strapi's write.
 */
export function pendingSql(plan: StrapiPlan, { live, recipe }: StrapiNames): string {
  const dispatch = plan.types.map((t) => `        WHEN ${t.number} THEN n := n + ${live}.${ident(`refresh_${t.number}`)}(docs);`);
  return `CREATE TABLE ${live}.pending (
  xid bigint NOT NULL DEFAULT txid_current(), type_no integer NOT NULL, doc text NOT NULL,
  PRIMARY KEY (xid, type_no, doc)
);

CREATE FUNCTION ${live}.flush() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE me bigint := txid_current(); k integer; docs text[]; n bigint := 0;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM ${live}.pending WHERE xid = me) THEN
    RETURN NULL; -- an earlier call of this commit did the work
  END IF;
  -- One refresh at a time: each statement below then reads what every other transaction committed
  -- (READ COMMITTED, Strapi's level), so a concurrent write or permission change is never overwritten
  -- with what this transaction's older snapshot saw.
  PERFORM pg_advisory_xact_lock(hashtext(${literal(`express-agent-discovery ${recipe}`)}));
  FOR k IN SELECT DISTINCT type_no FROM ${live}.pending WHERE xid = me ORDER BY 1 LOOP
    docs := CASE WHEN EXISTS (SELECT 1 FROM ${live}.pending WHERE xid = me AND type_no = k AND doc = '') THEN NULL
      ELSE ARRAY(SELECT doc FROM ${live}.pending WHERE xid = me AND type_no = k) END;
    BEGIN
      CASE k
        WHEN -1 THEN n := n + ${live}.refresh_state();
${dispatch.join('\n')}
      END CASE;
    EXCEPTION WHEN others THEN
      PERFORM ${live}.close_type(k, format('following a write failed: %s (hidden until the recipe is generated and applied again)', SQLERRM));
      n := n + 1;
    END;
  END LOOP;
  DELETE FROM ${live}.pending WHERE xid = me;
  IF n > 0 THEN
    PERFORM ${live}.content_changed();
  END IF;
  RETURN NULL;
END
$$;
CREATE CONSTRAINT TRIGGER agent_flush AFTER INSERT ON ${live}.pending DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ${live}.flush();`;
}

import { ident, literal } from '../directus/sql-text.js';
import type { StrapiNames } from './strapi-kept-sql.js';
import { strapiTable } from './strapi-live-sql.js';
import type { StrapiPlan } from './strapi-plan.js';

/** The state (the Public role, the stored model): type -1 of `pending`. */
const STATE = -1;

/** A table of Strapi's the recipe follows: how its written rows (`rows`, a transition table) map to documents. */
interface Watch {
  readonly table: string;
  /** The types a TRUNCATE (or a failure to map) refreshes whole. */
  readonly types: Set<number>;
  /** SELECTs of `(type number, document id)` from the written rows `rows`. */
  readonly maps: ((rows: string) => string)[];
}

/**
 * Every table whose rows a served document is read from, and how a written row finds its documents:
 * a type's own table (its published rows), its relations' link tables (the subject row), its
 * components table (`*_cmps`, the entity row) and the components' tables (through it), the media
 * links (`files_related_mph`) and the files (through them). A draft row maps to nothing: no draft is
 * ever read.
 */
function watches(plan: StrapiPlan): Watch[] {
  const q = strapiTable(plan.request.strapiSchema);
  const byTable = new Map<string, Watch>();
  const watch = (table: string, type: number, map: (rows: string) => string) => {
    const w = byTable.get(table) ?? { table, types: new Set<number>(), maps: [] };
    w.types.add(type);
    w.maps.push(map);
    byTable.set(table, w);
  };
  const published = (alias: string) => `${alias}.published_at IS NOT NULL AND ${alias}.document_id IS NOT NULL`;
  const media: ((from: string) => string)[] = [];
  const mediaTypes = new Set<number>();
  for (const t of plan.types) {
    const k = t.number;
    const table = q(t.type.table);
    watch(t.type.table, k, (rows) => `SELECT ${k}, x.document_id FROM ${rows} x WHERE ${published('x')}`);
    for (const r of plan.relations.filter((r) => r.subject === t)) {
      watch(r.link.table, k, (rows) => `SELECT ${k}, x.document_id FROM ${rows} l JOIN ${table} x ON x.id = l.${ident(r.link.source)} WHERE ${published('x')}`);
    }
    if (t.cover) {
      mediaTypes.add(k);
      media.push((from) => `SELECT ${k}, x.document_id FROM ${from} JOIN ${table} x ON x.id = m.related_id WHERE m.related_type = ${literal(t.uid)} AND ${published('x')}`);
    }
    for (const z of t.zones) {
      const viaZone = (from: string, on: string) => `FROM ${from} JOIN ${q(z.table)} c ON ${on} JOIN ${table} x ON x.id = c.entity_id WHERE ${published('x')}`;
      if (!byTable.get(z.table)?.types.has(k)) watch(z.table, k, (rows) => `SELECT ${k}, x.document_id FROM ${rows} c JOIN ${table} x ON x.id = c.entity_id WHERE ${published('x')}`);
      for (const c of z.components) {
        const uid = literal(c.uid);
        watch(c.table, k, (rows) => `SELECT ${k}, x.document_id ${viaZone(`${rows} y`, `c.cmp_id = y.id AND c.component_type = ${uid}`)}`);
        if (c.attributes.some(([, a]) => a.type === 'media')) {
          mediaTypes.add(k);
          media.push((from) => `SELECT ${k}, x.document_id ${viaZone(from, `c.cmp_id = m.related_id AND c.component_type = ${uid} AND m.related_type = ${uid}`)}`);
        }
      }
    }
  }
  if (media.length) {
    byTable.set('files_related_mph', { table: 'files_related_mph', types: mediaTypes, maps: media.map((m) => (rows) => m(`${rows} m`)) });
    byTable.set('files', { table: 'files', types: mediaTypes, maps: media.map((m) => (rows) => m(`${rows} f JOIN ${q('files_related_mph')} m ON m.file_id = f.id`)) });
  }
  return [...byTable.values()];
}

/**
 * The triggers on Strapi's tables, in Strapi's own transaction: per statement (its written rows as
 * transition tables), the documents it may change are noted in `pending`, refreshed once at commit.
 * The users-permissions tables and the stored model note the state. The cmps tables get an index on
 * `cmp_id` (a component's entity; Strapi indexes only `entity_id`).
 *
 * ```sql
 * CREATE TRIGGER agent_strapi_insert AFTER INSERT ON "public"."articles" REFERENCING NEW TABLE AS new_rows
 *   FOR EACH STATEMENT EXECUTE FUNCTION "agent_live"."on_articles"();
 * ```
 */
export function triggersSql(plan: StrapiPlan, { live, recipe }: StrapiNames): string {
  const q = strapiTable(plan.request.strapiSchema);
  const name = (what: string) => ident(`${recipe}_strapi_${what}`.slice(0, 63));
  const pending = `INSERT INTO ${live}.pending (type_no, doc)`;
  const out = watches(plan).map((w, i) => {
    const fn = `${live}.${ident(`on_${w.table}`.slice(0, 60))}`;
    const all = `${pending} VALUES ${[...w.types].map((k) => `(${k}, '')`).join(', ')} ON CONFLICT DO NOTHING;`;
    const from = (rows: string) => `${pending} SELECT DISTINCT * FROM (\n          ${w.maps.map((m) => m(rows)).join('\n          UNION ALL ')}\n        ) d (k, doc) ON CONFLICT DO NOTHING;`;
    const table = q(w.table);
    return `-- ${w.table}: the documents its written rows belong to${i ? '' : ' (every statement notes them; the refresh runs at commit)'}.
CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  BEGIN
    IF TG_OP = 'TRUNCATE' THEN
      ${all}
    ELSE
      IF TG_OP IN ('INSERT', 'UPDATE') THEN
        ${from('new_rows')}
      END IF;
      IF TG_OP IN ('UPDATE', 'DELETE') THEN
        ${from('old_rows')}
      END IF;
    END IF;
  EXCEPTION WHEN others THEN -- the rows cannot be mapped: their types are refreshed whole
    ${all}
  END;
  RETURN NULL;
END
$$;
CREATE TRIGGER ${name('insert')} AFTER INSERT ON ${table} REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ${fn}();
CREATE TRIGGER ${name('update')} AFTER UPDATE ON ${table} REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ${fn}();
CREATE TRIGGER ${name('delete')} AFTER DELETE ON ${table} REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION ${fn}();
CREATE TRIGGER ${name('truncate')} AFTER TRUNCATE ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION ${fn}();`;
  });
  const state = ['up_permissions', 'up_permissions_role_lnk', 'up_roles', 'strapi_core_store_settings'];
  out.push(`-- The Public role's permissions and Strapi's stored model: every type's state.
CREATE FUNCTION ${live}.on_state() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  ${pending} VALUES (${STATE}, '') ON CONFLICT DO NOTHING;
  RETURN NULL;
END
$$;
${state.map((t) => `CREATE TRIGGER ${name('state')} AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${q(t)} FOR EACH STATEMENT EXECUTE FUNCTION ${live}.on_state();`).join('\n')}`);
  const cmps = [...new Set(plan.types.flatMap((t) => t.zones.map((z) => z.table)))];
  out.push(cmps.map((t) => `CREATE INDEX IF NOT EXISTS ${ident(`agent_${t}_cmp_idx`.slice(0, 63))} ON ${q(t)} (cmp_id);`).join('\n'));
  return out.join('\n\n');
}

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Queryable } from '../directus/directus-model.js';
import { ident } from '../directus/sql-text.js';

/** An attribute of a Strapi content type or component, as its `schema.json` has it. */
export interface StrapiAttribute {
  readonly type: string;
  readonly private?: boolean;
  readonly relation?: string;
  readonly target?: string;
  /** The inverse side of a relation (its edges are the owning side's). */
  readonly mappedBy?: string;
  readonly multiple?: boolean;
  readonly components?: readonly string[];
  readonly component?: string;
  readonly repeatable?: boolean;
}

/** A content type (`api::article.article`) with its table as PostgreSQL has it. */
export interface StrapiType {
  readonly uid: string;
  readonly kind: 'collectionType' | 'singleType';
  readonly table: string;
  readonly singularName: string;
  readonly pluralName: string;
  readonly displayName: string;
  readonly draftAndPublish: boolean;
  readonly localized: boolean;
  readonly attributes: ReadonlyMap<string, StrapiAttribute>;
  /** Column name → PostgreSQL type. */
  readonly columns: ReadonlyMap<string, string>;
  /** The primary key's columns. */
  readonly primaryKey: readonly string[];
}

/** A component (`shared.quote`) from the project's `src/components/<category>/<name>.json`. */
export interface StrapiComponent {
  readonly uid: string;
  readonly table: string;
  readonly attributes: ReadonlyMap<string, StrapiAttribute>;
}

/** What the generator reads of a Strapi 5 database (and, when given, the project's model files). */
export interface StrapiModel {
  readonly schema: string;
  readonly types: ReadonlyMap<string, StrapiType>;
  /** Empty without `--model`: components are only in the project's files. */
  readonly components: ReadonlyMap<string, StrapiComponent>;
  readonly modelGiven: boolean;
  /** The md5 of the stored model's text at generation (null: none stored): while it is the same, no served field changed. */
  readonly storedModelMd5: string | null;
  readonly locales: readonly string[];
  readonly defaultLocale: string;
  /** The actions of the users-permissions Public role now (`api::article.article.find`). */
  readonly publicActions: ReadonlySet<string>;
  /** Link tables: `<table>.<attribute>` → the link table and its two columns (the source row's, the target row's). */
  readonly links: ReadonlyMap<string, { readonly table: string; readonly source: string; readonly target: string; readonly order: string | undefined }>;
  /** Problems found while reading, every one (the generator stops with all of them). */
  readonly problems: readonly string[];
}

/** Not a Strapi 5 database, or not this schema: nothing can be generated. */
export class StrapiModelError extends Error {
  override name = 'StrapiModelError';
}

interface StoredType {
  uid?: string;
  kind?: string;
  collectionName?: string;
  info?: { singularName?: string; pluralName?: string; displayName?: string };
  options?: { draftAndPublish?: boolean };
  pluginOptions?: { i18n?: { localized?: boolean } };
  attributes?: Record<string, StrapiAttribute>;
  __schema__?: { attributes?: Record<string, StrapiAttribute> };
}

/**
 * Reads a Strapi 5 database: the content types Strapi stored at its last start
 * (`strapi_core_store_settings` key `strapi_content_types_schema`; the `api::` ones), overridden by
 * the project's `src/api/<api>/content-types/<type>/schema.json` when `modelDir` is given, the
 * components from `src/components/<category>/<name>.json` (only there), the locales (`i18n_locale`,
 * the default from `plugin_i18n_default_locale`), the Public role's actions, the tables' columns and
 * primary keys and the relations' link tables from the catalog. Throws a {@link StrapiModelError}
 * when the database is not Strapi 5's (Strapi 4 has no `document_id`; no users-permissions plugin).
 */
export async function readStrapiModel(db: Queryable, schema: string, modelDir: string | undefined): Promise<StrapiModel> {
  const q = (table: string) => `${ident(schema)}.${ident(table)}`;
  const { rows: present } = await db.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = $1 AND c.relname IN ('strapi_core_store_settings', 'up_roles', 'up_permissions', 'up_permissions_role_lnk', 'i18n_locale')`,
    [schema],
  );
  const has = new Set(present.map((r) => r.name));
  if (!has.has('strapi_core_store_settings')) {
    throw new StrapiModelError(`no Strapi tables in schema "${schema}" of this database (strapi_core_store_settings is missing): is it Strapi's database? Its schema is --strapi-schema`);
  }
  const missingPlugin = ['up_roles', 'up_permissions', 'up_permissions_role_lnk'].filter((t) => !has.has(t));
  if (missingPlugin.length) {
    throw new StrapiModelError(`the users-permissions plugin's tables are missing (${missingPlugin.join(', ')}): the recipe follows its Public role, and without it Strapi serves nothing anonymously`);
  }
  const { rows: stored } = await db.query<{ value: string; md5: string }>(`SELECT value, md5(value) AS md5 FROM ${q('strapi_core_store_settings')} WHERE key = 'strapi_content_types_schema'`);
  let storedTypes: Record<string, StoredType> = {};
  try {
    storedTypes = stored[0]?.value ? (JSON.parse(stored[0].value) as Record<string, StoredType>) : {};
  } catch {
    throw new StrapiModelError('strapi_core_store_settings.strapi_content_types_schema is not JSON: start Strapi once (it writes it at each start), or pass --model <project dir>');
  }
  const problems: string[] = [];
  const files = modelDir ? readModelFiles(modelDir, problems) : { types: new Map<string, StoredType>(), components: new Map<string, StoredType>() };

  const { rows: columns } = await db.query<{ relation: string; name: string; type: string; primary: boolean }>(
    `SELECT c.relname AS relation, a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type,
       EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.oid AND i.indisprimary AND a.attnum = ANY (i.indkey)) AS primary
     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
     WHERE n.nspname = $1 AND c.relkind IN ('r', 'p') ORDER BY c.relname, a.attnum`,
    [schema],
  );
  const tableColumns = new Map<string, { type: string; primary: boolean; name: string }[]>();
  for (const c of columns) tableColumns.set(c.relation, [...(tableColumns.get(c.relation) ?? []), c]);

  const types = new Map<string, StrapiType>();
  const uids = new Set([...Object.keys(storedTypes).filter((u) => u.startsWith('api::')), ...files.types.keys()]);
  for (const uid of [...uids].sort()) {
    const fromDb = storedTypes[uid];
    const fromFile = files.types.get(uid);
    const t: StoredType = { ...fromDb, ...fromFile, attributes: fromFile?.attributes ?? fromDb?.__schema__?.attributes ?? fromDb?.attributes };
    const table = t.collectionName ?? fromDb?.collectionName;
    if (!table) {
      problems.push(`content type ${uid}: no collectionName in its model`);
      continue;
    }
    const own = tableColumns.get(table);
    if (!own) {
      problems.push(`content type ${uid}: its table ${table} is not in schema ${schema}`);
      continue;
    }
    if (!own.some((c) => c.name === 'document_id')) {
      throw new StrapiModelError(`table ${table} (${uid}) has no document_id column: this is not a Strapi 5 database (Strapi 4 keeps one row per entry; migrate it to Strapi 5 first)`);
    }
    types.set(uid, {
      uid,
      kind: t.kind === 'singleType' ? 'singleType' : 'collectionType',
      table,
      singularName: t.info?.singularName ?? uid.split('.').pop()!,
      pluralName: t.info?.pluralName ?? table,
      displayName: t.info?.displayName ?? uid,
      draftAndPublish: t.options?.draftAndPublish === true,
      localized: t.pluginOptions?.i18n?.localized === true,
      attributes: new Map(Object.entries(t.attributes ?? {})),
      columns: new Map(own.map((c) => [c.name, c.type])),
      primaryKey: own.filter((c) => c.primary).map((c) => c.name),
    });
  }
  const components = new Map<string, StrapiComponent>();
  for (const [uid, c] of files.components) {
    if (!c.collectionName) {
      problems.push(`component ${uid}: no collectionName in its file`);
      continue;
    }
    components.set(uid, { uid, table: c.collectionName, attributes: new Map(Object.entries(c.attributes ?? {})) });
  }

  const locales = has.has('i18n_locale')
    ? (await db.query<{ code: string }>(`SELECT code FROM ${q('i18n_locale')} WHERE code IS NOT NULL ORDER BY id`)).rows.map((r) => r.code)
    : [];
  const { rows: defaults } = await db.query<{ value: string }>(`SELECT value FROM ${q('strapi_core_store_settings')} WHERE key = 'plugin_i18n_default_locale'`);
  let defaultLocale = locales[0] ?? 'en';
  try {
    if (defaults[0]?.value) defaultLocale = String(JSON.parse(defaults[0].value));
  } catch {
    problems.push(`plugin_i18n_default_locale is not JSON: ${defaults[0]!.value.slice(0, 40)}`);
  }
  const { rows: actions } = await db.query<{ action: string }>(
    `SELECT p.action FROM ${q('up_permissions')} p JOIN ${q('up_permissions_role_lnk')} l ON l.permission_id = p.id JOIN ${q('up_roles')} r ON r.id = l.role_id WHERE r.type = 'public'`,
  );
  const { rows: fks } = await db.query<{ link: string; col: string; target: string }>(
    `SELECT c.relname AS link, a.attname AS col, t.relname AS target FROM pg_constraint k
     JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace JOIN pg_class t ON t.oid = k.confrelid
     JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = k.conkey[1]
     WHERE n.nspname = $1 AND k.contype = 'f' AND c.relname LIKE '%\\_lnk' AND cardinality(k.conkey) = 1`,
    [schema],
  );
  const links = new Map<string, { table: string; source: string; target: string; order: string | undefined }>();
  for (const type of types.values()) {
    for (const [name, a] of type.attributes) {
      if (a.type !== 'relation' || !a.target) continue;
      const target = types.get(a.target);
      if (!target) continue;
      const link = `${type.table}_${snake(name)}_lnk`;
      const cols = fks.filter((f) => f.link === link);
      const source = cols.find((f) => f.target === type.table && !f.col.startsWith('inv_'));
      const other = cols.find((f) => f.target === target.table && f !== source);
      if (source && other) {
        const order = tableColumns.get(link)?.find((c) => c.name === `${snake(target.singularName)}_ord` || c.name === `${other.col.replace(/_id$/, '')}_ord`)?.name;
        links.set(`${type.table}.${name}`, { table: link, source: source.col, target: other.col, order });
      }
    }
  }
  return {
    schema,
    types,
    components,
    modelGiven: modelDir !== undefined,
    storedModelMd5: stored[0]?.md5 ?? null,
    locales,
    defaultLocale,
    publicActions: new Set(actions.map((r) => r.action)),
    links,
    problems,
  };
}

const snake = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/-/g, '_').toLowerCase();

/** The project's model files: content types and components, every unreadable file a problem. */
function readModelFiles(dir: string, problems: string[]): { types: Map<string, StoredType>; components: Map<string, StoredType> } {
  const root = isDir(join(dir, 'src')) ? join(dir, 'src') : dir;
  if (!isDir(join(root, 'api')) && !isDir(join(root, 'components'))) {
    throw new StrapiModelError(`--model ${dir}: neither ${join(root, 'api')} nor ${join(root, 'components')} exists (give the Strapi project's folder, or its src)`);
  }
  const types = new Map<string, StoredType>();
  const components = new Map<string, StoredType>();
  const read = (file: string): StoredType | undefined => {
    try {
      const value = JSON.parse(readFileSync(file, 'utf8')) as unknown;
      if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error('not a JSON object');
      return value as StoredType;
    } catch (error) {
      problems.push(`${relative(dir, file) || file}: ${(error as Error).message}`);
      return undefined;
    }
  };
  for (const api of list(join(root, 'api'))) {
    for (const type of list(join(root, 'api', api, 'content-types'))) {
      const file = join(root, 'api', api, 'content-types', type, 'schema.json');
      if (!isFile(file)) continue;
      const value = read(file);
      if (value) types.set(`api::${api}.${type}`, value);
    }
  }
  for (const category of list(join(root, 'components'))) {
    for (const name of list(join(root, 'components', category))) {
      if (!name.endsWith('.json')) continue;
      const value = read(join(root, 'components', category, name));
      if (value) components.set(`${category}.${name.slice(0, -5)}`, value);
    }
  }
  return { types, components };
}

const isDir = (p: string) => statSync(p, { throwIfNoEntry: false })?.isDirectory() ?? false;
const isFile = (p: string) => statSync(p, { throwIfNoEntry: false })?.isFile() ?? false;
const list = (p: string) => (isDir(p) ? readdirSync(p).sort() : []);

import { isLanguageTag } from '../../content/language.js';
import { categoryId, MAX_COLLECTIONS, predicateId } from '../directus/id-scheme.js';
import { RecipeRequestError } from '../directus/recipe-request.js';
import type { StrapiAttribute, StrapiModel, StrapiType } from './strapi-model.js';

/** What `views strapi` is asked for, from the command line. */
export interface StrapiRequest {
  /** Content types to serve (`api::article.article` or `article`), with page URL patterns; empty: every one the Public role may read. */
  readonly types: readonly { readonly name: string; readonly pattern: string | undefined }[];
  readonly siteUrl: string | undefined;
  /** Where `/uploads/…` media URLs are served from (default: the site URL). */
  readonly uploadBase: string | undefined;
  readonly recipeSchema: string;
  readonly strapiSchema: string;
  readonly textSearch: string;
  readonly modelDir: string | undefined;
}

/** A component field of a served type, rendered to HTML after the body, in its order. */
export interface PlannedZone {
  readonly field: string;
  /** The components table (`articles_cmps`). */
  readonly table: string;
  readonly components: readonly { readonly uid: string; readonly table: string; readonly attributes: readonly (readonly [string, StrapiAttribute])[] }[];
}

/** A content type the recipe serves. */
export interface PlannedType {
  readonly uid: string;
  readonly type: StrapiType;
  readonly number: number;
  readonly categoryId: number;
  readonly categoryName: string;
  readonly title: string;
  readonly slug: string | undefined;
  readonly summary: string | undefined;
  /** The body field and its editor. */
  readonly body: { readonly field: string; readonly format: 'blocks' | 'markdown' | 'text' } | undefined;
  readonly cover: string | undefined;
  readonly zones: readonly PlannedZone[];
  /** `/{locale}/articles/{slug}`: `{locale}`, `{slug}`, `{documentId}`. */
  readonly pattern: string;
  /** The attributes served: the model may not make any of them private later (the type is then closed). */
  readonly served: readonly string[];
  /** The Public role's actions the type needs (`find` and `findOne`; a single type `find`). */
  readonly actions: readonly string[];
}

export interface PlannedRelation {
  readonly id: number;
  readonly name: string;
  readonly subject: PlannedType;
  readonly field: string;
  readonly object: PlannedType;
  readonly link: { readonly table: string; readonly source: string; readonly target: string; readonly order: string | undefined };
}

export interface StrapiPlan {
  readonly request: StrapiRequest;
  readonly model: StrapiModel;
  readonly types: readonly PlannedType[];
  readonly relations: readonly PlannedRelation[];
  /** The default locale, lower case: the language of types without i18n. */
  readonly language: string;
  /** What is not served, and why (for the report): types the Public role may not read, private fields, dynamic zones without their components' model. */
  readonly notes: readonly string[];
}

const TITLE = ['title', 'name', 'headline', 'label', 'heading'];
const SUMMARY = ['summary', 'excerpt', 'description', 'lead', 'teaser', 'abstract', 'bio'];
const BODY = ['body', 'content', 'text'];
const COVER = ['cover', 'image', 'picture', 'thumbnail'];
const TEXT_TYPES = new Set(['string', 'text', 'uid']);
const HIDDEN_TYPES = new Set(['password', 'email']);

/** Never served: `private: true` in the model, and password and email fields. */
export const isPrivate = (a: StrapiAttribute): boolean => a.private === true || HIDDEN_TYPES.has(a.type);

/**
 * Resolves the request against the model: the types (every content type the Public role may read
 * now, or those named), each role's field found by its usual name among the fields that are not
 * private, the dynamic zones with their components (from the model files), the relations between
 * served types. Every problem is collected and thrown at once as a {@link RecipeRequestError}.
 */
export function planStrapi(model: StrapiModel, request: StrapiRequest): StrapiPlan {
  const problems = [...model.problems];
  const notes: string[] = [];
  const language = model.defaultLocale.toLowerCase();
  for (const code of model.locales) {
    if (!isLanguageTag(code)) problems.push(`locale "${code}" (i18n_locale) is not a language tag such as en or pt-BR: rename it in Strapi (Settings → Internationalization)`);
  }
  const needs = (t: StrapiType) => (t.kind === 'singleType' ? ['find'] : ['find', 'findOne']).map((a) => `${t.uid}.${a}`);
  const readable = (t: StrapiType) => needs(t).every((a) => model.publicActions.has(a));
  const chosen: { type: StrapiType; pattern: string | undefined }[] = [];
  if (request.types.length) {
    for (const r of request.types) {
      const type = model.types.get(r.name) ?? [...model.types.values()].find((t) => t.singularName === r.name || t.pluralName === r.name);
      if (!type) problems.push(`--type ${r.name}: there is no content type "${r.name}" (its content types: ${[...model.types.keys()].join(', ') || 'none'})`);
      else chosen.push({ type, pattern: r.pattern });
    }
  } else {
    for (const type of model.types.values()) {
      if (readable(type)) chosen.push({ type, pattern: undefined });
      else notes.push(`${type.uid}: not served, the Public role may not ${needs(type).filter((a) => !model.publicActions.has(a)).map((a) => a.split('.').pop()).join(' or ')} it (grant it in Strapi and generate again)`);
    }
  }
  if (chosen.length > MAX_COLLECTIONS) problems.push(`at most ${MAX_COLLECTIONS} content types can be served`);
  const names = new Set<string>(['meta', 'category', 'predicate']);
  const types: PlannedType[] = [];
  chosen.forEach(({ type, pattern }, number) => {
    const before = problems.length;
    const t = planType(model, type, pattern, number, names, problems, notes, needs(type));
    if (t && problems.length === before) {
      names.add(t.categoryName);
      types.push(t);
    }
  });
  if (!chosen.length && !problems.length) problems.push('the Public role may read no content type: there is nothing to serve (grant find and findOne in Strapi, or name types with --type)');
  if (problems.length) {
    throw new RecipeRequestError(problems.length === 1 ? problems[0]! : `${problems.length} problems, nothing written:\n  - ${problems.join('\n  - ')}`);
  }
  const relations: PlannedRelation[] = [];
  let n = 1;
  for (const subject of types) {
    for (const [field, a] of subject.type.attributes) {
      if (a.type !== 'relation' || !a.target || a.mappedBy || isPrivate(a)) continue;
      const object = types.find((t) => t.uid === a.target);
      const link = model.links.get(`${subject.type.table}.${field}`);
      if (!object) continue; // a type not served is not named
      if (!link) {
        notes.push(`${subject.uid}.${field}: no link table found for the relation, not served as edges`);
        continue;
      }
      const name = names.has(field.toLowerCase()) ? `has_${field.toLowerCase()}` : field.toLowerCase();
      names.add(name);
      relations.push({ id: predicateId(n++), name, subject, field, object, link });
    }
  }
  return Object.freeze({ request, model, types, relations, language, notes });
}

function planType(
  model: StrapiModel,
  type: StrapiType,
  pattern: string | undefined,
  number: number,
  names: ReadonlySet<string>,
  problems: string[],
  notes: string[],
  actions: readonly string[],
): PlannedType | undefined {
  const where = `content type ${type.uid} (table ${type.table})`;
  if (type.primaryKey.length !== 1 || type.primaryKey[0] !== 'id' || !/^(integer|bigint)$/.test(type.columns.get('id') ?? '')) {
    problems.push(`${where}: its primary key is ${type.primaryKey.length ? type.primaryKey.join(', ') : 'missing'}, not Strapi's integer id: the recipe serves Strapi's own tables only`);
    return undefined;
  }
  for (const c of ['document_id', 'published_at', 'created_at', 'updated_at', 'locale']) {
    if (!type.columns.has(c)) problems.push(`${where}: the column ${c} is missing (a Strapi 5 table has it)`);
  }
  const open = [...type.attributes].filter(([name, a]) => !isPrivate(a) && type.columns.has(snakeColumn(name)));
  const privates = [...type.attributes].filter(([, a]) => isPrivate(a)).map(([name]) => name);
  if (privates.length) notes.push(`${type.uid}: never served (private or password/email): ${privates.join(', ')}`);
  const pick = (candidates: readonly string[], ok: (a: StrapiAttribute) => boolean) =>
    candidates.find((c) => open.some(([name, a]) => name === c && ok(a))) ?? undefined;
  const title = pick(TITLE, (a) => TEXT_TYPES.has(a.type)) ?? open.find(([, a]) => a.type === 'string')?.[0];
  if (!title) problems.push(`${where}: no title field (looked for ${TITLE.join(', ')}, then any string field that is not private)`);
  const slug = open.find(([, a]) => a.type === 'uid')?.[0] ?? pick(['slug'], (a) => TEXT_TYPES.has(a.type));
  const summary = pick(SUMMARY, (a) => a.type === 'text' || a.type === 'string');
  const bodyName = pick(BODY, (a) => ['blocks', 'richtext', 'text'].includes(a.type)) ?? open.find(([, a]) => a.type === 'blocks' || a.type === 'richtext')?.[0];
  const bodyType = bodyName ? type.attributes.get(bodyName)!.type : undefined;
  const cover = COVER.find((c) => [...type.attributes].some(([name, a]) => name === c && a.type === 'media' && a.multiple !== true && !isPrivate(a)));
  const defaultPattern = type.kind === 'singleType' ? `/${type.singularName}` : `/${type.localized ? '{locale}/' : ''}${type.pluralName}/{slug}`;
  const urlPattern = pattern ?? defaultPattern;
  for (const [, field] of urlPattern.matchAll(/\{([^}]*)\}/g)) {
    if (!['locale', 'slug', 'documentId'].includes(field!)) problems.push(`${where}: the page URL pattern ${urlPattern} names {${field}}; a pattern may name {locale}, {slug} and {documentId}`);
    if (field === 'slug' && !slug) problems.push(`${where}: no slug (uid) field for its page URLs: give a pattern (--type ${type.singularName}:/${type.pluralName}/{documentId})`);
  }
  const zones: PlannedZone[] = [];
  for (const [field, a] of type.attributes) {
    if (a.type !== 'dynamiczone' || isPrivate(a)) continue;
    if (!model.modelGiven) {
      notes.push(`${type.uid}.${field}: a dynamic zone; its components are in the project's files: pass --model <project dir> to serve it (not served now)`);
      continue;
    }
    const components = (a.components ?? []).flatMap((uid) => {
      const c = model.components.get(uid);
      if (!c) {
        problems.push(`${where}: the dynamic zone ${field} allows the component ${uid}, which is not in --model's src/components`);
        return [];
      }
      return [{ uid, table: c.table, attributes: [...c.attributes].filter(([, x]) => !isPrivate(x)) }];
    });
    zones.push({ field, table: `${type.table}_cmps`, components });
  }
  if (!title) return undefined;
  return Object.freeze({
    uid: type.uid,
    type,
    number,
    categoryId: categoryId(number),
    categoryName: names.has(type.pluralName) ? `${type.pluralName}_type` : type.pluralName.toLowerCase().replace(/[^a-z0-9_]+/g, '_'),
    title,
    slug,
    summary,
    body: bodyName ? { field: bodyName, format: bodyType === 'blocks' ? ('blocks' as const) : bodyType === 'richtext' ? ('markdown' as const) : ('text' as const) } : undefined,
    cover,
    zones,
    pattern: urlPattern,
    served: [title, slug, summary, bodyName, cover, ...zones.map((z) => z.field)].filter((x): x is string => !!x),
    actions,
  });
}

/** The column of an attribute (`publishedDate` → `published_date`). */
export const snakeColumn = (name: string): string => name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/-/g, '_').toLowerCase();

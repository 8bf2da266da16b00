import { isLanguageTag } from '../../content/language.js';
import type { DirectusCollection, DirectusModel, DirectusRelation } from './directus-model.js';
import { categoryId, MAX_COLLECTIONS, predicateId } from './id-scheme.js';
import { RecipeRequestError, type FieldRole, type RecipeRequest } from './recipe-request.js';

/** Where a served value comes from: a field of the item, or of its translations (one per language). */
export interface FieldSource {
  readonly field: string;
  /** The column's PostgreSQL type. */
  readonly type: string;
  readonly translated: boolean;
}

/** A body field, and how its text becomes the body HTML the plugin serves. */
export interface BodySource extends FieldSource {
  /** `html`: served as it is (Directus's rich-text HTML); `text`: escaped, blank lines make paragraphs. */
  readonly format: 'html' | 'text';
}

/** A collection's translations: the collection holding them, its field naming the item and the one naming the language. */
export interface TranslationsSource {
  readonly collection: string;
  readonly itemField: string;
  readonly languageField: string;
}

/** A collection the recipe serves, every field resolved. */
export interface PlannedCollection {
  readonly name: string;
  /** `k` of the id scheme: its items are `k × 10^12 + <primary key>`. */
  readonly number: number;
  readonly categoryId: number;
  /** The category's name (`articles`). */
  readonly categoryName: string;
  readonly primaryKey: string;
  readonly title: FieldSource;
  readonly summary: FieldSource | undefined;
  readonly body: BodySource | undefined;
  /** The date the item sorts by and that the rule's window starts from when it names none; `null`: undated (`--map x.date=none`). */
  readonly date: FieldSource | null;
  readonly created: FieldSource | undefined;
  readonly modified: FieldSource | undefined;
  /** The page URL pattern (`/articles/{slug}`), its fields resolved. */
  readonly pattern: string;
  readonly patternFields: ReadonlyMap<string, FieldSource>;
  readonly translations: TranslationsSource | undefined;
  /** The fields the recipe serves: the Public policy must be allowed to read them (`field`, or `collection.field`). */
  readonly served: readonly string[];
}

/** A relation field served as edges of a named predicate. */
export interface PlannedPredicate {
  readonly number: number;
  readonly id: number;
  readonly name: string;
  readonly subject: string;
  readonly field: string;
  readonly object: string;
  /** Many-to-many: the junction collection and its fields naming the subject and the object. */
  readonly junction: { readonly collection: string; readonly subjectField: string; readonly objectField: string } | undefined;
}

/** Everything the SQL is written from. */
export interface RecipePlan {
  readonly request: RecipeRequest;
  readonly collections: readonly PlannedCollection[];
  readonly predicates: readonly PlannedPredicate[];
  /** Every collection table of the model: a rule may read any of them through a relation. */
  readonly watched: readonly string[];
  /** The many side of every relation (`articles_tags.articles_id`): indexed, as rules and triggers join through them. */
  readonly relationKeys: readonly { readonly collection: string; readonly field: string }[];
  /** The language of untranslated content. */
  readonly language: string;
}

const RESERVED_NAMES = new Set(['meta', 'category', 'predicate']);
const CANDIDATES: Record<FieldRole, readonly string[]> = {
  title: ['title', 'name', 'headline', 'label', 'heading'],
  slug: ['slug'],
  summary: ['summary', 'excerpt', 'description', 'lead', 'teaser', 'abstract'],
  body: ['body', 'content', 'html', 'text'],
  date: ['date_published', 'published_at', 'publish_date', 'published_on', 'publication_date', 'date_created', 'created_at'],
  created: ['date_created', 'created_at'],
  modified: ['date_updated', 'updated_at', 'modified_at'],
};
const TEXT_TYPE = /^(text|character varying(\(\d+\))?|character(\(\d+\))?|citext|uuid|integer|bigint|smallint)$/;
const DATE_TYPE = /^(timestamp(\(\d\))? with(out)? time zone|date)$/;
const INTEGER_TYPE = /^(integer|bigint|smallint)$/;

/**
 * Resolves the request against the model: which collections (every one shown in Directus's app when
 * none is named), each role's field (named by `--map`, else found by its usual names and Directus's
 * `date-created`/`date-updated` fields), the translations, the relations between served collections
 * (many-to-one fields and many-to-many fields become predicates named after the field), and the
 * numbers of the id scheme, kept from an earlier run. Throws a {@link RecipeRequestError} naming what
 * to pass when a collection lacks a slug or a date, has no integer primary key, or a name is unknown.
 */
export function planRecipe(model: DirectusModel, request: RecipeRequest): RecipePlan {
  const requested = request.collections.length
    ? request.collections
    : [...model.collections.values()].filter((c) => !c.hidden).map((c) => ({ name: c.name, pattern: undefined }));
  if (!requested.length) throw new RecipeRequestError('the Directus model has no collection to serve: name one with --collection <name>:<page URL pattern>');
  const seen = new Set<string>();
  for (const r of requested) {
    if (!model.collections.has(r.name)) {
      const known = [...model.collections.keys()].join(', ') || 'none';
      throw new RecipeRequestError(`--collection ${r.name}: there is no collection "${r.name}" with a table in schema ${model.schema} (its collections: ${known})`);
    }
    if (seen.has(r.name)) throw new RecipeRequestError(`--collection ${r.name} is given twice`);
    seen.add(r.name);
  }
  for (const collection of request.mappings.keys()) {
    if (!seen.has(collection)) throw new RecipeRequestError(`--map ${collection}.…: the collection "${collection}" is not served (serve it with --collection ${collection})`);
  }
  if (requested.length > MAX_COLLECTIONS) throw new RecipeRequestError(`at most ${MAX_COLLECTIONS} collections can be served`);

  const numbers = assignNumbers(requested.map((r) => r.name), model.previous.collections, 0);
  const language = (request.language ?? model.defaultLanguage ?? 'en').toLowerCase();
  if (!isLanguageTag(language)) throw new RecipeRequestError(`--language: "${language}" is not a language code such as "en" or "pt-br"`);
  const categoryNames = new Set<string>();
  // Every collection that cannot be served is reported, not only the first.
  const problems: string[] = [];
  const collections = requested.flatMap((r) => {
    try {
      const c = planCollection(model, model.collections.get(r.name)!, r.pattern, request.mappings.get(r.name) ?? new Map(), numbers.get(r.name)!, categoryNames);
      categoryNames.add(c.categoryName);
      return [c];
    } catch (error) {
      if (!(error instanceof RecipeRequestError)) throw error;
      problems.push(error.message);
      return [];
    }
  });
  if (problems.length) {
    throw new RecipeRequestError(problems.length === 1 ? problems[0]! : `${problems.length} collections cannot be served as asked:\n  - ${problems.join('\n  - ')}`);
  }
  const predicates = planPredicates(model, request, collections, categoryNames);
  const relationKeys = model.relations
    .filter((r) => model.collections.get(r.manyCollection)?.columns.has(r.manyField))
    .map((r) => ({ collection: r.manyCollection, field: r.manyField }));
  return Object.freeze({ request, collections, predicates, watched: [...model.collections.keys()], relationKeys, language });
}

/** Numbers for `names`: the earlier run's where it gave one, else the smallest free from `first`. */
function assignNumbers(names: readonly string[], previous: ReadonlyMap<string, number>, first: number): Map<string, number> {
  const taken = new Set(names.flatMap((n) => (previous.has(n) ? [previous.get(n)!] : [])));
  const numbers = new Map<string, number>();
  let next = first;
  for (const name of names) {
    const kept = previous.get(name);
    if (kept !== undefined) {
      numbers.set(name, kept);
      continue;
    }
    while (taken.has(next)) next++;
    taken.add(next);
    numbers.set(name, next);
  }
  return numbers;
}

function planCollection(
  model: DirectusModel,
  c: DirectusCollection,
  pattern: string | undefined,
  mapping: ReadonlyMap<FieldRole, string | null>,
  number: number,
  usedNames: ReadonlySet<string>,
): PlannedCollection {
  if (!c.primaryKey || !INTEGER_TYPE.test(c.columns.get(c.primaryKey) ?? '')) {
    const key = c.primaryKey ? `${c.primaryKey} (${c.columns.get(c.primaryKey)})`
      : c.compositeKey.length ? `composite (${c.compositeKey.join(', ')})` : 'missing';
    throw new RecipeRequestError(
      `collection ${c.name}: its primary key is ${key}; the generator serves collections whose primary key is one integer column (a uuid, string or composite key needs a surrogate id, see the guide)`,
    );
  }
  const translations = translationsOf(model, c);
  const find = (role: FieldRole, required: boolean, types: RegExp): FieldSource | undefined => {
    const named = mapping.get(role);
    if (named === null) return undefined;
    const names = named !== undefined ? [named] : [...CANDIDATES[role], ...(role === 'created' ? specialField(c, 'date-created') : role === 'modified' ? specialField(c, 'date-updated') : [])];
    if (role === 'date' && named === undefined) names.push(...specialField(c, 'date-created'));
    for (const field of names) {
      const source = sourceOf(model, c, translations, field);
      if (!source) continue;
      if (!types.test(source.type)) {
        if (named !== undefined) throw new RecipeRequestError(`--map ${c.name}.${role}=${field}: the field is of type ${source.type}, not a ${types === DATE_TYPE ? 'date or datetime' : 'text'} field`);
        continue;
      }
      return source;
    }
    if (named !== undefined) throw new RecipeRequestError(`--map ${c.name}.${role}=${named}: collection ${c.name} has no field "${named}"${translations ? ` (nor its translations ${translations.collection})` : ''}`);
    if (required) throw missingRole(c, role);
    return undefined;
  };

  const title = find('title', true, TEXT_TYPE)!;
  const summary = find('summary', false, TEXT_TYPE);
  const bodyField = find('body', false, TEXT_TYPE);
  const date = mapping.get('date') === null ? null : find('date', true, DATE_TYPE)!;
  const created = find('created', false, DATE_TYPE);
  const modified = find('modified', false, DATE_TYPE);
  const slug = mapping.get('slug') === null ? undefined : find('slug', pattern === undefined, TEXT_TYPE);
  if (pattern === undefined && !slug) throw missingRole(c, 'slug');
  const urlPattern = pattern ?? `/${c.name}/{${slug!.field}}`;
  const patternFields = new Map<string, FieldSource>();
  for (const [, field] of urlPattern.matchAll(/\{([^}]*)\}/g)) {
    if (field === 'lang') continue;
    const source = field === 'slug' && slug ? slug : sourceOf(model, c, translations, field!);
    if (!source) throw new RecipeRequestError(`--collection ${c.name}:${urlPattern}: collection ${c.name} has no field "${field}" for the page URL`);
    patternFields.set(field!, source);
  }
  const served = [c.primaryKey, ...[title, summary, bodyField, date, created, modified, ...patternFields.values()].flatMap((f) =>
    f ? [f.translated ? `${translations!.collection}.${f.field}` : f.field] : [],
  )];
  return Object.freeze({
    name: c.name,
    number,
    categoryId: categoryId(number),
    categoryName: uniqueName(vocabularyName(c.name), usedNames, `${vocabularyName(c.name)}_collection`),
    primaryKey: c.primaryKey,
    title,
    summary,
    body: bodyField && { ...bodyField, format: bodyFormat(model, c, translations, bodyField) },
    date,
    created,
    modified,
    pattern: urlPattern,
    patternFields,
    translations,
    served: [...new Set(served)],
  });
}

function missingRole(c: DirectusCollection, role: FieldRole): RecipeRequestError {
  if (role === 'slug') {
    return new RecipeRequestError(
      `collection ${c.name} has no slug field for its page URLs: give the pattern of its pages (--collection ${c.name}:/${c.name}/{${c.primaryKey}}) or its slug field (--map ${c.name}.slug=<field>)`,
    );
  }
  if (role === 'date') {
    return new RecipeRequestError(
      `collection ${c.name} has no date field (looked for ${CANDIDATES.date.join(', ')} and a date-created field): name it (--map ${c.name}.date=<field>) or serve it undated (--map ${c.name}.date=none: it sorts last by date)`,
    );
  }
  return new RecipeRequestError(`collection ${c.name} has no ${role} field (looked for ${CANDIDATES[role].join(', ')}): name it with --map ${c.name}.${role}=<field>`);
}

/** The fields of `c` with a Directus `special` flag (`date-created`). */
const specialField = (c: DirectusCollection, special: string): string[] =>
  [...c.fields].filter(([, f]) => f.special.includes(special)).map(([name]) => name);

/** `field` of the item, else of its translations; undefined when neither has it. */
function sourceOf(model: DirectusModel, c: DirectusCollection, translations: TranslationsSource | undefined, field: string): FieldSource | undefined {
  const own = c.columns.get(field);
  if (own !== undefined) return { field, type: own, translated: false };
  const type = translations && model.collections.get(translations.collection)?.columns.get(field);
  return type ? { field, type, translated: true } : undefined;
}

/** Directus's rich-text HTML interface, or an unmarked column named like a body: HTML; anything else: text. */
function bodyFormat(model: DirectusModel, c: DirectusCollection, translations: TranslationsSource | undefined, body: FieldSource): 'html' | 'text' {
  const owner = body.translated ? model.collections.get(translations!.collection)! : c;
  const face = owner.fields.get(body.field)?.interface;
  if (face === undefined || face === null) return ['body', 'content', 'html'].includes(body.field) ? 'html' : 'text';
  return face === 'input-rich-text-html' ? 'html' : 'text';
}

/** The translations of a collection: its `translations` field's relation to the collection holding them. */
function translationsOf(model: DirectusModel, c: DirectusCollection): TranslationsSource | undefined {
  const alias = [...c.fields].find(([, f]) => f.special.includes('translations'))?.[0];
  if (!alias) return undefined;
  const toItem = model.relations.find((r) => r.oneCollection === c.name && r.oneField === alias);
  if (!toItem?.junctionField || !model.collections.has(toItem.manyCollection)) return undefined;
  return { collection: toItem.manyCollection, itemField: toItem.manyField, languageField: toItem.junctionField };
}

/** A collection's or field's name as a vocabulary name (`^[a-z][a-z0-9_]*$`). */
function vocabularyName(name: string): string {
  const plain = name.toLowerCase().replace(/[^a-z0-9_]+/g, '_').replace(/^[^a-z]+/, '');
  return plain || 'collection';
}

function uniqueName(name: string, used: ReadonlySet<string>, instead: string): string {
  if (!RESERVED_NAMES.has(name) && !used.has(name)) return name;
  for (let i = 0; ; i++) {
    const candidate = i ? `${instead}_${i}` : instead;
    if (!RESERVED_NAMES.has(candidate) && !used.has(candidate)) return candidate;
  }
}

/** The many-to-one and many-to-many fields between served collections, as predicates. */
function planPredicates(model: DirectusModel, request: RecipeRequest, collections: readonly PlannedCollection[], names: Set<string>): PlannedPredicate[] {
  const served = new Set(collections.map((c) => c.name));
  const found: Omit<PlannedPredicate, 'number' | 'id' | 'name'>[] = [];
  for (const c of collections) {
    const fields = model.collections.get(c.name)!.fields;
    for (const r of model.relations) {
      if (r.manyCollection === c.name && r.oneCollection && served.has(r.oneCollection) && !isTranslationsLink(model, r) && model.collections.get(c.name)!.columns.has(r.manyField)) {
        found.push({ subject: c.name, field: r.manyField, object: r.oneCollection, junction: undefined });
      }
      if (r.oneCollection === c.name && r.oneField && r.junctionField && !fields.get(r.oneField)?.special.includes('translations')) {
        const other = model.relations.find((o) => o.manyCollection === r.manyCollection && o.manyField === r.junctionField);
        if (other?.oneCollection && served.has(other.oneCollection)) {
          found.push({ subject: c.name, field: r.oneField, object: other.oneCollection, junction: { collection: r.manyCollection, subjectField: r.manyField, objectField: r.junctionField } });
        }
      }
    }
  }
  for (const key of request.predicates.keys()) {
    if (!found.some((p) => `${p.subject}.${p.field}` === key)) {
      throw new RecipeRequestError(`--predicate ${key}=…: ${key} is not a many-to-one or many-to-many field between served collections`);
    }
  }
  const numbers = assignNumbers(found.map((p) => `${p.subject}.${p.field}`), model.previous.predicates, 1);
  return found.map((p) => {
    const key = `${p.subject}.${p.field}`;
    const asked = request.predicates.get(key);
    if (asked && (names.has(asked) || RESERVED_NAMES.has(asked))) throw new RecipeRequestError(`--predicate ${key}=${asked}: the name "${asked}" is taken`);
    const name = asked ?? uniqueName(vocabularyName(p.field), names, `has_${vocabularyName(p.field)}`);
    names.add(name);
    const number = numbers.get(key)!;
    return Object.freeze({ ...p, number, id: predicateId(number), name });
  });
}

/** A relation from a translations collection to its item or language: no edge. */
const isTranslationsLink = (model: DirectusModel, r: DirectusRelation): boolean =>
  model.relations.some((o) => o.manyCollection === r.manyCollection && o.oneCollection && o.oneField &&
    model.collections.get(o.oneCollection)?.fields.get(o.oneField)?.special.includes('translations'));

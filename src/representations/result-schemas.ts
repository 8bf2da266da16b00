import { z } from 'zod';

/**
 * The documented result shapes of the facade. Handlers build their results in these shapes (the
 * compiler checks the types; the test suite checks every response against the schema, see
 * `runRoute`); OpenAPI is generated from them.
 */

const timestamp = z.string().describe('UTC ISO-8601 timestamp');

const languageFields = {
  requested_language: z.string().describe('The language asked for (or the site default).'),
  language: z.string().describe('The language actually used.'),
  available_languages: z.array(z.string()),
  is_fallback: z.boolean().describe('True when the requested language was not available.'),
};

const categoryRef = z.object({
  id: z.number().int(),
  name: z.string().nullable(),
  title: z.string(),
});

const creditRef = z.object({
  id: z.number().int(),
  title: z.string(),
});

export const resourceSummary = z.object({
  id: z.number().int(),
  uri: z.string().describe('Entity identifier.'),
  title: z.string(),
  summary: z.string(),
  category: categoryRef.nullable().describe('The category, or null when the category itself is not public.'),
  page_url: z.string().describe('Human page (citation URL) in the language used.'),
  json_url: z.string(),
  markdown_url: z.string(),
  publication_start: timestamp,
  modified: timestamp,
  ...languageFields,
});

export function pagedResult<T extends z.ZodType>(item: T) {
  return z.object({
    items: z.array(item),
    page: z.number().int(),
    pagelen: z.number().int(),
    next: z.boolean(),
    next_url: z.string().nullable().describe('Absolute URL of the next page, or null.'),
    limit_reached: z.boolean().describe('True when exploration stopped at the 10,000-candidate bound.'),
  });
}

export const medium = z.object({
  mime: z.string(),
  width: z.number().int().nullable(),
  height: z.number().int().nullable(),
  size: z.number().int().nullable(),
  download_url: z.string(),
});

export const resourceRead = z.object({
  id: z.number().int(),
  uri: z.string(),
  title: z.string(),
  summary: z.string(),
  content: z.string().describe('Markdown of the resource.'),
  content_complete: z.boolean().describe('False when blocks were omitted or the content was cut at the size bound.'),
  category: categoryRef.nullable().describe('The category, or null when the category itself is not public.'),
  page_url: z.string(),
  page_urls: z.record(z.string(), z.string()).describe('Human page URL per available language.'),
  publication_start: timestamp,
  publication_end: timestamp.nullable(),
  created: timestamp,
  modified: timestamp,
  license: z.string().optional(),
  attribution: z.string().optional(),
  medium: medium.optional(),
  authors: z.array(creditRef).describe('Its authors: the public resources its edges of the author predicates lead to, in editorial order.'),
  tags: z.array(creditRef).describe('Its tags: the public resources its edges of the tag predicates lead to, in editorial order.'),
  word_count: z.number().int().describe('Words of the Markdown content (link and image targets not counted).'),
  links: z.object({
    json: z.string(),
    markdown: z.string(),
    related_out: z.string(),
    related_in: z.string(),
  }),
  ...languageFields,
});

const vocabularyItem = z.object({
  id: z.number().int(),
  name: z.string().nullable(),
  uri: z.string(),
  title: z.string(),
  description: z.string(),
  ...languageFields,
});

export const categoryItem = vocabularyItem.extend({
  parent: categoryRef.nullable().describe('The parent category when it is visible.'),
});

export const predicateItem = vocabularyItem.extend({
  constraints: z.array(z.object({ side: z.enum(['subject', 'object']), category: categoryRef })),
  constraints_truncated: z.boolean(),
});

export const relatedItem = z.object({
  predicate: z.object({ id: z.number().int(), name: z.string().nullable() }),
  resource: resourceSummary,
});

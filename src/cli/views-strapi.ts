import { parseArgs } from 'node:util';
import { ITEM_SPAN } from '../recipes/directus/id-scheme.js';
import { RecipeRequestError } from '../recipes/directus/recipe-request.js';
import { StrapiModelError, readStrapiModel } from '../recipes/strapi/strapi-model.js';
import { planStrapi, type StrapiPlan, type StrapiRequest } from '../recipes/strapi/strapi-plan.js';
import { strapiSql, tryStrapiRecipe } from '../recipes/strapi/strapi-recipe-sql.js';
import { EXIT_OK, EXIT_USAGE, type CliIo } from './command.js';
import { generateRecipe, recipeHeader, schemaOption, siteUrlOption } from './views-options.js';

const HELP = `Usage: express-agent-discovery views strapi [--database-url <url>] [options]

Reads a Strapi 5 database (the content types Strapi stores at each start, its
locales, the users-permissions Public role) and, with --model, the project's
model files, and writes the SQL of the views road for it: tables in a schema
(default agent) beside Strapi's, kept by triggers on Strapi's tables inside
Strapi's own transactions (their live views and functions in <schema>_live;
the role applying it must own Strapi's tables). Each content type
the Public role may find (and findOne) is served from its published rows only,
each locale a language version, never a private, password or email field;
relations between served types are edges; blocks and Markdown rich text and the
dynamic zones' components are the body. The SQL goes to standard output (or
--out); what it serves and what it leaves out, to standard error. Apply it with
  psql -v ON_ERROR_STOP=1 -d "$DATABASE_URL" -f <file>
See docs/guides/strapi.md.

Options:
  --database-url <url>     Strapi's PostgreSQL (default: DATABASE_URL)
  --model <dir>            the Strapi project (its src/api/*/content-types and
                           src/components): needed to serve dynamic zones
  --site-url <url>         the public site the pages are on; page URLs are
                           absolute (e.g. https://news.example)
  --upload-base <url>      where /uploads/… files are served (default: the
                           site URL)
  --type <type>[:<pattern>]
                           serve this content type (api::article.article or
                           article; repeat; default: every type the Public
                           role may read), its pages at <pattern>: {locale},
                           {slug}, {documentId} (default /{locale}/<plural>/{slug},
                           /<plural>/{slug} without i18n, /<singular> for a
                           single type)
  --schema <name>          the recipe's schema (default agent)
  --strapi-schema <name>   the schema of Strapi's tables (default public)
  --text-search <config>   text search configuration of the vectors
                           (default simple)
  --out <file>             write the SQL to <file>
  -h, --help               show this help

Exit status: 0 written, 1 failed (database), 2 wrong usage, not a Strapi 5
database, or a model the recipe cannot serve (every problem is listed).
`;

/** `express-agent-discovery views strapi`: the views-road recipe generated from a Strapi 5 database. */
export async function runStrapiViews(args: readonly string[], io: CliIo): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...args],
      options: {
        'database-url': { type: 'string' },
        model: { type: 'string' },
        'site-url': { type: 'string' },
        'upload-base': { type: 'string' },
        type: { type: 'string', multiple: true },
        schema: { type: 'string' },
        'strapi-schema': { type: 'string' },
        'text-search': { type: 'string' },
        out: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    return usage(io, (error as Error).message);
  }
  if (values.help) {
    io.out(HELP);
    return EXIT_OK;
  }
  const url = values['database-url'] ?? io.env.DATABASE_URL;
  if (!url) return usage(io, 'no database: set DATABASE_URL, or pass --database-url <url>');
  let request: StrapiRequest;
  try {
    const recipeSchema = schemaOption('schema', values.schema, 'agent');
    const strapiSchema = schemaOption('strapi-schema', values['strapi-schema'], 'public');
    if (recipeSchema === strapiSchema) throw new RecipeRequestError(`--schema: the recipe needs a schema of its own, not Strapi's (${strapiSchema})`);
    request = Object.freeze({
      types: (values.type ?? []).map(parseType),
      siteUrl: siteUrlOption('site-url', values['site-url']),
      uploadBase: siteUrlOption('upload-base', values['upload-base']),
      recipeSchema,
      strapiSchema,
      textSearch: values['text-search'] ?? 'simple',
      modelDir: values.model,
    });
  } catch (error) {
    if (error instanceof RecipeRequestError) return usage(io, error.message);
    throw error;
  }
  return generateRecipe(url, io, values.out, [StrapiModelError], async (client) => {
    const { rows } = await client.query<{ config: boolean }>(`SELECT EXISTS (SELECT 1 FROM pg_ts_config WHERE cfgname = $1) AS config`, [request.textSearch]);
    if (!rows[0]?.config) throw new RecipeRequestError(`--text-search: the text search configuration "${request.textSearch}" does not exist in this database`);
    const model = await readStrapiModel(client, request.strapiSchema, request.modelDir);
    const plan = planStrapi(model, request);
    try {
      await tryStrapiRecipe(client, plan);
    } catch (error) {
      throw new RecipeRequestError(`the recipe for this model would not apply (nothing written): ${(error as Error).message}`);
    }
    return { sql: strapiSql(plan, recipeHeader(['strapi', ...args], 'Applying it again replaces the triggers and functions and merges every row again (ids and unchanged rows kept).')), report: (out) => reportText(plan, out) };
  });
}

function usage(io: CliIo, message: string): number {
  io.err(`express-agent-discovery views strapi: ${message}\n\n${HELP}`);
  return EXIT_USAGE;
}

/** `--type article:/news/{slug}` as a request. */
function parseType(value: string): { name: string; pattern: string | undefined } {
  const match = /^((?:api::)?[A-Za-z0-9_.-]+)(?::(\/\S*))?$/.exec(value);
  if (!match) throw new RecipeRequestError(`--type ${JSON.stringify(value)}: expected <type>[:<pattern>], e.g. article:/{locale}/articles/{slug} (the pattern a path starting with /)`);
  return { name: match[1]!, pattern: match[2] };
}

/** What the recipe serves, for people (standard error); the `served:` line lists the types, for scripts. */
function reportText(plan: StrapiPlan, out: string | undefined): string {
  const { request } = plan;
  const lines = [`The views road for ${plan.types.length} Strapi content type${plan.types.length === 1 ? '' : 's'} (schema ${request.recipeSchema} beside ${request.strapiSchema}):`];
  for (const t of plan.types) {
    const first = t.number * ITEM_SPAN;
    lines.push(
      `  ${t.uid}: category ${t.categoryName}, ids ${first ? `${first} + ` : ''}n(document id), pages at ${request.siteUrl ?? ''}${t.pattern}`,
      `    published versions only${t.type.localized ? `, each locale a language (${plan.model.locales.join(', ')})` : ''}; served: ${t.served.join(', ')}`,
      `    rule: the Public role's ${t.actions.map((a) => a.split('.').pop()).join(' and ')} (now: ${t.actions.every((a) => plan.model.publicActions.has(a)) ? 'granted' : 'NOT granted, nothing served until it is'})`,
    );
  }
  for (const r of plan.relations) lines.push(`  predicate ${r.name}: ${r.subject.uid}.${r.field} → ${r.object.uid} (through ${r.link.table})`);
  if (plan.notes.length) lines.push('', 'Not served:', ...plan.notes.map((n) => `  ${n}`));
  lines.push(
    '',
    `served: ${plan.types.map((t) => t.uid).join(' ')}`,
    `Apply it: psql -v ON_ERROR_STOP=1 -d "$DATABASE_URL" -f ${out ?? '<the SQL file>'}`,
    `Then mount the plugin with search_path=${request.recipeSchema},${request.strapiSchema}, textSearch: { configuration: '${request.textSearch}' }, the language '${plan.language}' first in languages.`,
    '',
  );
  return lines.join('\n');
}

import { parseArgs } from 'node:util';
import pg from 'pg';
import { DirectusModelError, readDirectusModel } from '../recipes/directus/directus-model.js';
import { ITEM_SPAN } from '../recipes/directus/id-scheme.js';
import { planRecipe, type RecipePlan } from '../recipes/directus/recipe-plan.js';
import {
  parseCollection,
  parseMapping,
  parsePredicate,
  RecipeRequestError,
  type FieldRole,
  type RecipeRequest,
} from '../recipes/directus/recipe-request.js';
import { recipeSql, tryRecipe } from '../recipes/directus/recipe-sql.js';
import { reportRules, type RuleReport } from '../recipes/directus/rule-report.js';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, type CliCommand, type CliIo } from './command.js';
import { generateRecipe, recipeHeader, schemaOption, siteUrlOption } from './views-options.js';
import { runStrapiViews } from './views-strapi.js';

const HELP = `Usage: express-agent-discovery views directus [--database-url <url>] [options]
       express-agent-discovery views strapi [--database-url <url>] [options] (see views strapi --help)

Reads a Directus database's model (directus_collections, directus_fields,
directus_relations) and writes the SQL of the views road for it: a schema
(default agent) beside Directus's tables with the content contract's relations,
kept exact by triggers, each item's visibility computed from the Public
policy's read rule (and computed again when the rule changes in Directus). The
SQL goes to standard output (or --out); what it serves, and any rule it cannot
follow (that collection is then hidden), to standard error. Apply it with
  psql -v ON_ERROR_STOP=1 -d "$DATABASE_URL" -f <file>
See docs/guides/directus.md.

Options:
  --database-url <url>       Directus's PostgreSQL (default: DATABASE_URL)
  --site-url <url>           the public site the pages are on (e.g.
                             https://news.example): page URLs are absolute;
                             without it they are paths (/articles/<slug>)
  --collection <name>[:<pattern>]
                             serve this collection (repeat; default: every
                             collection shown in Directus's app), its pages at
                             <pattern>: {field} is an item's field, {lang} its
                             language (default /<name>/{slug})
  --map <collection>.<role>=<field>|none
                             the field of a role: title, slug, summary, body,
                             date (sorts, and starts the window when the rule
                             names none), created, modified; date=none serves
                             an undated collection
  --predicate <collection>.<field>=<name>
                             the name of a relation field's predicate
                             (default: the field's name)
  --schema <name>            the recipe's schema (default agent)
  --directus-schema <name>   the schema of Directus's tables (default public)
  --time-zone <zone>         the Directus server's time zone, in which its
                             Datetime fields are written (default UTC)
  --text-search <config>     text search configuration of the vectors, to pass
                             as the plugin's textSearch.configuration
                             (default simple)
  --language <code>          the language of untranslated content (default:
                             Directus's default language, lower case)
  --out <file>               write the SQL to <file>
  -h, --help                 show this help

Exit status: 0 written, 1 failed (database), 2 wrong usage or a collection
the generator needs a mapping for.
`;


/** `express-agent-discovery views directus`: the views-road recipe generated from Directus's model. */
export const viewsCommand: CliCommand = {
  summary: 'write the SQL of the views road from a CMS\'s own model (views directus|strapi --database-url …)',
  async run(args, io) {
    if (args[0] === 'strapi') return runStrapiViews(args.slice(1), io);
    let parsed;
    try {
      parsed = parseArgs({
        args: [...args],
        options: {
          'database-url': { type: 'string' },
          'site-url': { type: 'string' },
          collection: { type: 'string', multiple: true },
          map: { type: 'string', multiple: true },
          predicate: { type: 'string', multiple: true },
          schema: { type: 'string' },
          'directus-schema': { type: 'string' },
          'time-zone': { type: 'string' },
          'text-search': { type: 'string' },
          language: { type: 'string' },
          out: { type: 'string' },
          help: { type: 'boolean', short: 'h' },
        },
        strict: true,
        allowPositionals: true,
      });
    } catch (error) {
      return usage(io, (error as Error).message);
    }
    const { values, positionals } = parsed;
    if (values.help) {
      io.out(HELP);
      return EXIT_OK;
    }
    if (positionals[0] !== 'directus' || positionals.length > 1) {
      return usage(io, positionals.length ? `unknown CMS "${positionals.join(' ')}" (the generator knows: directus, strapi; name it first: views strapi …)` : 'name the CMS: views directus');
    }
    const url = values['database-url'] ?? io.env.DATABASE_URL;
    if (!url) return usage(io, 'no database: set DATABASE_URL, or pass --database-url <url>');
    let request: RecipeRequest;
    try {
      request = requestOf(values);
    } catch (error) {
      if (error instanceof RecipeRequestError) return usage(io, error.message);
      throw error;
    }
    return generateRecipe(url, io, values.out, [DirectusModelError], async (client) => {
      await checkSettings(client, request);
      const model = await readDirectusModel(client, request.directusSchema, request.recipeSchema);
      const plan = planRecipe(model, request);
      const rules = await reportRules(client, plan);
      try {
        await tryRecipe(client, plan);
      } catch (error) {
        throw new RecipeRequestError(`the recipe for this model would not apply (nothing written): ${(error as Error).message}; see docs/guides/directus.md for what the generator serves`);
      }
      return { sql: recipeSql(plan, recipeHeader(args, 'Applying it again recomputes every row.')), report: (out) => reportText(plan, rules, out) };
    });
  },
};

function usage(io: CliIo, message: string): number {
  io.err(`express-agent-discovery views: ${message}\n\n${HELP}`);
  return EXIT_USAGE;
}

type Values = Record<string, string | string[] | boolean | undefined>;

/** The command line as a request; throws a {@link RecipeRequestError} naming the option. */
function requestOf(values: Values): RecipeRequest {
  const list = (name: string) => (values[name] as string[] | undefined) ?? [];
  const mappings = new Map<string, Map<FieldRole, string | null>>();
  for (const value of list('map')) {
    const [collection, role, field] = parseMapping(value);
    const own = mappings.get(collection) ?? new Map<FieldRole, string | null>();
    own.set(role, field);
    mappings.set(collection, own);
  }
  const schema = (name: string, fallback: string) => schemaOption(name, values[name] as string | undefined, fallback);
  const siteUrl = siteUrlOption('site-url', values['site-url'] as string | undefined);
  const recipeSchema = schema('schema', 'agent');
  const directusSchema = schema('directus-schema', 'public');
  if (recipeSchema === directusSchema) throw new RecipeRequestError(`--schema: the recipe needs a schema of its own, not Directus's (${directusSchema})`);
  return Object.freeze({
    collections: list('collection').map(parseCollection),
    mappings,
    predicates: new Map(list('predicate').map(parsePredicate)),
    siteUrl,
    recipeSchema,
    directusSchema,
    timeZone: (values['time-zone'] as string | undefined) ?? 'UTC',
    textSearch: (values['text-search'] as string | undefined) ?? 'simple',
    language: values.language as string | undefined,
  });
}

/** The time zone and the text search configuration must exist in this PostgreSQL. */
async function checkSettings(client: pg.Client, request: RecipeRequest): Promise<void> {
  const { rows } = await client.query<{ zone: boolean; config: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM pg_timezone_names WHERE name = $1) OR EXISTS (SELECT 1 FROM pg_timezone_abbrevs WHERE abbrev = $1) AS zone,
       EXISTS (SELECT 1 FROM pg_ts_config WHERE cfgname = $2) AS config`,
    [request.timeZone, request.textSearch],
  );
  if (!rows[0]?.zone) throw new RecipeRequestError(`--time-zone: "${request.timeZone}" is not a time zone PostgreSQL knows (e.g. UTC, Europe/Berlin)`);
  if (!rows[0]?.config) throw new RecipeRequestError(`--text-search: the text search configuration "${request.textSearch}" does not exist in this database`);
}

/** What the recipe serves and how each rule stands, for people (standard error). */
function reportText(plan: RecipePlan, rules: readonly RuleReport[], out: string | undefined): string {
  const { request } = plan;
  const lines = [`The views road for ${plan.collections.length} Directus collection${plan.collections.length === 1 ? '' : 's'} (schema ${request.recipeSchema} beside ${request.directusSchema}):`];
  for (const c of plan.collections) {
    const first = c.number * ITEM_SPAN;
    const rule = rules.find((r) => r.collection === c.name);
    const ruleText = rule?.problem ? `HIDDEN, the rule cannot be followed: ${rule.problem}`
      : !rule || rule.filter === undefined ? 'the Public policy may not read it: nothing served'
      : JSON.stringify(rule.filter) === '{}' ? 'every item (the Public policy reads it without a filter)'
      : `followed: ${JSON.stringify(rule.filter)}`;
    lines.push(`  ${c.name}: category ${c.categoryName}, ids ${first ? `${first} + ` : ''}${c.primaryKey}, pages at ${request.siteUrl ?? ''}${c.pattern}`,
      `    rule: ${ruleText}`);
  }
  for (const p of plan.predicates) lines.push(`  predicate ${p.name}: ${p.subject}.${p.field} → ${p.object}${p.junction ? ` (through ${p.junction.collection})` : ''}`);
  const hidden = rules.filter((r) => r.problem);
  if (hidden.length) lines.push('', `${hidden.length} rule${hidden.length === 1 ? '' : 's'} cannot be followed: ${hidden.map((r) => r.collection).join(', ')} stay hidden (fail closed) until the rule is in the subset; see docs/guides/directus.md.`);
  lines.push(
    '',
    `Apply it: psql -v ON_ERROR_STOP=1 -d "$DATABASE_URL" -f ${out ?? '<the SQL file>'}`,
    `Then mount the plugin with search_path=${request.recipeSchema},${request.directusSchema}, textSearch: { configuration: '${request.textSearch}' }, the language '${plan.language}' first in languages.`,
    '',
  );
  return lines.join('\n');
}

import { createHash } from 'node:crypto';
import { PATHS } from '../paths.js';
import type { OperationSpec } from '../http/operations.js';
import type { RouteTool } from '../http/route.js';
import { absoluteUrl } from '../http/urls.js';
import { plainLine } from '../content/display-text.js';
import { markdownLine } from './llms-txt.js';

/** The one skill the plugin publishes: its name (the Agent Skills grammar: lowercase letters, digits, single hyphens), its directory in `PATHS.agentSkill`. */
export const SKILL_NAME = 'site-content';
/** The `$schema` of an Agent Skills Discovery v0.2 index. */
export const SKILLS_INDEX_SCHEMA = 'https://schemas.agentskills.io/discovery/0.2.0/schema.json';
/** The longest `description` the Agent Skills specification allows. */
const MAX_DESCRIPTION = 1024;

/** What the skill says of the site. */
export interface SkillSite {
  title: string;
  description?: string;
  base: string;
  /** The MCP endpoint's URL and tools, with `mcp` on. */
  mcp?: { endpoint: string; tools: readonly RouteTool[] };
  /** `<page URL>.md` answers the page's Markdown (`markdownTwins`). */
  markdownTwins?: boolean;
  /** NLWeb's `/ask` (the `nlweb` option), its absolute URL. */
  nlweb?: string;
}

/** The skill's description (front matter and index alike): what it does and when to use it, at most 1,024 characters. */
export function skillDescription(site: Pick<SkillSite, 'title' | 'description'>): string {
  const title = plainLine(site.title);
  const about = site.description ? ` (${plainLine(site.description)})` : '';
  const text =
    `Search, read and cite the public content of ${title}${about} through its anonymous, read-only HTTP API ` +
    `(no key, no sign-in). Use when a question concerns ${title} or what it publishes.`;
  return text.length <= MAX_DESCRIPTION ? text : `${text.slice(0, MAX_DESCRIPTION - 1)}…`;
}

/** A YAML double-quoted scalar (JSON's string syntax is valid YAML). */
const yamlString = (value: string) => JSON.stringify(value);

/** `GET <absolute URL of the path template>`, for the prose. */
const endpoint = (base: string, op: OperationSpec) => `\`GET ${base}${op.path}\``;

/** The query parameters an operation takes, named as it validates them. */
const parameterList = (op: OperationSpec) =>
  Object.keys(op.query.shape)
    .map((name) => `\`${name}\``)
    .join(', ');

/** The how-to sections, each drawn from the operation it explains (left out when the site has no such operation). */
function howTo(base: string, byId: ReadonlyMap<string, OperationSpec>, markdownTwins: boolean): string[] {
  const lines: string[] = [];
  const search = byId.get('searchResources');
  if (search) {
    lines.push(
      '## Find',
      '',
      `${endpoint(base, search)}: full-text search (\`text\`, websearch syntax) or browse; parameters ${parameterList(search)}. ` +
        'Each item has `id`, `title`, `summary`, `page_url` and the URLs of its JSON and Markdown reads. ' +
        'Pages carry no totals: follow `next_url` until `next` is false; with `limit_reached`, narrow the query.',
      '',
      ...(search.example ? [`Example: ${base}${search.path}?${search.example}`, ''] : []),
    );
  }
  const read = byId.get('readResource');
  const markdown = byId.get('readResourceMarkdown');
  if (read || markdown) {
    lines.push('## Read', '');
    if (markdown) lines.push(`${endpoint(base, markdown)}: one resource as Markdown, with a front matter naming its title, \`url\` (the page to cite), language and licence.`);
    if (read) lines.push(`${endpoint(base, read)}: the same as JSON (\`content\` in Markdown, \`page_url\`, \`page_urls\` per language, \`license\`, \`attribution\`).`);
    lines.push('`{id}` is an id or a unique name; add `language` for another of the site\'s languages.');
    if (markdownTwins) lines.push('A page of the site is also Markdown at its URL plus `.md` (`/index.md` for the home page).');
    lines.push('');
  }
  const related = byId.get('listRelated');
  if (related) lines.push('## Follow relationships', '', `${endpoint(base, related)}: one hop (\`direction\` out or in, optionally one \`predicate\`), paged like search.`, '');
  const schema = byId.get('listVocabulary');
  if (schema) lines.push('## Vocabulary', '', `${endpoint(base, schema)}: the public categories (use a name as \`cat\` in search) or, with \`kind=predicate\`, the relationships.`, '');
  const changes = byId.get('listChanges');
  if (changes) {
    lines.push(
      '## What changed',
      '',
      `${endpoint(base, changes)}: the public resources changed since \`since\` (a date-time, or the cursor of an earlier answer) and the ids that stopped being public; keep \`resume_url\` for the next visit.`,
      '',
    );
  }
  return lines;
}

/**
 * The generated `SKILL.md`: a YAML front matter (`name`, `description`), then how an agent finds, reads,
 * follows and cites this site's content through the read API (the operations of the route table,
 * each with its absolute URL and parameters), its MCP tools when MCP is on, and every operation.
 *
 * ```markdown
 * ---
 * name: "site-content"
 * description: "Search, read and cite the public content of Example …"
 * ---
 *
 * # Example: reading its content
 * ```
 */
export function buildSkillMd(site: SkillSite, operations: readonly OperationSpec[]): string {
  const byId = new Map(operations.map((op) => [op.operationId, op]));
  const title = markdownLine(site.title);
  const lines = [
    '---',
    `name: ${yamlString(SKILL_NAME)}`,
    `description: ${yamlString(skillDescription(site))}`,
    '---',
    '',
    `# ${title}: reading its content`,
    '',
    ...(site.description ? [markdownLine(site.description), ''] : []),
    'Every request below is an anonymous, read-only GET (HEAD works too): no key, no sign-in. Only public, published content is ever answered; anything else is the same 404.',
    '',
    ...howTo(site.base, byId, site.markdownTwins === true),
    '## Cite',
    '',
    "Cite the human page: an item's or a read's `page_url` (the `url` of a Markdown read's front matter), in the language you used, with the `license` and `attribution` when given. The API URLs are for reading, not for citing.",
    '',
  ];
  if (site.nlweb) {
    lines.push(
      '## Ask (NLWeb)',
      '',
      `\`POST ${site.nlweb}\` with an NLWeb AskRequest (\`{"query":{"text":"…"}}\`, protocol 0.5; or \`GET ${site.nlweb}?query=…\`): the search's first results as schema.org items with their \`url\`, in list mode (no language model).`,
      '',
    );
  }
  if (site.mcp) {
    lines.push('## MCP', '', `The same reads as MCP tools at ${site.mcp.endpoint} (Streamable HTTP, no key):`, '');
    for (const tool of site.mcp.tools) lines.push(`- \`${tool.name}\`: ${markdownLine(tool.description)}`);
    lines.push('');
  }
  lines.push('## Every operation', '');
  for (const op of operations) lines.push(`- \`GET ${op.path}\`: ${markdownLine(op.summary)}`);
  lines.push(
    '',
    `The full description: ${absoluteUrl(site.base, PATHS.openapi.url())} (OpenAPI 3.1); for people: ${absoluteUrl(site.base, PATHS.apiHelp.url())}; an overview: ${absoluteUrl(site.base, PATHS.llmsTxt.url())}.`,
    '',
  );
  return lines.join('\n');
}

/** The `sha256:{hex}` digest of an artifact's bytes, as the index names it. */
export function skillDigest(bytes: Uint8Array): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

/**
 * The Agent Skills Discovery v0.2 index listing the skill: `$schema`, and one `skill-md` entry whose
 * `digest` is the SHA-256 of the `SKILL.md` bytes served.
 */
export function buildSkillsIndex(site: Pick<SkillSite, 'title' | 'description' | 'base'>, skillMdBytes: Uint8Array) {
  return {
    $schema: SKILLS_INDEX_SCHEMA,
    skills: [
      {
        name: SKILL_NAME,
        type: 'skill-md',
        description: skillDescription(site),
        url: absoluteUrl(site.base, PATHS.agentSkill.url()),
        digest: skillDigest(skillMdBytes),
      },
    ],
  };
}

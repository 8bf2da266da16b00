import { CONTRACT_INDEXES, CONTRACT_RELATIONS, CONTRACT_RELATION_NAMES, TYPE_FAMILIES, type ContractColumn } from './content-contract.js';

const cell = (text: string) => text.replace(/\|/g, '\\|');

/**
 * The content contract as a Markdown reference page (`docs/reference/content-contract.md`), from
 * the same definition the types and the start-up check come from; a test keeps the page equal to it.
 */
export function contractReference(): string {
  const out: string[] = [
    '# Reference: the content contract',
    '',
    '<!-- Generated from src/db/content-contract.ts by `npm run docs`; a test fails when this page differs. -->',
    '',
    'Every relation and column the plugin reads. The plugin\'s migrations create them as tables; a host',
    'may instead provide its own tables or views with these names and columns on the connection\'s',
    '`search_path` (see the guide [Serving your CMS\'s content](../guides/cms-content.md)). At start-up',
    'one catalog query checks every relation and column below; all that is missing or of an',
    'incompatible type is reported in one error naming the relation, the column, the expected and the',
    'found type. Nullability cannot be checked on views: a column marked "no" must never be null.',
    '',
  ];
  for (const name of CONTRACT_RELATION_NAMES) {
    const relation = CONTRACT_RELATIONS[name];
    out.push(`## \`${name}\``, '', `${relation.role[0]!.toUpperCase()}${relation.role.slice(1)}.`, '', '| column | type | null | drives |', '|---|---|---|---|');
    for (const [column, spec] of Object.entries(relation.columns as Record<string, ContractColumn>)) {
      const type = `${TYPE_FAMILIES[spec.family].describe}${spec.optional ? ', optional' : ''}`;
      out.push(`| \`${column}\` | ${cell(type)} | ${spec.nullable ? 'yes' : 'no'} | ${cell(spec.drives)} |`);
    }
    out.push('');
  }
  out.push(
    '## Indexes the hot statements need',
    '',
    'The plugin\'s migrations create all of them. Over views, put them on the tables (or expressions)',
    'under the view; `npx express-agent-discovery doctor` runs EXPLAIN on the hot statements and names',
    'the missing one.',
    '',
    '| relation | key | serves |',
    '|---|---|---|',
  );
  for (const index of CONTRACT_INDEXES) {
    const key = `${index.unique ? 'unique ' : ''}${index.using ? `${index.using} ` : ''}(${index.columns})`;
    out.push(`| \`${index.relation}\` | \`${key}\` | ${cell(index.serves)} |`);
  }
  out.push(
    '',
    '## The rules over these columns',
    '',
    '- **Anonymous-visible**: `is_published` and `visibility = \'public\'` and `publication_start <= now()` and',
    '  (`publication_end` is null or later than now).',
    '- **Indexable**: the site is not noindex, not `seo_noindex`, and neither the category nor an ancestor',
    '  category is `is_noindex`.',
    '- **Vocabulary**: resources whose category is the category named `meta` or below it (the categories',
    '  `category` and `predicate`) are never listed by search or llms.txt.',
    '- **Ids** are compared as `bigint` parameters: `integer` id columns work, and an id beyond their range',
    '  is a 404.',
    '- **Text search** matches `fts @@ websearch_to_tsquery(<textSearch.configuration>, text)`: build `fts`',
    '  with the same configuration.',
    '',
  );
  return out.join('\n');
}

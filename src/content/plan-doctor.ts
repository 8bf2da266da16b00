import { CompiledQuery, sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { CONTRACT_INDEXES, CONTRACT_RELATION_NAMES, type ContractIndex, type ContractRelationName } from '../db/content-contract.js';
import { describeNode, scannedRelation, topPlanNode, walkPlan, type PlanNode } from './plan-walk.js';
import { compiledSearch, searchPosition } from './search.js';
import { compiledTextFirst } from './text-search.js';
import { compiledRelatedPage } from './edges.js';
import { readVisibleResourceContent } from './resource.js';

/**
 * The plan doctor: `EXPLAIN` of the plugin's hot statements against the live schema, flagging what
 * makes them cost the whole table instead of one page.
 *
 * - the statements are built by the plugin's own query builders (the ones the routes run), with
 *   parameters taken from the data: the first search page sorted by id and by `newest`, a deep
 *   `newest` page (the keyset position of page 50), a `text=` search for a word no resource holds
 *   (the text-first statement such a word runs, see `textSearchPage`),
 *   a resource read by id, and the related page of the resource with the most outgoing edges;
 * - a finding is a `Seq Scan` of a relation of more than `threshold` rows (`pg_class.reltuples`, of
 *   the real table: under a view the plan names the table), or a `Sort` of more than `threshold`
 *   input rows (a whole-table sort under the page's LIMIT);
 * - each finding names the fix: the statement's entry of `CONTRACT_INDEXES` for that relation, as a
 *   `CREATE INDEX` on the contract relation, and for a view the table under it;
 * - plans are those of the statement with its values (the custom plan of an unnamed statement, as
 *   Kysely sends them), on PostgreSQL and PGlite alike; the site noindex setting is taken as off.
 *
 * ```ts
 * const report = await diagnosePlans(db, { threshold: 10_000 })
 * report.ok // false
 * report.statements[1].findings[0].fixes[0].create // 'CREATE INDEX ON public.rsc (publication_start DESC, id)'
 * ```
 */

/** Relations (and sorts) above this many rows are flagged when the doctor is given no threshold. */
export const DEFAULT_PLAN_THRESHOLD = 10_000;

/** With `analyze`, each statement is cancelled after this long when the doctor is given no bound. */
export const DEFAULT_ANALYZE_TIMEOUT_MS = 5_000;

export interface PlanDoctorOptions {
  /** Flag sequential scans of relations, and sorts of inputs, of more rows than this. Default 10,000. */
  readonly threshold?: number | undefined;
  /**
   * `EXPLAIN (ANALYZE, BUFFERS)`: runs each statement (reads only, in a read-only transaction) and
   * reports actual rows and time. Default false: the plans only, nothing is run.
   */
  readonly analyze?: boolean | undefined;
  /**
   * With `analyze`, the `statement_timeout` of each statement in milliseconds (a statement cancelled
   * is reported with its error). Default 5,000. PGlite does not enforce it.
   */
  readonly timeoutMs?: number | undefined;
}

/** An index that fixes a finding: a `CONTRACT_INDEXES` entry and the statement creating it. */
export interface IndexFix extends ContractIndex {
  /** E.g. `CREATE INDEX ON public.rsc (publication_start DESC, id)`. */
  readonly create: string;
  /** Set when the contract relation is a view: where the index belongs instead. */
  readonly note?: string;
}

/** A plan node that makes a statement cost the whole relation. */
export interface PlanFinding {
  /** The hot statement's name. */
  readonly statement: string;
  readonly kind: 'seq-scan' | 'sort';
  /** The node, as `EXPLAIN` would start its line. */
  readonly node: string;
  /** The real relation scanned (or the largest one under the sort), schema-qualified. */
  readonly relation: string;
  /** Rows of the relation (`seq-scan`) or of the sort's input (`sort`), as the planner estimates them. */
  readonly estimatedRows: number;
  /** The indexes that fix it; empty when the relation is none the contract indexes. */
  readonly fixes: readonly IndexFix[];
}

/** One line of a plan's summary: a node and its depth. */
export interface PlanLine {
  readonly depth: number;
  readonly text: string;
}

/** One hot statement, its plan and what is wrong with it. */
export interface StatementDiagnosis {
  readonly name: string;
  /** What the statement serves, for people. */
  readonly title: string;
  readonly sql: string;
  readonly parameters: readonly unknown[];
  /** The top nodes of the plan (its first levels). */
  readonly plan: readonly PlanLine[];
  readonly findings: readonly PlanFinding[];
  /** The fixes of its findings, once each. */
  readonly fixes: readonly IndexFix[];
  /** Set when EXPLAIN itself failed (the statement then counts as a finding for `ok`). */
  readonly error?: string;
}

export interface PlanReport {
  /** No finding and no error. */
  readonly ok: boolean;
  readonly threshold: number;
  readonly analyzed: boolean;
  readonly statements: readonly StatementDiagnosis[];
  /** Every fix of every finding, once each (by its `create` statement), in the order first named. */
  readonly fixes: readonly IndexFix[];
}

/** Runs the plan doctor over `db` (the plugin's handle, or any handle on the content schema). */
export async function diagnosePlans(db: Kysely<Database>, options: PlanDoctorOptions = {}): Promise<PlanReport> {
  const threshold = options.threshold ?? DEFAULT_PLAN_THRESHOLD;
  const timeoutMs = options.timeoutMs ?? DEFAULT_ANALYZE_TIMEOUT_MS;
  if (!(threshold >= 0)) throw new RangeError(`express-agent-discovery: plan doctor option "threshold" must be a number of rows, got ${threshold}`);
  if (!(timeoutMs > 0)) throw new RangeError(`express-agent-discovery: plan doctor option "timeoutMs" must be positive, got ${timeoutMs}`);
  const analyze = options.analyze === true;
  const [statements, backing] = await Promise.all([hotStatements(db), contractBacking(db)]);
  const explained: { statement: HotStatement; top?: PlanNode; error?: string }[] = [];
  for (const statement of statements) {
    try {
      explained.push({ statement, top: await explain(db, statement.compiled, analyze, timeoutMs) });
    } catch (error) {
      explained.push({ statement, error: (error as Error).message });
    }
  }
  const sizes = await relationSizes(db, explained.flatMap((e) => (e.top ? [...scannedRelations(e.top)] : [])));
  const diagnoses = explained.map(({ statement, top, error }): StatementDiagnosis => {
    const base = { name: statement.name, title: statement.title, sql: statement.compiled.sql, parameters: statement.compiled.parameters };
    if (!top) return { ...base, plan: [], findings: [], fixes: [], error: error! };
    const findings = findingsOf(statement, top, { sizes, backing, threshold });
    return { ...base, plan: planSummary(top), findings, fixes: distinctFixes(findings) };
  });
  return {
    ok: diagnoses.every((d) => !d.error && !d.findings.length),
    threshold,
    analyzed: analyze,
    statements: diagnoses,
    fixes: distinctFixes(diagnoses.flatMap((d) => d.findings)),
  };
}

/**
 * A finding in one line, for people:
 *
 * ```text
 * Seq Scan on public.rsc r (rows=5001): reads all 20005 rows
 * ```
 */
export function findingText(f: PlanFinding): string {
  const rows = Math.round(f.estimatedRows);
  return `${f.node}: ${f.kind === 'sort' ? `sorts ${rows} rows` : `reads all ${rows} rows`}`;
}

/** The report's verdict in one sentence, for people. */
export function summaryText(report: PlanReport): string {
  const all = report.statements.length;
  const flagged = report.statements.filter((s) => s.findings.length > 0).length;
  const failed = report.statements.filter((s) => s.error !== undefined).length;
  if (!flagged && !failed) return `All ${all} statements read through indexes.`;
  return [
    ...(flagged ? [`${flagged} of ${all} statements scan or sort more than ${report.threshold} rows.`] : []),
    ...(failed ? [`${failed} of ${all} statements could not be explained.`] : []),
  ].join(' ');
}

/** The fixes of `findings`, once each (by their `create` statement), in the order first named. */
function distinctFixes(findings: readonly PlanFinding[]): IndexFix[] {
  return [...new Map(findings.flatMap((f) => f.fixes.map((fix) => [fix.create, fix] as const))).values()];
}

/** The page length of the statements explained: the facade's default (20) plus the row that tells whether more follow. */
const PAGE_FETCH = 21;
/** The deep page explained: its keyset position is the one page 50 continues from. */
const DEEP_PAGE = 50;
/** A word no resource holds (a rare word at its rarest): the search must find it through the GIN index. */
const PLAN_DOCTOR_WORD = 'xqzplandoctorprobe';
/** How many levels of each plan the report keeps. */
const SUMMARY_DEPTH = 4;

/** A hot statement, and the contract indexes it needs, by the alias the statement gives each relation. */
interface HotStatement {
  readonly name: string;
  readonly title: string;
  readonly compiled: CompiledQuery;
  readonly needs: readonly { alias: string; index: ContractIndex }[];
  /** The index whose order the statement's `ORDER BY … LIMIT` reads (a sort's fix). */
  readonly order: ContractIndex;
}

const index = (relation: ContractRelationName, columns: string, using?: 'gin'): ContractIndex => {
  const found = CONTRACT_INDEXES.find((i) => i.relation === relation && i.columns === columns && i.using === using);
  if (!found) throw new Error(`express-agent-discovery: no contract index ${relation} (${columns})`);
  return found;
};

const RSC_ID = index('rsc', 'id');
const NEWEST = index('rsc', 'publication_start DESC, id');
const FTS = index('rsc', 'fts', 'gin');
const OUT_EDGES = index('edge', 'subject_id, predicate_id, object_id');
/** Every list's category join (`cat`), the vocabulary (`meta`) tree by name (`n`) and the category tree (`c`). */
const LIST_NEEDS = [
  { alias: 'cat', index: RSC_ID },
  { alias: 'n', index: index('rsc', 'name') },
  { alias: 'c', index: index('category', 'id') },
  { alias: 'c', index: index('category', 'parent_id') },
];

/**
 * The hot statements, with parameters taken from the data: the keyset position page 50 of
 * `sort=newest` continues from (found by reading the 980 rows before it), and the resource with the
 * most outgoing edges (one aggregate over `edge`), whose page the planner estimates largest.
 */
async function hotStatements(db: Kysely<Database>): Promise<HotStatement[]> {
  const search = { siteNoindex: false, offset: 0, limit: PAGE_FETCH } as const;
  const [deep] = (await db.executeQuery(compiledSearch(db, { ...search, sort: 'newest', offset: (DEEP_PAGE - 1) * (PAGE_FETCH - 1), limit: 1 }))).rows;
  // On a smaller site, any position: positions are run-time values, so every one is planned alike.
  const after = deep ? searchPosition('newest', deep) : [Math.floor(Date.now() / 1000), 0, 0];
  const hub =
    (await db.selectFrom('edge as e').select('e.subject_id as id').groupBy('e.subject_id').orderBy(sql`count(*)`, 'desc').limit(1).executeTakeFirst()) ??
    (await db.selectFrom('rsc as r').select('r.id').limit(1).executeTakeFirst());
  const resourceId = Number(hub?.id ?? 1);
  return [
    {
      name: 'search-first-page',
      title: 'the first search page (sort=id, the default)',
      compiled: compiledSearch(db, { ...search, sort: 'id' }),
      needs: [{ alias: 'r', index: RSC_ID }, ...LIST_NEEDS],
      order: RSC_ID,
    },
    {
      name: 'search-newest',
      title: 'the first search page, sort=newest',
      compiled: compiledSearch(db, { ...search, sort: 'newest' }),
      needs: [{ alias: 'r', index: NEWEST }, ...LIST_NEEDS],
      order: NEWEST,
    },
    {
      name: 'search-deep-page',
      title: `a deep search page, sort=newest (page ${DEEP_PAGE}, by keyset position)`,
      compiled: compiledSearch(db, { ...search, sort: 'newest', after }),
      needs: [{ alias: 'r', index: NEWEST }, ...LIST_NEEDS],
      order: NEWEST,
    },
    {
      name: 'search-rare-word',
      title: `a rare word in text search, read text first (text=${PLAN_DOCTOR_WORD})`,
      compiled: compiledTextFirst(db, { ...search, sort: 'id', text: PLAN_DOCTOR_WORD }),
      needs: [{ alias: 'r', index: FTS }, ...LIST_NEEDS],
      order: FTS,
    },
    {
      name: 'resource-read',
      title: `a resource read by id (${resourceId})`,
      compiled: await capturedStatement(db, (recorder) => readVisibleResourceContent(recorder, resourceId)),
      needs: [
        { alias: 'r', index: RSC_ID },
        { alias: 'cat', index: RSC_ID },
        { alias: 'n', index: RSC_ID },
        { alias: 'm', index: index('medium', 'rsc_id') },
        { alias: 'c', index: index('category', 'id') },
      ],
      order: RSC_ID,
    },
    {
      name: 'related-page',
      title: `the related page of the resource with the most edges (${resourceId}, direction=out)`,
      compiled: compiledRelatedPage(db, { ...search, resourceId, direction: 'out' }),
      needs: [{ alias: 'e', index: OUT_EDGES }, ...['r', 'x', 'cat', 'p'].map((alias) => ({ alias, index: RSC_ID }))],
      order: OUT_EDGES,
    },
  ];
}

/**
 * The statement a content read runs, captured rather than run: `read` gets a handle whose
 * `executeQuery` records the compiled statement and answers no rows (everything else is `db`'s).
 */
async function capturedStatement(db: Kysely<Database>, read: (recorder: Kysely<Database>) => Promise<unknown>): Promise<CompiledQuery> {
  let captured: CompiledQuery | undefined;
  const recorder = new Proxy(db, {
    get(target, key) {
      if (key === 'executeQuery') {
        return async (query: CompiledQuery) => {
          captured ??= query;
          return { rows: [] };
        };
      }
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  await read(recorder);
  if (!captured) throw new Error('express-agent-discovery: the read ran no statement');
  return captured;
}

/**
 * `EXPLAIN (VERBOSE, FORMAT JSON)` of a compiled statement with its parameters (the planner sees
 * their values, as for the unnamed statements Kysely sends); with `analyze`, `ANALYZE, BUFFERS` in a
 * read-only transaction whose `statement_timeout` bounds it.
 */
async function explain(db: Kysely<Database>, compiled: CompiledQuery, analyze: boolean, timeoutMs: number): Promise<PlanNode> {
  const query = CompiledQuery.raw(`EXPLAIN (${analyze ? 'ANALYZE, BUFFERS, ' : ''}VERBOSE, FORMAT JSON) ${compiled.sql}`, [...compiled.parameters]);
  if (!analyze) return topPlanNode(Object.values((await db.executeQuery(query)).rows[0] ?? {})[0]);
  return db.transaction().execute(async (trx) => {
    await sql`SET TRANSACTION READ ONLY`.execute(trx);
    await sql`SELECT set_config('statement_timeout', ${String(Math.ceil(timeoutMs))}, true)`.execute(trx);
    return topPlanNode(Object.values((await trx.executeQuery(query)).rows[0] ?? {})[0]);
  });
}

/** Every relation a plan scans, schema-qualified. */
function* scannedRelations(top: PlanNode): Generator<string> {
  for (const { node } of walkPlan(top)) {
    const relation = scannedRelation(node);
    if (relation) yield relation;
  }
}

/**
 * Rows per relation (`schema.name`), as the planner estimates them: `pg_class.reltuples`, and for a
 * relation never analyzed (-1) the estimate of a plain scan of it.
 */
async function relationSizes(db: Kysely<Database>, relations: readonly string[]): Promise<Map<string, number>> {
  const byIdentifier = new Map([...new Set(relations)].map((relation) => [qualifiedIdentifier(relation), relation]));
  if (!byIdentifier.size) return new Map();
  const { rows } = await sql<{ name: string; reltuples: number }>`
    SELECT q.name, c.reltuples::float8 AS reltuples
    FROM unnest(ARRAY[${sql.join([...byIdentifier.keys()])}]::text[]) AS q(name) JOIN pg_class c ON c.oid = to_regclass(q.name)`.execute(db);
  const sizes = new Map<string, number>();
  for (const row of rows) {
    const tuples = Number(row.reltuples);
    sizes.set(byIdentifier.get(row.name)!, tuples >= 0 ? tuples : await plannedRows(db, row.name));
  }
  return sizes;
}

async function plannedRows(db: Kysely<Database>, identifier: string): Promise<number> {
  const { rows } = await db.executeQuery(CompiledQuery.raw(`EXPLAIN (FORMAT JSON) SELECT 1 FROM ONLY ${identifier}`));
  return topPlanNode(Object.values(rows[0] ?? {})[0])['Plan Rows'];
}

/** `schema.name` as a quoted SQL identifier (`"schema"."name"`). */
function qualifiedIdentifier(relation: string): string {
  const dot = relation.indexOf('.');
  const quote = (part: string) => `"${part.replace(/"/g, '""')}"`;
  return dot < 0 ? quote(relation) : `${quote(relation.slice(0, dot))}.${quote(relation.slice(dot + 1))}`;
}

/** A contract relation as the connection's `search_path` finds it, and what it is. */
interface ContractRelationFacts {
  readonly name: ContractRelationName;
  /** `schema.name` of the contract relation itself. */
  readonly qualified: string;
  /** Set for a view: the tables under it (views of views followed down). */
  readonly tables?: readonly string[];
}

/** For every real table a plan may name, the contract relations it backs (itself, or the views over it). */
type ContractBacking = ReadonlyMap<string, readonly ContractRelationFacts[]>;

/**
 * Which real tables back each contract relation: the relation itself when it is a table, the tables
 * its view reads when it is a view (followed through views of views, from the view's rewrite rule).
 *
 * ```sql
 * WITH RECURSIVE under(contract, oid) AS (
 *   SELECT q.name, to_regclass(q.name)::oid FROM unnest(ARRAY['rsc', …]) AS q(name) WHERE to_regclass(q.name) IS NOT NULL
 *   UNION SELECT u.contract, d.refobjid FROM under u JOIN pg_class v ON v.oid = u.oid AND v.relkind = 'v'
 *   JOIN pg_rewrite w ON w.ev_class = u.oid
 *   JOIN pg_depend d ON d.classid = 'pg_rewrite'::regclass AND d.objid = w.oid AND d.refclassid = 'pg_class'::regclass AND d.refobjid <> u.oid)
 * SELECT u.contract, n.nspname || '.' || c.relname AS relation, c.relkind, u.oid = to_regclass(u.contract)::oid AS own FROM under u …
 * ```
 */
async function contractBacking(db: Kysely<Database>): Promise<ContractBacking> {
  const { rows } = await sql<{ contract: ContractRelationName; relation: string; relkind: string; own: boolean }>`
    WITH RECURSIVE under(contract, oid) AS (
      SELECT q.name, to_regclass(q.name)::oid FROM unnest(ARRAY[${sql.join([...CONTRACT_RELATION_NAMES])}]::text[]) AS q(name)
      WHERE to_regclass(q.name) IS NOT NULL
      UNION
      SELECT u.contract, d.refobjid FROM under u
      JOIN pg_class v ON v.oid = u.oid AND v.relkind = 'v'
      JOIN pg_rewrite w ON w.ev_class = u.oid
      JOIN pg_depend d ON d.classid = 'pg_rewrite'::regclass AND d.objid = w.oid
        AND d.refclassid = 'pg_class'::regclass AND d.refobjid <> u.oid
    )
    SELECT u.contract, n.nspname || '.' || c.relname AS relation, c.relkind::text AS relkind, u.oid = to_regclass(u.contract)::oid AS own
    FROM under u JOIN pg_class c ON c.oid = u.oid JOIN pg_namespace n ON n.oid = c.relnamespace`.execute(db);
  const facts = new Map<ContractRelationName, ContractRelationFacts>();
  for (const own of rows.filter((r) => r.own)) {
    const tables = rows.filter((r) => r.contract === own.contract && !r.own && r.relkind !== 'v').map((r) => r.relation);
    facts.set(own.contract, { name: own.contract, qualified: own.relation, ...(own.relkind === 'v' ? { tables } : {}) });
  }
  const backing = new Map<string, ContractRelationFacts[]>();
  for (const fact of facts.values()) {
    for (const table of fact.tables ?? [fact.qualified]) backing.set(table, [...(backing.get(table) ?? []), fact]);
  }
  return backing;
}

/** The first levels of a plan, one line per node. */
function planSummary(top: PlanNode): PlanLine[] {
  return [...walkPlan(top)].filter((v) => v.depth < SUMMARY_DEPTH).map((v) => ({ depth: v.depth, text: describeNode(v.node) }));
}

interface FindingContext {
  readonly sizes: ReadonlyMap<string, number>;
  readonly backing: ContractBacking;
  readonly threshold: number;
}

/** The seq scans of large relations and the large sorts of one statement's plan, each with its fixes. */
function findingsOf(statement: HotStatement, top: PlanNode, context: FindingContext): PlanFinding[] {
  const findings: PlanFinding[] = [];
  for (const { node } of walkPlan(top)) {
    const type = node['Node Type'];
    if (type === 'Seq Scan') {
      const relation = scannedRelation(node)!;
      const rows = context.sizes.get(relation) ?? node['Plan Rows'];
      if (rows <= context.threshold) continue;
      const fixes = fixesFor(statement, context.backing.get(relation) ?? [], node.Alias);
      findings.push({ statement: statement.name, kind: 'seq-scan', node: describeNode(node), relation, estimatedRows: rows, fixes });
    } else if (type === 'Sort') {
      const input = node.Plans?.[0]?.['Plan Rows'] ?? node['Plan Rows'];
      if (input <= context.threshold) continue;
      const relation = largestRelation(node, context.sizes);
      const backs = relation === undefined ? [] : (context.backing.get(relation) ?? []);
      const ordered = backs.filter((b) => b.name === statement.order.relation);
      const fixes = ordered.length ? ordered.map((b) => indexFix(statement.order, b)) : fixesFor(statement, backs, undefined);
      findings.push({ statement: statement.name, kind: 'sort', node: describeNode(node), relation: relation ?? '(none)', estimatedRows: input, fixes });
    }
  }
  return findings;
}

/** The relation with the most rows scanned below `node`. */
function largestRelation(node: PlanNode, sizes: ReadonlyMap<string, number>): string | undefined {
  let largest: string | undefined;
  for (const relation of scannedRelations(node)) {
    if (largest === undefined || (sizes.get(relation) ?? 0) > (sizes.get(largest) ?? 0)) largest = relation;
  }
  return largest;
}

/**
 * The statement's indexes for a scan of a table backing `contracts`: those of the scan's alias when
 * the plan keeps the statement's alias (a plain table), else all the statement needs on those relations.
 */
function fixesFor(statement: HotStatement, contracts: readonly ContractRelationFacts[], alias: string | undefined): IndexFix[] {
  const on = statement.needs.filter((n) => contracts.some((c) => c.name === n.index.relation));
  // PostgreSQL renames a repeated alias (`r` of a subquery becomes `r_1`).
  const plain = alias?.replace(/_\d+$/, '');
  const byAlias = on.filter((n) => n.alias === plain);
  const chosen = [...new Set((byAlias.length ? byAlias : on).map((n) => n.index))];
  return chosen.flatMap((i) => contracts.filter((c) => c.name === i.relation).map((c) => indexFix(i, c)));
}

/**
 * A contract index as the `CREATE INDEX` statement on the contract relation, with a note for a view.
 *
 * ```sql
 * CREATE INDEX ON public.rsc (publication_start DESC, id)
 * CREATE INDEX ON public.rsc USING gin (fts)
 * ```
 */
function indexFix(i: ContractIndex, relation: ContractRelationFacts): IndexFix {
  const create = `CREATE ${i.unique ? 'UNIQUE ' : ''}INDEX ON ${relation.qualified}${i.using ? ` USING ${i.using}` : ''} (${i.columns})`;
  if (!relation.tables) return { ...i, create };
  const columns = i.columns.replace(/ (ASC|DESC)\b/g, '');
  const under = relation.tables.length ? relation.tables.join(', ') : 'the tables under it';
  return {
    ...i,
    create,
    note: `${relation.qualified} is a view: create this index on ${under}, over the column or expression the view exposes as ${columns}${i.using ? ` (a ${i.using} index)` : ''}`,
  };
}

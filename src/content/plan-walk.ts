/**
 * Reading PostgreSQL's `EXPLAIN (FORMAT JSON)` output: the node fields the plan doctor uses, a walk
 * over the tree, and one line per node as `EXPLAIN`'s text format would start it.
 */

/** One node of a JSON plan (the fields read here; PostgreSQL writes many more). */
export interface PlanNode {
  readonly 'Node Type': string;
  readonly 'Relation Name'?: string;
  /** Written with `VERBOSE`. */
  readonly Schema?: string;
  readonly Alias?: string;
  readonly 'Index Name'?: string;
  readonly 'Scan Direction'?: string;
  readonly 'Parent Relationship'?: string;
  readonly 'Subplan Name'?: string;
  readonly 'Total Cost': number;
  /** The planner's estimate of the rows the node returns (per loop). */
  readonly 'Plan Rows': number;
  /** With `ANALYZE`. */
  readonly 'Actual Rows'?: number;
  readonly 'Actual Loops'?: number;
  readonly 'Actual Total Time'?: number;
  readonly Plans?: readonly PlanNode[];
}

/** A node met on the walk, with its depth (0 for the top) and its parent. */
export interface VisitedNode {
  readonly node: PlanNode;
  readonly depth: number;
  readonly parent: PlanNode | undefined;
}

/** The top node of `EXPLAIN (FORMAT JSON)`'s one row (pg parses the json; PGlite too, a string is parsed here). */
export function topPlanNode(explainOutput: unknown): PlanNode {
  const parsed = typeof explainOutput === 'string' ? (JSON.parse(explainOutput) as unknown) : explainOutput;
  const plan = (Array.isArray(parsed) ? parsed[0] : parsed) as { Plan?: PlanNode } | undefined;
  if (!plan?.Plan) throw new Error('express-agent-discovery: EXPLAIN returned no plan');
  return plan.Plan;
}

/** Every node of the tree, depth first, parents before their children (init plans and subplans included). */
export function* walkPlan(node: PlanNode, depth = 0, parent?: PlanNode): Generator<VisitedNode> {
  yield { node, depth, parent };
  for (const child of node.Plans ?? []) yield* walkPlan(child, depth + 1, node);
}

/** The relation a scan node reads, schema-qualified when the plan names the schema (`VERBOSE`). */
export function scannedRelation(node: PlanNode): string | undefined {
  const name = node['Relation Name'];
  if (name === undefined) return undefined;
  return node.Schema === undefined ? name : `${node.Schema}.${name}`;
}

/**
 * One node as `EXPLAIN` would start its line:
 *
 * ```text
 * Index Scan Backward using rsc_publication_start_desc_idx on public.rsc r (rows=21)
 * ```
 */
export function describeNode(node: PlanNode): string {
  const backward = node['Scan Direction'] === 'Backward' ? ' Backward' : '';
  const index = node['Index Name'] ? ` using ${node['Index Name']}` : '';
  const relation = scannedRelation(node);
  const alias = node.Alias && node.Alias !== node['Relation Name'] ? ` ${node.Alias}` : '';
  const on = relation ? ` on ${relation}${alias}` : node['Subplan Name'] ? ` (${node['Subplan Name']})` : '';
  const actual = node['Actual Rows'] === undefined ? '' : ` actual rows=${node['Actual Rows']} loops=${node['Actual Loops'] ?? 1}`;
  return `${node['Node Type']}${backward}${index}${on} (rows=${node['Plan Rows']}${actual})`;
}

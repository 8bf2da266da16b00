import {
  AliasNode,
  ColumnNode,
  IdentifierNode,
  OperationNodeTransformer,
  RawNode,
  ReferenceNode,
  SelectionNode,
  type Kysely,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
  sql,
  type RawBuilder,
} from 'kysely';

/**
 * How one mounted plugin reads its content relations, fixed at start-up from the options and the
 * contract check: the text search configuration, and which optional contract columns the host's
 * relations leave out. Kept with the plugin's own Kysely handle (each plugin gets its own).
 */
export interface ContentBinding {
  /** The text search configuration `text=` is parsed with. */
  readonly textConfiguration: string;
  /** The optional contract columns the host's relations leave out (read as null). */
  readonly absentColumns?: readonly string[];
}

/** The text search configuration `text=` is matched with when the options name none. */
export const DEFAULT_TEXT_SEARCH_CONFIGURATION = 'simple';

const bindings = new WeakMap<object, ContentBinding>();

/** The binding of a plugin's handle (the defaults for a handle never bound, as in unit tests). */
export function contentBinding(db: Kysely<any>): ContentBinding {
  return bindings.get(db) ?? DEFAULT_BINDING;
}

const DEFAULT_BINDING: ContentBinding = Object.freeze({ textConfiguration: DEFAULT_TEXT_SEARCH_CONFIGURATION });

/**
 * A handle of the plugin's own over `db` (same connections), bound to `binding`; selections of the
 * optional columns in `absentColumns` read null instead (`NULL::jsonb AS page_url`).
 */
export function bindContent<D extends Kysely<any>>(db: D, binding: ContentBinding, absentColumns: readonly string[] = []): D {
  const own = (absentColumns.length ? db.withPlugin(new AbsentColumnsPlugin(absentColumns)) : db.withTables<{}>()) as D;
  bindings.set(own, Object.freeze({ ...binding, absentColumns: Object.freeze([...absentColumns]) }));
  return own;
}

/**
 * An optional contract column of `alias` for a raw statement, which the selection plugin does not
 * see: the column, or `NULL::jsonb` when the host's relations leave it out.
 */
export function optionalColumn(db: Kysely<any>, alias: string, column: string): RawBuilder<unknown> {
  return contentBinding(db).absentColumns?.includes(column) ? sql`NULL::jsonb` : sql.ref(`${alias}.${column}`);
}

/** Selects null for contract columns a host's relations leave out. */
class AbsentColumnsPlugin implements KyselyPlugin {
  readonly #transformer: AbsentColumnsTransformer;
  constructor(columns: readonly string[]) {
    this.#transformer = new AbsentColumnsTransformer(new Set(columns));
  }
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return this.#transformer.transformNode(args.node);
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}

class AbsentColumnsTransformer extends OperationNodeTransformer {
  constructor(private readonly absent: ReadonlySet<string>) {
    super();
  }
  protected override transformSelection(node: SelectionNode): SelectionNode {
    const selected = node.selection;
    if (ReferenceNode.is(selected) && ColumnNode.is(selected.column) && this.absent.has(selected.column.column.name)) {
      return SelectionNode.create(AliasNode.create(RawNode.createWithSql('NULL::jsonb'), IdentifierNode.create(selected.column.column.name)));
    }
    return super.transformSelection(node);
  }
}

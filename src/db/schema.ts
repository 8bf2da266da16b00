import type { Generated } from 'kysely';
import type {
  CATEGORY_COLUMNS,
  ContractTable,
  EDGE_COLUMNS,
  MEDIUM_COLUMNS,
  PREDICATE_CATEGORY_COLUMNS,
  RSC_COLUMNS,
} from './content-contract.js';

export type { Block, LocalizedText } from './content-contract.js';

/** The resource relation's row, from the content contract (`content-contract.ts`). */
export type RscTable = ContractTable<typeof RSC_COLUMNS>;
/** The category relation's row, from the content contract. */
export type CategoryTable = ContractTable<typeof CATEGORY_COLUMNS>;
/** The predicate constraint relation's row, from the content contract. */
export type PredicateCategoryTable = ContractTable<typeof PREDICATE_CATEGORY_COLUMNS>;
/** The edge relation's row, from the content contract. */
export type EdgeTable = ContractTable<typeof EDGE_COLUMNS>;
/** The medium relation's row, from the content contract. */
export type MediumTable = ContractTable<typeof MEDIUM_COLUMNS>;

/** The plugin's own settings row (migrations 0002 and 0005); null columns fall back to the factory options. */
export interface AgentSettingsTable {
  id: Generated<boolean>;
  description: string | null;
  noindex: boolean | null;
  sitemap_url: string | null;
  llms_notes: string | null;
  /** The Content Signals (null: not set). */
  content_signal_search: boolean | null;
  content_signal_ai_input: boolean | null;
  content_signal_ai_train: boolean | null;
  /** The robots.txt `Allow:`/`Disallow:` lines for `User-agent: *` (null: the default `Allow: /`). */
  crawler_rules: string | null;
  modified: Generated<Date>;
}

/** The content schema the plugin reads, as Kysely sees it, and the plugin's own tables. */
export interface Database {
  agent_discovery_settings: AgentSettingsTable;
  rsc: RscTable;
  category: CategoryTable;
  predicate_category: PredicateCategoryTable;
  edge: EdgeTable;
  medium: MediumTable;
}

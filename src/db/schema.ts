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
  /** The run-time settings set on the admin page, one member each (see `SETTINGS` in settings-schema.ts). */
  settings: Generated<unknown>;
  /** Set by a trigger on every write of the row (see migration 0006). */
  version: Generated<string>;
  modified: Generated<Date>;
}

/** Agent traffic counted per hour (migration 0007): see docs/guides/traffic.md. */
export interface AgentTrafficTable {
  hour: Date;
  agent: string;
  operator: string | null;
  purpose: string;
  verdict: string;
  method: string;
  reason: string;
  outcome: string;
  surface: string;
  tool: string;
  status_class: number;
  requests: string | number;
  robots_violations: string | number;
  last_seen: Date;
}

export interface AgentTrafficResourceTable {
  hour: Date;
  resource_id: string | number;
  purpose: string;
  requests: string | number;
}

export interface AgentTrafficReferralTable {
  hour: Date;
  assistant: string;
  landing: string;
  visits: string | number;
}

export interface AgentChargesTable {
  hour: Date;
  agent: string;
  requests: string | number;
  amount_micros: string | number;
}

export interface AgentPolicyLogTable {
  id: Generated<string>;
  changed_at: Generated<Date>;
  policy: unknown;
  summary: string;
}

/** The content schema the plugin reads, as Kysely sees it, and the plugin's own tables. */
export interface Database {
  agent_discovery_settings: AgentSettingsTable;
  agent_discovery_traffic: AgentTrafficTable;
  agent_discovery_traffic_resource: AgentTrafficResourceTable;
  agent_discovery_traffic_referral: AgentTrafficReferralTable;
  agent_discovery_charges: AgentChargesTable;
  agent_discovery_policy_log: AgentPolicyLogTable;
  rsc: RscTable;
  category: CategoryTable;
  predicate_category: PredicateCategoryTable;
  edge: EdgeTable;
  medium: MediumTable;
}

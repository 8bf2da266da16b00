import type { Database } from '../db/schema.js';

/** The push API's mapping table (migration 0003): a CMS's string id and the `rsc` id it stands for. */
export interface ExternalIdTable {
  external_id: string;
  rsc_id: number;
}

/** The content schema plus the mapping table: what the push API writes. */
export type PushDatabase = Database & { agent_discovery_external_id: ExternalIdTable };

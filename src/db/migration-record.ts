/** The plugin's own migration bookkeeping tables, so that it can share a host's database. */
export const MIGRATION_TABLE = 'agent_discovery_migration';
export const MIGRATION_LOCK_TABLE = 'agent_discovery_migration_lock';

import type { Migration } from 'kysely/migration';
import * as contentSchema from './0001_content_schema.js';
import * as agentSettings from './0002_agent_settings.js';
import * as externalIds from './0003_external_ids.js';

/** Every migration of the plugin, in order. A static record: no file-system scanning at start-up. */
export const migrations: Record<string, Migration> = {
  '0001_content_schema': contentSchema,
  '0002_agent_settings': agentSettings,
  '0003_external_ids': externalIds,
};

import type { Migration } from 'kysely/migration';
import * as contentSchema from './0001_content_schema.js';
import * as agentSettings from './0002_agent_settings.js';
import * as externalIds from './0003_external_ids.js';
import * as pageUrl from './0004_page_url.js';
import * as aiPreferences from './0005_ai_preferences.js';
import * as settingsDocument from './0006_settings_document.js';
import * as agentTraffic from './0007_agent_traffic.js';
import * as visibilityLog from './0008_visibility_log.js';
import * as rscVisibilityTrigger from './0009_rsc_visibility_trigger.js';
import * as contentVersion from './0010_content_version.js';
import * as contentVersionTriggers from './0011_content_version_triggers.js';
import * as putResourceFunction from './0012_put_resource_function.js';
import * as agentPolicy from './0013_agent_policy.js';
import * as publicationEndIndex from './0014_rsc_publication_end_idx.js';

/** Every migration of the plugin, in order. A static record: no file-system scanning at start-up. */
export const migrations: Record<string, Migration> = {
  '0001_content_schema': contentSchema,
  '0002_agent_settings': agentSettings,
  '0003_external_ids': externalIds,
  '0004_page_url': pageUrl,
  '0005_ai_preferences': aiPreferences,
  '0006_settings_document': settingsDocument,
  '0007_agent_traffic': agentTraffic,
  '0008_visibility_log': visibilityLog,
  '0009_rsc_visibility_trigger': rscVisibilityTrigger,
  '0010_content_version': contentVersion,
  '0011_content_version_triggers': contentVersionTriggers,
  '0012_put_resource_function': putResourceFunction,
  '0013_agent_policy': agentPolicy,
  '0014_rsc_publication_end_idx': publicationEndIndex,
};

/**
 * The migrations of the plugin's own tables (its settings), as opposed to the content schema: the
 * only ones applied over a host's own content relations (views or tables of the contract's shape),
 * each with the table it touches. The first migration naming a table creates it; later ones alter it.
 */
export const OWN_MIGRATIONS: Readonly<Record<string, string>> = Object.freeze({
  '0002_agent_settings': 'agent_discovery_settings',
  '0005_ai_preferences': 'agent_discovery_settings',
  '0006_settings_document': 'agent_discovery_settings',
  '0007_agent_traffic': 'agent_discovery_traffic',
  '0008_visibility_log': 'agent_discovery_visibility_log',
  '0010_content_version': 'agent_discovery_content_version',
  '0013_agent_policy': 'agent_discovery_traffic',
});

/** The names of {@link OWN_MIGRATIONS}. */
export const OWN_MIGRATION_NAMES: readonly string[] = Object.freeze(Object.keys(OWN_MIGRATIONS));

/** The migration that creates the content schema: its record marks a database whose content is the plugin's. */
export const CONTENT_SCHEMA_MIGRATION = '0001_content_schema';

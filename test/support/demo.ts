import express from 'express';
import type { Kysely } from 'kysely';
import { createAgentDiscovery, type AgentDiscovery, type AgentDiscoveryOptions } from '../../src/index.js';
import type { Database } from '../../src/db/schema.js';
import type { Backend, TestDatabase } from './backends.js';

/** A fresh database seeded with the demo content, and ids by name. */
export interface DemoDatabase extends TestDatabase {
  id(name: string): Promise<number>;
}

export async function openDemoDatabase(backend: Backend): Promise<DemoDatabase> {
  const content = await backend.openSeeded();
  return { ...content, id: (name) => idOf(content.db, name) };
}

export async function idOf(db: Kysely<Database>, name: string): Promise<number> {
  const row = await db.selectFrom('rsc').select('id').where('name', '=', name).executeTakeFirstOrThrow();
  return row.id;
}

/** The plugin options the test hosts share (the database is added per test). */
export const DEMO_PLUGIN_OPTIONS = {
  siteTitle: 'Example Site',
  description: 'Articles about harbours and open data.',
  languages: ['en', 'nl'],
} as const satisfies Partial<AgentDiscoveryOptions>;

/** A minimal host: the plugin's router on an Express 5 app. */
export async function pluginApp(
  db: Kysely<Database>,
  options: Partial<AgentDiscoveryOptions> = {},
): Promise<{ app: express.Express; agent: AgentDiscovery }> {
  const agent = await createAgentDiscovery({ ...DEMO_PLUGIN_OPTIONS, database: { kysely: db }, ...options });
  const app = express();
  app.use(agent.router);
  return { app, agent };
}

import express from 'express';
import type { Kysely } from 'kysely';
import type { Database } from '../../src/db/schema.js';
import { createAgentDiscovery, type AgentDiscoveryOptions } from '../../src/index.js';
import { bootstrapVocabulary, insertCategory, insertPredicate } from '../../example-site/content-store.js';

const DAY = 86_400_000;

/** The vocabulary the edge suites build their graphs on. */
export interface EdgeVocabulary {
  /** An ordinary public, indexable category. */
  topic: number;
  /** A noindex category: its resources are visible but never listed as related endpoints. */
  hiddenTopic: number;
  /** Public predicates, in id order. */
  about: number;
  cites: number;
  mentions: number;
  /** A predicate that is not public. */
  secret: number;
}

export async function edgeVocabulary(db: Kysely<Database>): Promise<EdgeVocabulary> {
  await bootstrapVocabulary(db);
  const topic = await insertCategory(db, { name: 'topic', title: { en: 'Topics', nl: 'Onderwerpen' } });
  const hiddenTopic = await insertCategory(db, { name: 'hidden_topic', isNoindex: true });
  const about = await insertPredicate(db, { name: 'about', title: { en: 'About', nl: 'Over' } });
  const cites = await insertPredicate(db, { name: 'cites' });
  const mentions = await insertPredicate(db, { name: 'mentions' });
  const secret = await insertPredicate(db, { name: 'secret_link', visibility: 'members' });
  return { topic, hiddenTopic, about, cites, mentions, secret };
}

/** How a node appears to an anonymous visitor. */
export type NodeKind = 'public' | 'private' | 'unpublished' | 'noindex' | 'hiddenCategory';

/** Inserts `kinds.length` resources in one statement; returns their ids in order. */
export async function insertNodes(db: Kysely<Database>, vocab: EdgeVocabulary, kinds: NodeKind[], label = 'node'): Promise<number[]> {
  if (!kinds.length) return [];
  const rows = await db
    .insertInto('rsc')
    .values(
      kinds.map((kind, i) => ({
        category_id: kind === 'hiddenCategory' ? vocab.hiddenTopic : vocab.topic,
        is_published: kind !== 'unpublished',
        visibility: kind === 'private' ? 'members' : 'public',
        seo_noindex: kind === 'noindex',
        publication_start: new Date(Date.now() - DAY),
        language: ['en', 'nl'],
        title: JSON.stringify({ en: `${label} ${i}`, nl: `${label} ${i} (nl)` }),
        summary: JSON.stringify({ en: `Summary of ${label} ${i}` }),
      })),
    )
    .returning('id')
    .execute();
  return rows.map((r) => Number(r.id));
}

export interface EdgeSpec {
  subject: number;
  predicate: number;
  object: number;
  seq?: number;
}

/** Inserts edges in one statement (seq defaults to the position in the list). */
export async function insertEdgeRows(db: Kysely<Database>, edges: EdgeSpec[]): Promise<void> {
  if (!edges.length) return;
  await db
    .insertInto('edge')
    .values(edges.map((e, i) => ({ subject_id: e.subject, predicate_id: e.predicate, object_id: e.object, seq: e.seq ?? i + 1 })))
    .execute();
}

/** The continuation secret of `relatedApp`, so tests can seal positions of their own. */
export const TEST_CONTINUATION_SECRET = 'edge-tests-continuation-secret-0123456789';

/** A host app with the plugin's router (related and compatibility routes included). */
export async function relatedApp(db: Kysely<Database>, options: Partial<AgentDiscoveryOptions> = {}) {
  const agent = await createAgentDiscovery({
    siteTitle: 'Edge Test Site',
    languages: ['en', 'nl'],
    baseUrl: 'https://example.test',
    database: { kysely: db },
    continuationSecret: TEST_CONTINUATION_SECRET,
    ...options,
  });
  const app = express();
  app.use(agent.router);
  return app;
}

/** The path and query of an absolute `next_url`, for supertest. */
export function localPath(url: string): string {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
}

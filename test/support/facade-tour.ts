import assert from 'node:assert/strict';
import type { Express } from 'express';
import type { Kysely } from 'kysely';
import request from 'supertest';
import type { Database } from '../../src/db/schema.js';
import { DEMO } from '../../example-site/seed.js';
import { idOf } from './demo.js';

/** The discovery documents, besides the operations the OpenAPI document lists. */
const DOCUMENTS = ['/llms.txt', '/.well-known/api-catalog', '/openapi.json', '/api-help', '/.well-known/ard.json', '/.well-known/ai-catalog.json'];

/**
 * Sealed continuations differ per sealing (a fresh nonce) and the ARD manifest's `updatedAt` is the
 * time of the request; everything else must be the same bytes.
 */
const normalize = (text: string) => text.replace(/(cursor|since)=[A-Za-z0-9_.~%-]+/g, '$1=…').replace(/"updatedAt":"[^"]*"/g, '"updatedAt":…');

/**
 * Every read of the facade and the discovery documents, on demo content: each GET operation of the
 * OpenAPI document (path parameters filled with a resource and a predicate that have edges), text
 * search, and the paged walks of search and a large related page. Returns the relative URLs.
 */
export async function facadeReads(reference: Express, db: Kysely<Database>): Promise<string[]> {
  const welcome = await idOf(db, DEMO.welcome);
  const edge = await db
    .selectFrom('edge')
    .innerJoin('rsc as p', 'p.id', 'edge.predicate_id')
    .select(['edge.subject_id', 'edge.object_id', 'p.name'])
    .where('edge.subject_id', '=', welcome)
    .where('p.name', 'is not', null)
    .orderBy('edge.id')
    .executeTakeFirstOrThrow();
  const openapi = await request(reference).get('/openapi.json');
  assert.equal(openapi.status, 200);
  const operations = Object.entries(openapi.body.paths as Record<string, Record<string, unknown>>)
    .filter(([, ops]) => 'get' in ops)
    .map(([path]) => path.replace('{id}', String(edge.subject_id)).replace('{predicate}', edge.name!));
  assert.ok(operations.length >= 8, `the OpenAPI document lists the facade operations (${operations.join(', ')})`);
  return [
    ...DOCUMENTS,
    ...operations,
    `/api/agent/search?text=harbour`,
    `/api/agent/resource/${DEMO.welcome}`,
    `/api/agent/related/${edge.object_id}`,
    `/agent/resource/${DEMO.popularKeyword}/markdown`,
  ];
}

/** Follows `next_url` from `first` to the end, each page on the next app of `apps` in turn; the pages' items in order. */
export async function walk(apps: readonly Express[], first: string): Promise<unknown[]> {
  const items: unknown[] = [];
  let url: string | null = first;
  for (let page = 0; url; page++) {
    const res = await request(apps[page % apps.length]!).get(url.replace(/^https?:\/\/[^/]+/, ''));
    assert.equal(res.status, 200, `${url}: ${res.text}`);
    items.push(...(res.body.result.items as unknown[]));
    url = res.body.result.next_url;
    assert.ok(page < 200, 'the walk ends');
  }
  return items;
}

/**
 * Asserts that `app` answers every read exactly as `reference` does (same status, type and body;
 * 200 for each), and that the paged walks of search and of a large related page give the same items.
 */
export async function assertSameReads(reference: Express, app: Express, urls: readonly string[]): Promise<void> {
  for (const url of urls) {
    const [want, got] = [await request(reference).get(url), await request(app).get(url)];
    assert.equal(want.status, 200, `${url} on the reference: ${want.text.slice(0, 300)}`);
    assert.equal(got.status, want.status, `${url}: ${got.text.slice(0, 300)}`);
    assert.equal(got.headers['content-type'], want.headers['content-type'], url);
    assert.equal(normalize(got.text), normalize(want.text), url);
  }
  for (const first of ['/api/agent/search?pagelen=50', `/api/agent/related/${DEMO.popularKeyword}?direction=in&pagelen=50`]) {
    const want = await walk([reference], first);
    assert.ok(want.length > 50, `${first} has several pages`);
    assert.deepEqual(await walk([app], first), want, first);
  }
}

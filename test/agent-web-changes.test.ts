import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Kysely } from 'kysely';
import type { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { anonymousVisible, sql, type Database } from '../src/index.js';
import { surfaceBackends } from './support/backends.js';
import { notMeta } from '../src/content/visibility.js';
import { startExampleSite, type RunningSite } from './support/site-harness.js';
import { callOk, connectMcp } from './support/mcp-client.js';
import { insertResource } from '../example-site/content-store.js';

// SPEC §20, issue 34 item 1: `GET /api/agent/changes` lists the public resources changed since a time or
// an earlier answer, and the ids that stopped being public (id and time only, whatever the reason),
// keyset-paged and sealed like search; in OpenAPI, API help, the API root and MCP.

interface Entry {
  type: 'changed' | 'removed';
  id: number;
  at: string;
  [field: string]: unknown;
}
interface ChangesPage {
  items: Entry[];
  next: boolean;
  next_url: string | null;
  resume_url: string;
}

/** Every entry from `url` to the end of the walk, and the last page's resume_url. */
async function walk(url: string): Promise<{ entries: Entry[]; resume: string }> {
  const entries: Entry[] = [];
  let next: string | null = url;
  let resume = url;
  while (next) {
    const res: Response = await fetch(next);
    const body = (await res.json()) as { status: string; result: ChangesPage };
    assert.equal(res.status, 200, `${next}: ${JSON.stringify(body)}`);
    entries.push(...body.result.items);
    resume = body.result.resume_url;
    next = body.result.next_url;
  }
  return { entries, resume };
}

/** The visible set a reader holds after applying `entries` in order to `start`. */
function apply(start: ReadonlySet<number>, entries: readonly Entry[]): Set<number> {
  const state = new Set(start);
  for (const e of entries) {
    if (e.type === 'changed') state.add(e.id);
    else state.delete(e.id);
  }
  return state;
}

/** The anonymous-visible ids that have a page (vocabulary has none: the sitemap's rule), as the database says. */
async function visibleIds(db: Kysely<Database>): Promise<Set<number>> {
  const rows = await db.selectFrom('rsc').select('id').where(anonymousVisible('rsc')).where(notMeta('rsc')).execute();
  return new Set(rows.map((r) => r.id));
}

const sorted = (s: Iterable<number>) => [...s].sort((a, b) => a - b);
const HOUR = 3_600_000;

for (const backend of surfaceBackends) {
  describe(`the change feed [${backend.name}]`, () => {
    let site: RunningSite;
    let db: Kysely<Database>;
    let feed: string;
    before(async () => {
      site = await startExampleSite(backend);
      db = site.content.db;
      feed = `${site.origin}/api/agent/changes`;
    });
    after(() => site?.close());

    it('from the beginning: every public resource once, oldest change first, nothing hidden; pages follow next_url', async () => {
      const { entries } = await walk(`${feed}?pagelen=37`);
      const changed = entries.filter((e) => e.type === 'changed').map((e) => e.id);
      assert.deepEqual(sorted(changed), sorted(await visibleIds(db)));
      assert.equal(new Set(changed).size, changed.length, 'each resource once');
      const times = entries.map((e) => e.at);
      assert.deepEqual(times, [...times].sort(), 'oldest first');
      const one = entries.find((e) => e.type === 'changed')!;
      assert.deepEqual(Object.keys(one), ['type', 'id', 'at', 'modified', 'page_url', 'language', 'json_url', 'markdown_url']);
      assert.equal((await fetch(one.json_url as string)).status, 200);
      assert.equal(new URL(one.page_url as string).pathname, `/${one.language}/page/${one.id}`);
      assert.doesNotMatch(JSON.stringify(entries), /SECRET|GEHEIM|salar/i);
    });

    it('after edits, unpublishing, hiding, deleting and an expiry: changes and tombstones that carry only id and time', async () => {
      const { resume } = await walk(feed);
      const before = await visibleIds(db);
      const ids: number[] = [];
      for (let i = 0; i < 6; i++) {
        ids.push(await insertResource(db, { category: 'article', title: { en: `Feed ${i} SECRET-${i}` }, modified: new Date(Date.now() - 2 * HOUR), publicationStart: new Date(Date.now() - 3 * HOUR) }));
      }
      const [edited, unpublished, hidden, deleted, expiring, stale] = ids as [number, number, number, number, number, number];
      await sql`UPDATE rsc SET title = '{"en":"Edited"}', modified = now() WHERE id = ${edited}`.execute(db);
      await sql`UPDATE rsc SET is_published = false WHERE id = ${unpublished}`.execute(db);
      await sql`UPDATE rsc SET visibility = 'members' WHERE id = ${hidden}`.execute(db);
      await sql`DELETE FROM rsc WHERE id = ${deleted}`.execute(db);
      await sql`UPDATE rsc SET summary = '{"en":"A stale edit"}' WHERE id = ${stale}`.execute(db);
      await sql`UPDATE rsc SET publication_end = now() + interval '1 second' WHERE id = ${expiring}`.execute(db);
      const secret = await insertResource(db, { category: 'article', title: { en: 'SECRET never public' }, visibility: 'members' });
      await sql`DELETE FROM rsc WHERE id = ${secret}`.execute(db);
      await new Promise((resolve) => setTimeout(resolve, 1500));

      const { entries } = await walk(resume);
      const last = new Map(entries.map((e) => [e.id, e]));
      assert.equal(last.get(edited)?.type, 'changed');
      assert.equal(last.get(stale)?.type, 'changed', 'an edit without a newer modified is listed too');
      for (const id of [unpublished, hidden, deleted, expiring]) {
        const tombstone = last.get(id)!;
        assert.equal(tombstone?.type, 'removed', `tombstone of ${id}`);
        assert.deepEqual(Object.keys(tombstone), ['type', 'id', 'at'], 'nothing but id and time');
      }
      assert.ok(!entries.some((e) => e.id === secret), 'a resource never public has no tombstone');
      assert.doesNotMatch(JSON.stringify(entries), /SECRET/);
      assert.deepEqual(sorted(apply(before, entries)), sorted(await visibleIds(db)), 'a reader applying the entries holds what is public');
    });

    it('a hidden resource shown again without a newer modified is listed after its tombstone', async () => {
      const id = await insertResource(db, { category: 'article', title: { en: 'Comes back' }, modified: new Date(Date.now() - HOUR), publicationStart: new Date(Date.now() - 2 * HOUR) });
      const { resume } = await walk(feed);
      await sql`UPDATE rsc SET is_published = false WHERE id = ${id}`.execute(db);
      const hiddenNow = await walk(resume);
      assert.equal(hiddenNow.entries.filter((e) => e.id === id).at(-1)?.type, 'removed');
      await sql`UPDATE rsc SET is_published = true WHERE id = ${id}`.execute(db);
      const { entries } = await walk(resume);
      assert.equal(entries.filter((e) => e.id === id).at(-1)?.type, 'changed');
    });

    it('through the push API: a resource put with an old modified is listed, a removal is a tombstone', async () => {
      const { resume } = await walk(feed);
      const { id } = await site.site.agent.content.put({ id: 'feed-push-1', category: 'article', title: 'Pushed late', modified: new Date(Date.now() - 24 * HOUR) });
      let { entries } = await walk(resume);
      assert.equal(entries.filter((e) => e.id === id).at(-1)?.type, 'changed');
      await site.site.agent.content.remove('feed-push-1');
      ({ entries } = await walk(resume));
      assert.deepEqual(Object.keys(entries.filter((e) => e.id === id).at(-1)!), ['type', 'id', 'at']);
    });

    it('property: after random edits, the last entry of each id says whether it is public, and tombstones name only ids once public', async () => {
      const ops = fc.constantFrom('edit', 'staleEdit', 'unpublish', 'publish', 'private', 'public', 'endPast', 'endNone', 'startFuture', 'startPast', 'delete');
      const everPublic = new Set<number>();
      await fc.assert(
        fc.asyncProperty(fc.array(fc.tuple(fc.nat(3), ops), { minLength: 1, maxLength: 8 }), async (steps) => {
          const { entries: start, resume } = await walk(feed);
          const held = apply(new Set(), start);
          const ids: number[] = [];
          for (let i = 0; i < 4; i++) {
            // The last one is hidden from the start: it must never get a tombstone unless an op made it public.
            const hiddenAtFirst = i === 3 ? { visibility: 'members' } : {};
            ids.push(await insertResource(db, { category: 'article', title: { en: `Prop SECRET ${i}` }, modified: new Date(Date.now() - HOUR), publicationStart: new Date(Date.now() - 2 * HOUR), ...hiddenAtFirst }));
          }
          for (const id of await visibleIds(db)) everPublic.add(id);
          for (const [which, op] of steps) {
            const id = ids[which]!;
            const statement = {
              edit: sql`UPDATE rsc SET modified = now() WHERE id = ${id}`,
              staleEdit: sql`UPDATE rsc SET summary = '{"en":"x"}' WHERE id = ${id}`,
              unpublish: sql`UPDATE rsc SET is_published = false WHERE id = ${id}`,
              publish: sql`UPDATE rsc SET is_published = true WHERE id = ${id}`,
              private: sql`UPDATE rsc SET visibility = 'members' WHERE id = ${id}`,
              public: sql`UPDATE rsc SET visibility = 'public' WHERE id = ${id}`,
              endPast: sql`UPDATE rsc SET publication_end = now() - interval '1 minute' WHERE id = ${id}`,
              endNone: sql`UPDATE rsc SET publication_end = NULL WHERE id = ${id}`,
              startFuture: sql`UPDATE rsc SET publication_start = now() + interval '1 day' WHERE id = ${id}`,
              startPast: sql`UPDATE rsc SET publication_start = now() - interval '1 day' WHERE id = ${id}`,
              delete: sql`DELETE FROM rsc WHERE id = ${id}`,
            }[op];
            await statement.execute(db);
            for (const visible of await visibleIds(db)) everPublic.add(visible);
          }
          const now = await visibleIds(db);
          const { entries } = await walk(resume);
          assert.deepEqual(sorted(apply(held, entries)), sorted(now), `steps ${JSON.stringify(steps)}`);
          for (const e of entries) {
            if (e.type === 'removed') {
              assert.deepEqual(Object.keys(e), ['type', 'id', 'at']);
              // (The entries of the last 30 seconds come again: tombstones of earlier runs among them.)
              if (ids.includes(e.id)) assert.ok(everPublic.has(e.id), `a tombstone of ${e.id}, never public`);
            } else {
              assert.ok(now.has(e.id), `${e.id} listed as changed while not public`);
            }
          }
          assert.doesNotMatch(JSON.stringify(entries), /SECRET/);
        }),
        { numRuns: backend.name === 'pglite' ? 3 : 6 },
      );
    });

    it('bad input: a forged or foreign since, a cursor from another query, a date that does not exist: 400s naming them; since in the future: an empty page', async () => {
      const expect400 = async (query: string, parameter: string) => {
        const res = await fetch(`${feed}?${query}`);
        const body = (await res.json()) as { error: string; message: string };
        assert.equal(res.status, 400, query);
        assert.equal(body.error, 'bad_request');
        assert.match(body.message, new RegExp(`"${parameter}"`), query);
      };
      await expect400('since=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'since');
      await expect400('since=2026-02-30T00:00:00Z', 'since');
      await expect400('since=2026-12-01', 'since');
      await expect400('since=yesterday', 'since');
      await expect400('since=a&since=b', 'since');
      await expect400('bogus=1', 'bogus');
      const first = (await (await fetch(`${feed}?pagelen=2&since=2000-01-01T00:00:00Z`)).json()) as { result: ChangesPage };
      const cursor = new URL(first.result.next_url!).searchParams.get('cursor')!;
      await expect400(`pagelen=2&since=2001-01-01T00:00:00Z&page=2&cursor=${cursor}`, 'cursor');
      const resumeSince = new URL(first.result.resume_url).searchParams.get('since')!;
      await expect400(`pagelen=2&page=2&cursor=${resumeSince}`, 'cursor');
      const future = (await (await fetch(`${feed}?since=2999-01-01T00:00:00%2B02:00`)).json()) as { result: ChangesPage };
      assert.deepEqual(future.result.items, []);
      assert.equal(future.result.next, false);
      assert.equal((await fetch(future.result.resume_url)).status, 200);
    });

    it('documented: OpenAPI, API help, the API root, the Agent Skill, and the MCP tool that pages the same', async () => {
      const openapi = (await (await fetch(`${site.origin}/openapi.json`)).json()) as { paths: Record<string, unknown> };
      assert.ok('/api/agent/changes' in openapi.paths);
      const root = (await (await fetch(`${site.origin}/api/agent`)).json()) as { result: { operations: { path: string }[] } };
      assert.ok(root.result.operations.some((op) => op.path === '/api/agent/changes'));
      assert.match(await (await fetch(`${site.origin}/api-help`)).text(), /\/api\/agent\/changes/);
      assert.match(await (await fetch(`${site.origin}/.well-known/agent-skills/site-content/SKILL.md`)).text(), /## What changed/);
      const client: LegacyClient = await connectMcp(`${site.origin}/mcp`);
      try {
        const { structured } = await callOk(client, 'changes', { since: '2000-01-01T00:00:00Z', pagelen: '5' });
        const http = (await (await fetch(`${feed}?since=2000-01-01T00:00:00Z&pagelen=5`)).json()) as { result: ChangesPage };
        const { next_arguments, ...page } = structured;
        assert.deepEqual(page, http.result);
        assert.equal(next_arguments.since, '2000-01-01T00:00:00Z');
      } finally {
        await client.close();
      }
    });
  });
}

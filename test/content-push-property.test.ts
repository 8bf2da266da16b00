import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import request from 'supertest';
import fc from 'fast-check';
import { sql } from 'kysely';
import type { Express } from 'express';
import { backends, type TestDatabase } from './support/backends.js';
import { pluginApp } from './support/demo.js';
import type { AgentDiscovery, ContentWriter, ResourceId } from '../src/index.js';

/**
 * A CMS on another database pushes its posts; its syncs crash partway. After `reconcile` with the
 * CMS's visible list and a re-push of what it reports stale or missing, the facade's search serves
 * exactly the posts the CMS shows, each with its current title.
 */

interface Post {
  title: string;
  visible: boolean;
  modified: Date;
}

type Edit =
  | { kind: 'create'; visible: boolean }
  | { kind: 'edit'; pick: number }
  | { kind: 'hide'; pick: number; byRemove: boolean }
  | { kind: 'show'; pick: number }
  | { kind: 'delete'; pick: number };

const editArb: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ kind: fc.constant('create' as const), visible: fc.boolean() }),
  fc.record({ kind: fc.constant('edit' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('hide' as const), pick: fc.nat(), byRemove: fc.boolean() }),
  fc.record({ kind: fc.constant('show' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }),
);

/** A round: some edits, then a sync that pushes only the first `pushed` of its pushes (the rest are lost in a crash). */
const roundArb = fc.record({ edits: fc.array(editArb, { minLength: 1, maxLength: 6 }), pushed: fc.nat({ max: 8 }), recover: fc.boolean() });

/** Ghost-style ids for most posts, the contract's numeric ids for every fourth. */
const cmsId = (n: number): ResourceId => (n % 4 === 3 ? 100_000 + n : (0x5f000000 + n).toString(16).padStart(24, '0'));

class Cms {
  readonly posts = new Map<ResourceId, Post>();
  private next = 0;
  private clock = Date.UTC(2025, 0, 1);
  /** What the CMS's sync still has to push: the ids touched since the last sync. */
  pending: ResourceId[] = [];

  private tick(): Date {
    this.clock += 1000;
    return new Date(this.clock);
  }
  private pick(n: number): ResourceId | undefined {
    const ids = [...this.posts.keys()];
    return ids.length ? ids[n % ids.length] : undefined;
  }
  /** Applies an edit; the post it touched, if any. */
  apply(edit: Edit): ResourceId | undefined {
    const touch = (id: ResourceId) => (this.pending.push(id), id);
    if (edit.kind === 'create') {
      const id = cmsId(this.next++);
      this.posts.set(id, { title: `post ${String(id)} v1`, visible: edit.visible, modified: this.tick() });
      return touch(id);
    }
    const id = this.pick(edit.pick);
    if (id === undefined) return undefined;
    const post = this.posts.get(id)!;
    if (edit.kind === 'delete') this.posts.delete(id);
    else if (edit.kind === 'edit') this.posts.set(id, { ...post, title: `${post.title}+`, modified: this.tick() });
    else this.posts.set(id, { ...post, visible: edit.kind === 'show', modified: this.tick() });
    return touch(id);
  }
  visible(): { id: ResourceId; modified: Date }[] {
    return [...this.posts].filter(([, p]) => p.visible).map(([id, p]) => ({ id, modified: p.modified }));
  }
}

for (const backend of backends) {
  describe(`push API: crashed syncs repaired by reconcile [${backend.name}]`, () => {
    let content: TestDatabase;
    let agent: AgentDiscovery;
    let app: Express;
    let push: ContentWriter;

    before(async () => {
      content = await backend.open();
      ({ app, agent } = await pluginApp(content.db));
      push = agent.content;
    });
    after(async () => {
      await agent.close();
      await content.close();
    });

    /** What the CMS's save path pushes for one post: a put, or a removal when the post is gone (or hidden that way). */
    async function pushPost(cms: Cms, id: ResourceId, hideByRemove: Set<ResourceId>, served: Map<number, ResourceId>): Promise<void> {
      const post = cms.posts.get(id);
      if (!post || (!post.visible && hideByRemove.has(id))) {
        await push.remove(id);
        return;
      }
      const { id: rscId } = await push.put({ id, category: 'post', title: post.title, body: `<p>${post.title}</p>`, is_published: post.visible, modified: post.modified });
      served.set(rscId, id);
    }

    async function searchTitles(): Promise<Map<number, string>> {
      const res = await request(app).get('/api/agent/search?pagelen=100').expect(200);
      return new Map((res.body.result.items as { id: number; title: string }[]).map((i) => [i.id, i.title]));
    }

    it('the facade serves exactly the CMS’s visible posts after reconcile and a re-push', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(roundArb, { minLength: 1, maxLength: 5 }), async (rounds) => {
          await sql`TRUNCATE rsc, category, edge, medium, predicate_category, agent_discovery_external_id`.execute(content.db);
          await push.putCategory({ name: 'post', title: 'Posts' });
          const cms = new Cms();
          const served = new Map<number, ResourceId>();
          for (const [r, round] of rounds.entries()) {
            const hideByRemove = new Set<ResourceId>();
            for (const edit of round.edits) {
              const touched = cms.apply(edit);
              if (touched !== undefined && edit.kind === 'hide' && edit.byRemove) hideByRemove.add(touched);
            }
            // The sync crashes after `pushed` pushes: the rest of the pending list is lost.
            for (const id of cms.pending.slice(0, round.pushed)) await pushPost(cms, id, hideByRemove, served);
            cms.pending = [];
            if (!round.recover && r < rounds.length - 1) continue;
            const report = await push.reconcile(cms.visible(), { maxRemove: '100%' });
            for (const id of [...report.stale, ...report.missing]) await pushPost(cms, id, hideByRemove, served);
            const titles = await searchTitles();
            const expected = new Map([...cms.posts].filter(([, p]) => p.visible).map(([id, p]) => [id, p.title]));
            const actual = new Map([...titles].map(([rscId, title]) => [served.get(rscId) ?? `unknown ${rscId}`, title]));
            assert.deepEqual(actual, expected, `after round ${r}`);
          }
        }),
        { numRuns: backend.name === 'pglite' ? 25 : 15 },
      );
    });
  });
}

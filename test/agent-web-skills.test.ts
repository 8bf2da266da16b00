import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { surfaceBackends } from './support/backends.js';
import { startExampleSite, type RunningSite } from './support/site-harness.js';
import { listen } from './support/mcp-client.js';
import { createExampleSite } from '../example-site/app.js';

// SPEC §20, issue 34 item 7: `/.well-known/agent-skills/index.json` (Agent Skills Discovery v0.2) lists
// one generated `SKILL.md` whose digest matches the bytes served, teaching the site's read API (search,
// read, related, cite the page URL) and its MCP tools when MCP is on.

const INDEX = '/.well-known/agent-skills/index.json';
const SCHEMA = 'https://schemas.agentskills.io/discovery/0.2.0/schema.json';
/** The Agent Skills name grammar: 1–64 lowercase letters, digits and single inner hyphens. */
const SKILL_NAME = /^(?=.{1,64}$)[a-z0-9]+(?:-[a-z0-9]+)*$/;

interface SkillsIndex {
  $schema: string;
  skills: { name: string; type: string; description: string; url: string; digest: string }[];
}

/** The YAML front matter of a SKILL.md as a record (the generated one quotes every value as a JSON string). */
function frontMatter(markdown: string): Record<string, string> {
  const m = /^---\n([\s\S]*?)\n---\n/.exec(markdown);
  assert.ok(m, 'a front matter block');
  return Object.fromEntries(m[1]!.split('\n').map((line) => {
    const [, key, value] = /^([a-z_]+): (".*")$/.exec(line)!;
    return [key!, JSON.parse(value!) as string];
  }));
}

const sha256 = (bytes: ArrayBuffer) => `sha256:${createHash('sha256').update(new Uint8Array(bytes)).digest('hex')}`;

for (const backend of surfaceBackends) {
  describe(`the Agent Skills index and its SKILL.md [${backend.name}]`, () => {
    let site: RunningSite;
    before(async () => {
      site = await startExampleSite(backend);
    });
    after(() => site?.close());

    it('the index is v0.2: $schema, one skill-md entry with a valid name, a description and an absolute URL', async () => {
      const res = await fetch(`${site.origin}${INDEX}`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'application/json');
      assert.equal(res.headers.get('cache-control'), 'no-cache');
      assert.equal(res.headers.get('access-control-allow-origin'), '*', 'cors on the example site');
      const index = (await res.json()) as SkillsIndex;
      assert.deepEqual(Object.keys(index), ['$schema', 'skills']);
      assert.equal(index.$schema, SCHEMA);
      assert.equal(index.skills.length, 1);
      const [skill] = index.skills;
      assert.deepEqual(Object.keys(skill!).sort(), ['description', 'digest', 'name', 'type', 'url']);
      assert.match(skill!.name, SKILL_NAME);
      assert.equal(skill!.type, 'skill-md');
      assert.ok(skill!.description.length > 20 && skill!.description.length <= 1024);
      assert.match(skill!.description, /Harbour Example/);
      assert.equal(skill!.url, `${site.origin}/.well-known/agent-skills/${skill!.name}/SKILL.md`);
      assert.match(skill!.digest, /^sha256:[0-9a-f]{64}$/);
      const etag = res.headers.get('etag')!;
      assert.equal((await fetch(`${site.origin}${INDEX}`, { headers: { 'if-none-match': etag } })).status, 304);
      assert.equal((await fetch(`${site.origin}${INDEX}`, { method: 'POST' })).status, 405);
    });

    it("the digest is the SHA-256 of the SKILL.md bytes, whose front matter repeats the index's name and description", async () => {
      const index = (await (await fetch(`${site.origin}${INDEX}`)).json()) as SkillsIndex;
      const [skill] = index.skills;
      const res = await fetch(skill!.url);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'text/markdown; charset=utf-8');
      const bytes = await res.arrayBuffer();
      assert.equal(sha256(bytes), skill!.digest);
      assert.equal(res.headers.get('x-markdown-tokens'), String(Math.ceil(bytes.byteLength / 4)));
      const markdown = new TextDecoder().decode(bytes);
      assert.deepEqual(frontMatter(markdown), { name: skill!.name, description: skill!.description });
      const head = await fetch(skill!.url, { method: 'HEAD' });
      assert.equal(head.headers.get('etag'), res.headers.get('etag'));
    });

    it('SKILL.md teaches search, read, related and citing the page URL, with working URLs, and the MCP tools', async () => {
      const index = (await (await fetch(`${site.origin}${INDEX}`)).json()) as SkillsIndex;
      const markdown = await (await fetch(index.skills[0]!.url)).text();
      for (const heading of ['## Find', '## Read', '## Follow relationships', '## What changed', '## Cite', '## Ask (NLWeb)', '## MCP', '## Every operation']) {
        assert.ok(markdown.includes(`\n${heading}\n`), heading);
      }
      assert.match(markdown, /page_url/);
      assert.match(markdown, /`\.md`/, 'the .md twins, on in the example site');
      for (const tool of ['search', 'read_resource', 'related', 'schema', 'changes']) assert.ok(markdown.includes(`- \`${tool}\`: `), tool);
      assert.ok(markdown.includes(`${site.origin}/mcp`));
      // Every absolute URL without a placeholder answers 200.
      const urls = [...new Set([...markdown.matchAll(/https?:\/\/[^\s`)]+/g)].map((m) => m[0].replace(/[.;,]$/, '')))].filter((u) => !u.includes('{') && !u.endsWith('/mcp') && !/\/ask(\?|$)/.test(u));
      assert.ok(urls.length >= 4, urls.join(' '));
      for (const url of urls) assert.equal((await fetch(url)).status, 200, url);
      assert.doesNotMatch(markdown, /\/api\/model\//, 'not the compatibility reads');
    });

    it('another skill name is the host\'s 404; without MCP the skill has no MCP section and another digest', async () => {
      assert.equal((await fetch(`${site.origin}/.well-known/agent-skills/other/SKILL.md`)).status, 404);
      const withMcp = (await (await fetch(`${site.origin}${INDEX}`)).json()) as SkillsIndex;
      const second = await createExampleSite({ database: { kysely: site.content.db }, plugin: { mcp: false } });
      const web = await listen(second.app);
      try {
        const index = (await (await fetch(`${web.origin}${INDEX}`)).json()) as SkillsIndex;
        const markdown = await (await fetch(index.skills[0]!.url)).text();
        assert.ok(!markdown.includes('## MCP'));
        assert.notEqual(index.skills[0]!.digest, withMcp.skills[0]!.digest);
        assert.equal(sha256(new TextEncoder().encode(markdown).buffer as ArrayBuffer), index.skills[0]!.digest);
      } finally {
        await web.close();
        await second.close();
      }
    });
  });
}

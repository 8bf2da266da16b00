// The site's licence and copyright (SPEC §20): the siteLicense and siteCopyright options, the settings of
// the same names that override them, and where they are published: llms.txt, the front matter of the
// Markdown reads (beside a resource's own licence and attribution) and the MCP server card.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { parseDocument } from 'yaml';
import { createAgentDiscovery } from '../src/index.js';
import { DEMO } from '../example-site/seed.js';
import { surfaceBackends, type TestDatabase } from './support/backends.js';
import { parseLlmsFile } from './support/llms-txt-reference.js';
import { startAdminHost, type AdminHost } from './support/published-text.js';

const CC_BY = { name: 'CC BY 4.0', url: 'https://creativecommons.org/licenses/by/4.0/' };
const COPYRIGHT = '© 2026 Example Press';
const SETTINGS = '/admin/agent/settings';

const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats.default(ajv);
ajv.addSchema(JSON.parse(readFileSync(new URL('./fixtures/server-card/server-card.schema.json', import.meta.url), 'utf8')), 'server-card.schema.json');
const validateCard = ajv.getSchema('server-card.schema.json#/$defs/ServerCard')!;

/** The front matter block of a Markdown document, parsed by a real YAML parser. */
function frontMatterOf(markdown: string): Record<string, unknown> {
  const m = /^---\n([\s\S]*?)\n---\n\n/.exec(markdown);
  assert.ok(m, 'the document opens with a front matter block');
  const doc = parseDocument(m[1]!);
  assert.deepEqual(doc.errors, [], 'valid YAML');
  return doc.toJS() as Record<string, unknown>;
}

/** What the site publishes of its terms now, read as an agent reads each document. */
async function published(base: string) {
  const llms = parseLlmsFile(await (await fetch(`${base}/llms.txt`)).text());
  const markdown = async (name: string) => {
    const res = await fetch(`${base}/agent/resource/${name}/markdown`);
    assert.equal(res.status, 200, name);
    return frontMatterOf(await res.text());
  };
  const cardRes = await fetch(`${base}/mcp/server-card`);
  assert.equal(cardRes.status, 200);
  const card = (await cardRes.json()) as Record<string, unknown>;
  assert.ok(validateCard(card), ajv.errorsText(validateCard.errors));
  return {
    /** The paragraphs between the summary and the first section. */
    info: (llms.info ?? '').split('\n\n'),
    sections: Object.keys(llms.sections),
    /** A resource without a licence of its own, and one with its own (`CC BY 4.0`, attributed). */
    unlicensed: await markdown(DEMO.englishOnly),
    licensed: await markdown(DEMO.welcome),
    meta: card._meta as Record<string, unknown> | undefined,
  };
}

/** The fields of a front matter that state terms. */
const terms = (fm: Record<string, unknown>) =>
  Object.fromEntries(['license', 'license_url', 'attribution', 'copyright'].flatMap((k) => (fm[k] === undefined ? [] : [[k, fm[k]]])));

describe('the siteLicense and siteCopyright options', () => {
  const base = { siteTitle: 'Site', database: { memory: true as const } };
  const refused = (options: Record<string, unknown>, message: RegExp) =>
    assert.rejects(createAgentDiscovery({ ...base, ...options } as Parameters<typeof createAgentDiscovery>[0]), (e: Error) => {
      assert.ok(e instanceof TypeError);
      assert.match(e.message, /^express-agent-discovery: invalid options: /);
      assert.match(e.message, message);
      return true;
    });

  it('a bad value is refused at start-up, naming the option', async () => {
    await refused({ siteLicense: { name: 'CC BY 4.0', url: 'ftp://example.org/licence' } }, /option "siteLicense\.url": expected an absolute http or https URL/);
    await refused({ siteLicense: { url: '/licence' } }, /option "siteLicense\.url"/);
    await refused({ siteLicense: {} }, /option "siteLicense": give name, url or both/);
    await refused({ siteLicense: { name: 'CC BY\n4.0' } }, /option "siteLicense\.name": must be one line/);
    await refused({ siteLicense: { name: 'CC BY https://creativecommons.org/licenses/by/4.0/' } }, /option "siteLicense\.name": put the link in url/);
    await refused({ siteLicense: { name: 'x'.repeat(201) } }, /option "siteLicense\.name"/);
    await refused({ siteLicense: 'CC BY 4.0' }, /option "siteLicense"/);
    await refused({ siteLicense: { name: 'CC0', identifier: 'CC0-1.0' } }, /option "siteLicense": .*identifier/);
    await refused({ siteCopyright: '' }, /option "siteCopyright"/);
    await refused({ siteCopyright: '© 2026\nExample Press' }, /option "siteCopyright": must be one line/);
    await refused({ siteCopyright: 'x'.repeat(301) }, /option "siteCopyright"/);
  });
});

for (const backend of surfaceBackends) {
  describe(`the site licence and copyright in llms.txt, the front matter and the server card [${backend.name}]`, () => {
    let content: TestDatabase;
    let host: AdminHost;
    let plain: AdminHost;
    before(async () => {
      content = await backend.openSeeded();
      host = await startAdminHost(content, 'Harbour Archive', { mcp: true, siteLicense: CC_BY, siteCopyright: COPYRIGHT });
      plain = await startAdminHost(content, 'Harbour Archive', { mcp: true });
    });
    after(async () => {
      await host?.close();
      await plain?.close();
      await content?.close();
    });

    /** Posts the Settings form with `fields` (every field left out is not set here). */
    async function saveSettings(fields: Record<string, string>): Promise<{ status: number; text: string }> {
      const page = await fetch(`${host.base}${SETTINGS}`);
      assert.equal(page.status, 200);
      const cookie = page.headers.getSetCookie().find((c) => c.startsWith('ead_admin_csrf='))!.split(';')[0]!;
      const token = /name="_csrf" value="([^"]+)"/.exec(await page.text())![1]!;
      const res = await fetch(`${host.base}${SETTINGS}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ _csrf: token, ...fields }).toString(),
      });
      return { status: res.status, text: await res.text() };
    }
    const useOptions = async () => assert.equal((await saveSettings({})).status, 303);

    it('without the options nothing is stated: no paragraph, no site terms in the front matter, no _meta on the card', async () => {
      const p = await published(plain.base);
      assert.ok(!p.info.some((line) => /^(Content licence|Copyright):/.test(line)), p.info.join('\n'));
      assert.deepEqual(terms(p.unlicensed), {});
      assert.deepEqual(terms(p.licensed), { license: 'CC BY 4.0', attribution: 'Example Site editors' });
      assert.equal(p.meta, undefined);
    });

    it('llms.txt states the options after the notes, as text the reference parser keeps before the first section', async () => {
      const p = await published(host.base);
      assert.deepEqual(p.info.slice(-2), [
        "Content licence: [CC BY 4.0](https://creativecommons.org/licenses/by/4.0/), unless a resource's front matter gives its own.",
        'Copyright: © 2026 Example Press',
      ]);
      assert.equal(p.sections[0], 'API');
    });

    it("the front matter: a resource without a licence gets the site's licence, its link and the copyright; one with its own keeps it alone", async () => {
      const p = await published(host.base);
      assert.deepEqual(terms(p.unlicensed), { license: 'CC BY 4.0', license_url: CC_BY.url, copyright: COPYRIGHT });
      assert.deepEqual(terms(p.licensed), { license: 'CC BY 4.0', attribution: 'Example Site editors' });
    });

    it("the server card carries them in _meta under schema.org's names, and still validates", async () => {
      const p = await published(host.base);
      assert.deepEqual(p.meta, { 'org.schema/license': CC_BY, 'org.schema/copyrightNotice': COPYRIGHT });
    });

    it('the settings override the options on the next request; emptied, none is stated; then the options again', async () => {
      try {
        const saved = await saveSettings({ siteLicense_source: 'site', siteLicense: 'CC0 1.0 <https://creativecommons.org/publicdomain/zero/1.0/>', siteCopyright_source: 'site', siteCopyright: '© 2026 Harbour Archive' });
        assert.equal(saved.status, 303, saved.text);
        const settings = await host.agent.settings();
        assert.equal(settings.siteLicense, 'CC0 1.0 https://creativecommons.org/publicdomain/zero/1.0/', 'stored as one line, name then link');
        assert.equal(settings.source.siteLicense, 'database');
        assert.deepEqual((await published(host.base)).meta, {
          'org.schema/license': { name: 'CC0 1.0', url: 'https://creativecommons.org/publicdomain/zero/1.0/' },
          'org.schema/copyrightNotice': '© 2026 Harbour Archive',
        });
        // A link alone is the licence; an empty copyright is none, whatever the option says.
        assert.equal((await saveSettings({ siteLicense_source: 'site', siteLicense: 'https://example.org/terms#reuse', siteCopyright_source: 'site', siteCopyright: '' })).status, 303);
        assert.deepEqual((await published(host.base)).meta, { 'org.schema/license': { url: 'https://example.org/terms#reuse' } });
        assert.equal((await saveSettings({ siteLicense_source: 'site', siteLicense: '', siteCopyright_source: 'site', siteCopyright: '' })).status, 303);
        assert.equal((await published(host.base)).meta, undefined);
        await useOptions();
        assert.deepEqual((await published(host.base)).meta, { 'org.schema/license': CC_BY, 'org.schema/copyrightNotice': COPYRIGHT });
      } finally {
        await useOptions();
      }
    });

    it('the settings reach llms.txt and the front matter on the next request too', async () => {
      try {
        assert.equal((await saveSettings({ siteLicense_source: 'site', siteLicense: 'https://example.org/terms', siteCopyright_source: 'site', siteCopyright: 'Harbour <Archive>' })).status, 303);
        const p = await published(host.base);
        assert.deepEqual(p.info.slice(-2), [
          "Content licence: [https://example.org/terms](https://example.org/terms), unless a resource's front matter gives its own.",
          'Copyright: Harbour \\<Archive>',
        ]);
        assert.deepEqual(terms(p.unlicensed), { license: 'https://example.org/terms', license_url: 'https://example.org/terms', copyright: 'Harbour <Archive>' });
        assert.deepEqual(terms(p.licensed), { license: 'CC BY 4.0', attribution: 'Example Site editors' });
        assert.equal((await saveSettings({ siteLicense_source: 'site', siteLicense: '', siteCopyright_source: 'site', siteCopyright: '' })).status, 303);
        const none = await published(host.base);
        assert.ok(!none.info.some((line) => /^(Content licence|Copyright):/.test(line)), none.info.join('\n'));
        assert.deepEqual(terms(none.unlicensed), {});
      } finally {
        await useOptions();
      }
    });

    it('a bad licence or copyright is refused with a message naming the field; nothing is stored', async () => {
      const cases: [Record<string, string>, string][] = [
        [{ siteLicense_source: 'site', siteLicense: 'CC BY ftp://example.org/licence' }, 'Site licence: the link must be an http or https URL (got ftp://example.org/licence)'],
        [{ siteLicense_source: 'site', siteLicense: 'https://example.org/a CC BY' }, 'Site licence: write the name first and the link last (one link)'],
        [{ siteLicense_source: 'site', siteLicense: 'CC BY\n4.0' }, 'Site licence must be one line, without control characters'],
        [{ siteCopyright_source: 'site', siteCopyright: '© 2026\nExample Press' }, 'Copyright must be one line'],
      ];
      for (const [fields, message] of cases) {
        const res = await saveSettings(fields);
        assert.equal(res.status, 400, message);
        assert.ok(res.text.includes(message.replace(/</g, '&lt;')), `${message} in ${res.text.slice(0, 200)}`);
      }
      const settings = await host.agent.settings();
      assert.equal(settings.source.siteLicense, 'options');
      assert.equal(settings.source.siteCopyright, 'options');
    });
  });
}

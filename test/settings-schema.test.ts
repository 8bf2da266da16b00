// The run-time settings are defined once (SETTINGS): the stored shape, the effective settings, the
// form's fields and limits derive from it. The types below fail to compile if any of them drifts from
// the definition; the tests check the same over HTTP (every setting is drawn on the form and
// round-trips through it) and the stored row's version.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { backends } from './support/backends.js';
import { startExampleSite, type RunningSite } from './support/site-harness.js';
import { adminCookie } from '../example-site/session.js';
import { CSRF_COOKIE } from '../src/admin/csrf.js';
import { SETTINGS, SETTING_LIMITS, SETTING_NAMES, type SettingName, type StoredSettings } from '../src/settings/settings-schema.js';
import type { SettingsFormValues } from '../src/admin/settings-form.js';
import type { EffectiveSettings } from '../src/settings/effective-settings.js';
import { readSettingsSnapshot } from '../src/settings/settings-store.js';

// ---- compile-time: one definition, no drift -------------------------------------------------------
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const holds = <T extends true>(): T => true as T;
holds<Equal<keyof StoredSettings, SettingName>>();
holds<Equal<keyof SettingsFormValues, SettingName>>();
holds<Equal<Extract<keyof EffectiveSettings, SettingName>, SettingName>>();
/** The limits are exactly the settings edited as text or rules. */
type Limited = { [N in SettingName]: (typeof SETTINGS)[N]['field']['kind'] extends 'choice' ? never : N }[SettingName];
holds<Equal<keyof typeof SETTING_LIMITS, Limited>>();
holds<Equal<StoredSettings['noindex'], boolean | null>>();
holds<Equal<EffectiveSettings['noindex'], boolean>>();
holds<Equal<EffectiveSettings['description'], string | undefined>>();
holds<Equal<EffectiveSettings['crawlerRules'], string>>();

/** A valid value of each setting, as the form posts it, and what `agent.settings()` then shows. */
function sample(name: SettingName): { fields: Record<string, string>; effective: unknown } {
  const field = SETTINGS[name].field;
  if (field.kind === 'choice') return { fields: { [name]: 'yes' }, effective: true };
  if (name === 'agentPolicy') {
    const policy = '{"rules":[{"purpose":"training","action":"block"}]}';
    return { fields: { [name]: policy }, effective: policy };
  }
  if (field.kind === 'rules') return { fields: { [name]: 'Disallow: /drafts/' }, effective: 'Disallow: /drafts/' };
  const value = name === 'sitemapUrl' ? '/a-sitemap.xml' : `Set for ${name}`;
  return { fields: { [`${name}_source`]: 'site', [name]: value }, effective: value };
}

for (const backend of backends) {
  describe(`settings from one schema (${backend.name})`, () => {
    let running: RunningSite;
    let admin: string;
    before(async () => {
      running = await startExampleSite(backend);
      admin = adminCookie(running.site.session);
    });
    after(() => running?.close());

    async function form(): Promise<{ cookie: string; token: string; html: string }> {
      const res = await fetch(`${running.origin}/admin/agent/settings`, { headers: { cookie: admin } });
      assert.equal(res.status, 200);
      const set = res.headers.getSetCookie().find((c) => c.startsWith(`${CSRF_COOKIE}=`))!;
      const html = await res.text();
      return { cookie: `${admin}; ${set.split(';')[0]}`, token: /name="_csrf" value="([^"]+)"/.exec(html)![1]!, html };
    }
    const post = (cookie: string, fields: Record<string, string>) =>
      fetch(`${running.origin}/admin/agent/settings`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields).toString(),
      });

    it('the form draws a field for every setting of the definition, with its label', async () => {
      const { html } = await form();
      for (const name of SETTING_NAMES) {
        assert.match(html, new RegExp(`name="${name}"`), `a field for ${name}`);
        assert.ok(html.includes(SETTINGS[name].label), `the label of ${name}`);
      }
    });

    it('every setting round-trips through the form, alone: stored, in force, from the database; the others untouched', async () => {
      for (const name of SETTING_NAMES) {
        const { cookie, token } = await form();
        const { fields, effective } = sample(name);
        const res = await post(cookie, { _csrf: token, ...fields });
        assert.equal(res.status, 303, `${name} saved`);
        const s = await running.site.agent.settings();
        assert.deepEqual(s[name], effective, name);
        assert.equal(s.source[name], 'database', name);
        for (const other of SETTING_NAMES.filter((n) => n !== name)) assert.notEqual(s.source[other], 'database', `${other} not stored with ${name}`);
      }
    });

    it('a text over its limit is refused naming the setting, for every limited setting', async () => {
      for (const [name, max] of Object.entries(SETTING_LIMITS) as [SettingName, number][]) {
        const { cookie, token } = await form();
        const field = SETTINGS[name].field;
        const long = field.kind === 'rules' ? `Disallow: /${'a'.repeat(max)}` : 'a'.repeat(max + 1);
        const fields = field.kind === 'text' ? { [`${name}_source`]: 'site', [name]: long } : { [name]: long };
        const res = await post(cookie, { _csrf: token, ...fields });
        assert.equal(res.status, 400, name);
        const text = await res.text();
        assert.ok(text.includes('The settings were not saved'), name);
        assert.match(text, new RegExp(`at most ${max} characters`), name);
      }
    });

    it('every write gives the row a newer version; a hand-written member no setting has, or a bad value, is not set', async () => {
      const db = running.content.db;
      const before = await readSettingsSnapshot(db);
      const { cookie, token } = await form();
      assert.equal((await post(cookie, { _csrf: token, noindex: 'no' })).status, 303);
      const saved = await readSettingsSnapshot(db);
      assert.ok(BigInt(saved.version) > BigInt(before.version), `${saved.version} > ${before.version}`);
      assert.equal(saved.stored.noindex, false);
      // Restoring an older row's content by hand (a backup) still gets a version never seen.
      await sql`UPDATE agent_discovery_settings SET settings = ${JSON.stringify({ noindex: 'maybe', sitemapUrl: 'javascript:x', unknown: 1 })}::jsonb, version = ${before.version}`.execute(db);
      const restored = await readSettingsSnapshot(db);
      assert.ok(BigInt(restored.version) > BigInt(saved.version), `${restored.version} > ${saved.version}`);
      assert.equal(restored.stored.noindex, null, 'a value its schema refuses is not set');
      assert.equal(restored.stored.sitemapUrl, null);
      assert.ok(!('unknown' in restored.stored));
      const s = await running.site.agent.settings();
      assert.equal(s.version, restored.version);
      assert.equal(s.source.noindex, 'default');
      // The listings read the stored noindex themselves: a bad value there is not noindex either.
      const search = (await (await fetch(`${running.origin}/api/agent/search`)).json()) as { result: { items: unknown[] } };
      assert.ok(search.result.items.length > 0);
    });
  });
}

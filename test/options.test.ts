import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createAgentDiscovery } from '../src/index.js';
import { resolveOptions } from '../src/options.js';

describe('options', () => {
  const base = { siteTitle: 'Site', database: { memory: true as const } };
  const fails = (input: unknown, path: RegExp) =>
    assert.throws(() => resolveOptions(input), (e: Error) => {
      assert.match(e.message, /^express-agent-discovery: invalid options: /);
      assert.match(e.message, path);
      return true;
    });

  it('accepts a minimal configuration and fills the defaults', () => {
    const o = resolveOptions(base);
    assert.deepEqual(o.languages, ['en']);
    assert.equal(o.defaultLanguage, 'en');
    assert.equal(o.noindex, false);
    assert.equal(o.budgetMs, 5000);
    assert.equal(o.maxBodyBytes, 1024 * 1024);
    assert.equal(o.pageUrl({ id: 7, name: null, language: 'en', category: null }), '/en/page/7');
    assert.ok(Object.isFrozen(o));
  });

  it('names the option path of each bad value', () => {
    fails({ database: { memory: true } }, /option "siteTitle"/);
    fails({ ...base, siteTitle: '   ' }, /option "siteTitle"/);
    fails({ ...base, languages: ['en', 'English'] }, /option "languages\[1\]"/);
    fails({ ...base, languages: [] }, /option "languages"/);
    fails({ ...base, defaultLanguage: 'nl' }, /option "defaultLanguage": must be one of languages/);
    fails({ ...base, baseUrl: 'ftp://example.org' }, /option "baseUrl"/);
    fails({ ...base, baseUrl: 'https://example.org/?x=1' }, /option "baseUrl"/);
    fails({ ...base, templateDirs: ['/no/such/dir'] }, /option "templateDirs\[0\]": template directory does not exist/);
    fails({ ...base, pageUrl: 'not a function' }, /option "pageUrl"/);
    fails({ ...base, database: { host: 'x' } }, /option "database"/);
    fails({ ...base, database: { url: 'mysql://x' } }, /option "database\.url": expected a postgres:\/\/ URL/);
    fails({ ...base, budgetMs: 0 }, /option "budgetMs"/);
    fails({ ...base, ard: { representativeQueries: ['only one'] } }, /option "ard\.representativeQueries"/);
    fails({ ...base, unknownOption: true }, /unknownOption/);
  });

  it('does not mutate the caller\'s options', () => {
    const input = { ...base, languages: ['en', 'nl'] };
    const copy = structuredClone(input);
    resolveOptions(input);
    assert.deepEqual(input, copy);
  });

  it('an unreachable database fails the factory with a clear error', async () => {
    await assert.rejects(
      createAgentDiscovery({ siteTitle: 'x', database: { url: 'postgres://nobody@127.0.0.1:1/none' } }),
      /express-agent-discovery: cannot connect to PostgreSQL/,
    );
  });
});

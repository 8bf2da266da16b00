import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createConfig, lintFromString, type NormalizedProblem } from '@redocly/openapi-core';
import { surfaceBackends } from './support/backends.js';
import { openDemoDatabase, type DemoDatabase } from './support/demo.js';
import { rawRequest, startHostApp, type HostApp } from './support/fetchkit.js';
import { resolveOptions } from '../src/options.js';

/** Redocly's recommended ruleset over a served OpenAPI document. */
async function lintServed(origin: string): Promise<NormalizedProblem[]> {
  const res = await rawRequest(`${origin}/openapi.json`);
  assert.equal(res.status, 200);
  const config = await createConfig({ extends: ['recommended'] });
  return lintFromString({ source: res.body, absoluteRef: `${origin}/openapi.json`, config });
}

const describeProblems = (problems: NormalizedProblem[]) =>
  problems.map((p) => `${p.severity} ${p.ruleId} at ${p.location[0]?.pointer ?? '?'}: ${p.message}`).join('\n');

for (const backend of surfaceBackends) {
  describe(`/openapi.json under Redocly's recommended ruleset [${backend.name}]`, () => {
    let demo: DemoDatabase;
    let plain: HostApp;
    let licensed: HostApp;
    before(async () => {
      demo = await openDemoDatabase(backend);
      plain = await startHostApp(demo.db);
      licensed = await startHostApp(demo.db, { apiLicense: { name: 'CC BY 4.0', identifier: 'CC-BY-4.0' } });
    });
    after(async () => {
      await plain?.close();
      await licensed?.close();
      await demo?.close();
    });

    it('no errors; the only warning without a configured licence is info-license', async (t) => {
      const problems = await lintServed(plain.origin);
      const errors = problems.filter((p) => p.severity === 'error');
      const warnings = problems.filter((p) => p.severity === 'warn');
      t.diagnostic(`redocly recommended: ${errors.length} errors, ${warnings.length} warnings`);
      assert.deepEqual(errors, [], describeProblems(errors));
      assert.deepEqual(warnings.map((p) => p.ruleId), ['info-license'], describeProblems(warnings));
    });

    it('with apiLicense configured: no errors and no warnings', async (t) => {
      const problems = await lintServed(licensed.origin);
      t.diagnostic(`redocly recommended with apiLicense: ${problems.length} problems`);
      assert.deepEqual(problems, [], describeProblems(problems));
    });

    it('declares anonymous access and describes every tag it uses', async () => {
      const doc = JSON.parse((await rawRequest(`${plain.origin}/openapi.json`)).body) as {
        security: unknown[];
        tags: { name: string; description: string }[];
        info: Record<string, unknown>;
        paths: Record<string, Record<string, { tags: string[]; security?: unknown }>>;
      };
      assert.deepEqual(doc.security, []);
      assert.equal(doc.info.license, undefined, 'no licence is claimed unless configured');
      const used = new Set(Object.values(doc.paths).flatMap((p) => Object.values(p).flatMap((op) => op.tags)));
      assert.deepEqual(doc.tags.map((t) => t.name).sort(), [...used].sort());
      for (const tag of doc.tags) assert.ok(tag.description.length > 20, tag.name);
      const licensedDoc = JSON.parse((await rawRequest(`${licensed.origin}/openapi.json`)).body) as { info: Record<string, unknown> };
      assert.deepEqual(licensedDoc.info.license, { name: 'CC BY 4.0', identifier: 'CC-BY-4.0' });
    });
  });
}

describe('the apiLicense option', () => {
  const base = { siteTitle: 'T', database: { memory: true } } as const;
  it('takes a name with a url or an SPDX identifier', () => {
    assert.deepEqual(resolveOptions({ ...base, apiLicense: { name: 'MIT', identifier: 'MIT' } }).apiLicense, { name: 'MIT', identifier: 'MIT' });
    assert.deepEqual(resolveOptions({ ...base, apiLicense: { name: 'Terms', url: 'https://example.org/terms' } }).apiLicense, {
      name: 'Terms',
      url: 'https://example.org/terms',
    });
    assert.equal(resolveOptions(base).apiLicense, undefined);
  });
  it('rejects both url and identifier, an empty name, unknown keys, and a malformed identifier, naming the option', () => {
    const bad = [
      { name: 'MIT', identifier: 'MIT', url: 'https://example.org/l' },
      { name: '', identifier: 'MIT' },
      { name: 'MIT', spdx: 'MIT' },
      { name: 'MIT', identifier: 'MIT; rm' },
    ];
    for (const apiLicense of bad) {
      assert.throws(() => resolveOptions({ ...base, apiLicense }), /^TypeError: express-agent-discovery: invalid options: option "apiLicense/, JSON.stringify(apiLicense));
    }
  });
});

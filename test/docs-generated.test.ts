import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { GENERATED_DOCS } from '../tools/generated-docs.js';
import { OPTIONS_SOURCE, optionsSourceWithComments } from '../tools/option-comments.js';
import { z } from 'zod';
import { optionRows } from '../src/options-reference.js';
import { optionDocs } from '../src/options.js';

describe('generated files', () => {
  for (const [file, render] of Object.entries(GENERATED_DOCS)) {
    it(`${file} is what its definition generates (run \`npm run docs\` after changing it)`, () => {
      assert.equal(readFileSync(file, 'utf8'), render());
    });
  }

  it('an option\'s doc comment edited by hand is written back from its description', () => {
    const source = readFileSync(OPTIONS_SOURCE, 'utf8');
    const comment = '/** apply the migrations at start-up. @default `false` */';
    assert.ok(source.includes(comment));
    assert.equal(optionsSourceWithComments(source.replace(comment, '/** run the migrations */')), source);
    assert.equal(optionsSourceWithComments(source.replace(`${comment}\n  `, '')), source);
  });

  it('a description no option of the schema has is refused', () => {
    const source = readFileSync(OPTIONS_SOURCE, 'utf8').replace("description: 'apply the migrations at start-up'", "description: 'apply them'");
    assert.throws(() => optionsSourceWithComments(source), /no option of the schema has the description apply them/);
  });

  it('an option without a description is refused; a nested one without is left out', () => {
    assert.throws(() => optionRows({ plain: z.string() }), /option plain has no documentation/);
    const documented = z.object({ inner: z.number().default(3) }).prefault({}).register(optionDocs, { description: 'outer', default: 'its fields' });
    assert.deepEqual(optionRows({ outer: documented }), [{ path: 'outer', description: 'outer', default: 'its fields' }]);
    const nested = z.object({ inner: z.number().default(3).register(optionDocs, { description: 'inner' }) }).optional().register(optionDocs, { description: 'outer' });
    assert.deepEqual(optionRows({ outer: nested }).map((row) => `${row.path}: ${row.default}`), ['outer: none', 'outer.inner: `3`']);
  });

  it("the README's options summary names options of the schema, with the reference's defaults", () => {
    const readme = readFileSync('README.md', 'utf8');
    const summary = readme.slice(readme.indexOf('## Options\n'), readme.indexOf('\n## ', readme.indexOf('## Options\n') + 1));
    const defaults = new Map(optionRows().map((row) => [row.path, row.default]));
    const rows = [...summary.matchAll(/^\| (`[^|]+`) \| ([^|]+) \|/gm)];
    assert.ok(rows.length >= 5);
    for (const [, names, defaultText] of rows) {
      for (const [, name] of names!.matchAll(/`([^`]+)`/g)) assert.equal(defaultText, defaults.get(name!), `README option ${name}`);
    }
  });
});

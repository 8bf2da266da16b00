import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { GENERATED_DOCS } from '../tools/generated-docs.js';

describe('generated reference pages', () => {
  for (const [file, render] of Object.entries(GENERATED_DOCS)) {
    it(`${file} is what its definition generates (run \`npm run docs\` after changing it)`, () => {
      assert.equal(readFileSync(file, 'utf8'), render());
    });
  }
});

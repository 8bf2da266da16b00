import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isName, MAX_NAME_LENGTH, parseResourceRef, RESOURCE_REF_PATTERN } from '../src/content/resource-ref.js';
import { idOrName } from '../src/http/parameters.js';
import { lookupKey } from '../src/markdown/resource-accessor.js';

describe('resource references (one rule for parameters, templates, markers and template names)', () => {
  const name = (n: number) => `a${'b'.repeat(n - 1)}`;

  it('an id is a positive integer of at most 15 digits, so always a safe integer', () => {
    assert.equal(parseResourceRef('1'), 1);
    assert.equal(parseResourceRef(42), 42);
    assert.equal(parseResourceRef('999999999999999'), 999_999_999_999_999);
    assert.ok(Number.isSafeInteger(parseResourceRef('999999999999999')));
    for (const bad of ['0', '01', '-1', '1.5', '1e3', '1000000000000000', '9007199254740993', 0, -3, 1.5, 2 ** 53, Number.NaN, Infinity, 1e21])
      assert.equal(parseResourceRef(bad), undefined, String(bad));
  });

  it('a name follows ^[a-z][a-z0-9_]*$ and is at most 100 characters', () => {
    assert.equal(parseResourceRef('open_data'), 'open_data');
    assert.equal(parseResourceRef(name(MAX_NAME_LENGTH)), name(MAX_NAME_LENGTH));
    for (const bad of [name(MAX_NAME_LENGTH + 1), 'Open', '_x', '9a', 'a-b', 'a b', '', 'é', null, undefined, {}, ['x']])
      assert.equal(parseResourceRef(bad), undefined, String(bad));
    assert.ok(isName(name(MAX_NAME_LENGTH)));
    assert.ok(!isName(name(MAX_NAME_LENGTH + 1)));
    assert.ok(!isName(7));
  });

  it('the HTTP parameter and the template accessor accept exactly the same references', () => {
    const schema = idOrName('resource');
    const samples = ['1', '999999999999999', '1000000000000000', '9007199254740991', 'x', name(100), name(101), 'A', '0', '', 'a_1'];
    for (const text of samples) {
      const http = schema.safeParse(text);
      assert.deepEqual(http.success ? http.data : undefined, lookupKey(text), text);
      assert.equal(RESOURCE_REF_PATTERN.test(text), lookupKey(text) !== undefined, text);
    }
  });
});

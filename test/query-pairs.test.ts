import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Request } from 'express';
import { rawQueryPairs } from '../src/http/parameters.js';
import { formPair } from '../src/http/urls.js';

/** Pieces of a query: safe text, separators, percent-escapes (valid and not), `+`, a leading `?`, non-ASCII. */
const piece = fc.constantFrom('a', 'b', 'x1', '=', '&', '&&', '==', '?', '%', '%20', '%zz', '%C3%A9', '+', '#', ';', '/', '~', "'", '*', 'é', '岸');

const asRequest = (target: string) => ({ originalUrl: target, url: target }) as unknown as Request;

describe('rawQueryPairs and formPair (the URLSearchParams rules, without building one when nothing needs coding)', () => {
  it('gives exactly the pairs URLSearchParams gives, for any query', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 24 }), (pieces) => {
        const query = pieces.join('');
        assert.deepEqual(rawQueryPairs(asRequest(`/api/agent/search?${query}`)), [...new URLSearchParams(query)], query);
      }),
      { numRuns: 5000 },
    );
  });

  it('no query, an empty one and empty pairs give no pairs; a name without = has an empty value', () => {
    assert.deepEqual(rawQueryPairs(asRequest('/api/agent/search')), []);
    assert.deepEqual(rawQueryPairs(asRequest('/api/agent/search?')), []);
    assert.deepEqual(rawQueryPairs(asRequest('/api/agent/search?&&sort=newest&&pagelen')), [['sort', 'newest'], ['pagelen', '']]);
    assert.deepEqual(rawQueryPairs(asRequest('/api/agent/search??sort=id')), [['sort', 'id']]);
    assert.deepEqual(rawQueryPairs(asRequest('/api/agent/search?text=a+b%21')), [['text', 'a b!']]);
  });

  it('formPair serializes one pair as URLSearchParams does', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 12 }), fc.string({ unit: 'grapheme', maxLength: 12 }), (name, value) => {
        assert.equal(formPair(name, value), new URLSearchParams([[name, value]]).toString());
      }),
    );
    assert.equal(formPair('sort', 'newest'), 'sort=newest');
    assert.equal(formPair('text', 'harbour data'), 'text=harbour+data');
  });
});

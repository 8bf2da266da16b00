import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import etag from 'etag';
import { fixedBody, fixedBodyOf } from '../src/http/representation.js';

describe('fixedBody (a text answer whose bytes and ETag are worked out once)', () => {
  it('keeps the UTF-8 bytes and the strong ETag sendRepresentation would compute', () => {
    const text = fixedBody({ body: '{"linkset":[]} · 岸', headers: { Link: '<x>; rel="api-catalog"' } });
    const fixed = fixedBodyOf(text)!;
    assert.deepEqual(fixed.bytes, Buffer.from(text.body, 'utf8'));
    assert.equal(fixed.etag, etag(Buffer.from(text.body, 'utf8')));
    assert.ok(Object.isFrozen(fixed));
  });

  it('an unmarked text body has none (it is encoded and hashed when sent)', () => {
    assert.equal(fixedBodyOf({ body: 'x' }), undefined);
  });
});

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { runRoute } from '../src/http/responder.js';
import { pathTemplate } from '../src/http/urls.js';
import type { Route } from '../src/http/route.js';

/** `npm test` (tools/run-tests.mjs) checks every envelope result against its schema; production does not. */
const checking = process.env.EXPRESS_AGENT_DISCOVERY_VERIFY_QUERIES === '1';

const item = z.object({ id: z.number().int(), title: z.string() });

/** A route whose handler answers `output`, with `item` as its documented result. */
function routeAnswering(output: unknown): Route<unknown> {
  return {
    path: pathTemplate('/api/agent/example'),
    params: undefined,
    query: undefined,
    response: { kind: 'envelope', result: item },
    handler: async () => output,
  } as unknown as Route<unknown>;
}

const call = { base: 'https://example.org', path: '/api/agent/example', query: [] };

describe('envelope results and their documented schema', () => {
  it('a result built to its schema goes out as built', async () => {
    const output = { id: 7, title: 'Harbour' };
    assert.equal(await runRoute(routeAnswering(output), {}, call, {}), output);
  });

  it('in the test suite, a property the schema does not document fails the request naming the route', { skip: !checking }, async () => {
    await assert.rejects(runRoute(routeAnswering({ id: 7, title: 'Harbour', secret: 'x' }), {}, call, {}), /the result of \/api\/agent\/example is not its documented schema/);
  });

  it('in the test suite, properties out of the schema\'s order fail too (the JSON would differ)', { skip: !checking }, async () => {
    await assert.rejects(runRoute(routeAnswering({ title: 'Harbour', id: 7 }), {}, call, {}), /not its documented schema/);
  });

  it('in the test suite, a value of the wrong type fails', { skip: !checking }, async () => {
    await assert.rejects(runRoute(routeAnswering({ id: '7', title: 'Harbour' }), {}, call, {}));
  });
});

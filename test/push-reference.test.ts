import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Kysely } from 'kysely';
import { z } from 'zod';
import {
  createContentWriter,
  ContentPushError,
  type BulkOptions,
  type BulkProgress,
  type ContentWriter,
  type Database,
  type ResourceInput,
} from '../src/index.js';
import { contentApiReference, fieldRows, typeText } from '../src/push/content-api-reference.js';
import { PUSH_CALLS, RECORD_CALLS } from '../src/push/push-calls.js';
import { CONTENT_PUSH_ERROR_CODES } from '../src/push/push-error.js';
import { REPO_ROOT } from './support/repo.js';

/**
 * The reference of `agent.content` (docs/reference/content-api.md) is generated from the table of
 * calls and the input schemas: it names every call the writer has, every field with its type,
 * default and meaning, every limit and every error code. (test/docs-generated.test.ts keeps the file
 * equal to what is generated.)
 */

/** Type tests (`tsc --noEmit` runs over this file): what the public types take and refuse. Never called. */
export function pushApiTypes(content: ContentWriter): void {
  const resource: ResourceInput = { id: 'abc', category: 'post', title: { en: 'Hi' }, props: { a: [1, 'b'] } };
  const options: BulkOptions = { batchSize: 100, onProgress: (p: BulkProgress) => void [p.written, p.ids.length] };
  void content.putMany([resource], options);
  void content.putMany((async function* () { yield resource; })());
  void content.setEdgesMany([{ subject: 'a', predicate: 'tagged', objects: ['b', { name: 'c' }] }]);
  void content.putEdgeMany([{ subject: 1, predicate: { id: 2 }, object: { externalId: 'x' }, seq: 3 }]);
  void content.putCategory({ name: 'tag', vocabulary: true });
  // @ts-expect-error putMany takes an iterable of resources
  void content.putMany(resource);
  // @ts-expect-error a title is required
  void content.put({ id: 1, category: 'post' });
  // @ts-expect-error batchSize is a number
  void content.putMany([resource], { batchSize: '10' });
  const error = new ContentPushError('put', 'unavailable', undefined, 'x', { retryable: true });
  const retry: boolean = error.retryable;
  const index: number | undefined = error.index;
  void [retry, index];
}

/** A writer is made without touching its database: enough to list its calls. */
const UNUSED_DB = { withTables: () => ({}) } as unknown as Kysely<Database>;

describe('the push API reference', () => {
  const page = readFileSync(`${REPO_ROOT}docs/reference/content-api.md`, 'utf8');

  it('lists every call the writer has, and nothing else', () => {
    const writer = createContentWriter(UNUSED_DB);
    assert.deepEqual(PUSH_CALLS.map((c) => c.name).sort(), Object.keys(writer).sort());
    for (const call of PUSH_CALLS) assert.ok(page.includes(`### \`${call.signature}\``), call.name);
  });

  it('documents every field of every input, with its type and default', () => {
    for (const call of PUSH_CALLS) {
      for (const row of fieldRows(call.input)) {
        assert.ok(row.description.length > 10, `${call.name}.${row.field}`);
        assert.ok(page.includes(`| \`${row.field}\` |`), `${call.name}.${row.field} is on the page`);
      }
    }
    const put = new Map(fieldRows(PUSH_CALLS[0]!.input).map((r) => [r.field, r]));
    assert.equal(put.get('title')!.default, '**required**');
    assert.equal(put.get('is_published')!.default, '`true`');
    assert.equal(put.get('visibility')!.default, '`"public"`');
    assert.equal(put.get('id')!.type, 'integer (1 to 999,999,999,999,999) | string (≤ 200)');
    assert.match(put.get('props')!.description, /32 levels deep and 262,144 characters/);
  });

  it('lists every error code with its meaning, and the limits', () => {
    for (const code of Object.keys(CONTENT_PUSH_ERROR_CODES)) assert.ok(page.includes(`| \`${code}\` |`), code);
    for (const limit of ['999,999,999,999,999', '1,000,000 characters', '262,144 characters', '1,000 blocks', 'years 1 to 9999', 'not before `publication_start`']) {
      assert.ok(page.includes(limit), limit);
    }
  });

  it('a field without documentation is refused; types read as words', () => {
    assert.throws(() => fieldRows(z.strictObject({ bare: z.string() })), /field bare has no documentation/);
    assert.equal(typeText(z.array(z.number().int().min(1).max(5)).max(3)), 'integer (1 to 5)[] (≤ 3)');
    assert.equal(typeText(z.string().nullable()), 'string | null');
  });

  it('every NDJSON record of the push command is a call of the writer, and the page says how to pipe them', () => {
    const writer = createContentWriter(UNUSED_DB);
    for (const name of RECORD_CALLS.keys()) assert.equal(typeof (writer as unknown as Record<string, unknown>)[name], 'function', name);
    assert.ok(!RECORD_CALLS.has('putMany') && RECORD_CALLS.has('put') && RECORD_CALLS.has('setEdges'));
    assert.match(page, /npx express-agent-discovery push --database-url/);
    assert.equal(contentApiReference(), page);
  });
});

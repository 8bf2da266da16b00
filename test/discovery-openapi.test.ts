import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Validator } from '@seriousme/openapi-schema-validator';
import { z } from 'zod';
import { surfaceBackends } from './support/backends.js';
import { openDemoDatabase, type DemoDatabase } from './support/demo.js';
import { analyze, rawRequest, startHostApp, type HostApp } from './support/fetchkit.js';
import { resourcePath } from '../src/facade/resource-route.js';
import { searchQuery } from '../src/facade/search-route.js';
import { buildOpenApi } from '../src/discovery/openapi.js';
import type { OperationSpec } from '../src/http/operations.js';

for (const backend of surfaceBackends) {
  describe(`/openapi.json [${backend.name}]`, () => {
    let demo: DemoDatabase;
    let host: HostApp;
    let doc: Record<string, any>;
    before(async () => {
      demo = await openDemoDatabase(backend);
      await analyze(demo.db);
      host = await startHostApp(demo.db);
      doc = JSON.parse((await rawRequest(`${host.origin}/openapi.json`)).body);
    });
    after(async () => {
      await host?.close();
      await demo?.close();
    });

    it('validates as OpenAPI 3.1 (@seriousme/openapi-schema-validator)', async () => {
      const validator = new Validator();
      const result = await validator.validate(doc);
      assert.equal(validator.version, '3.1');
      assert.deepEqual(result.errors ?? [], []);
      assert.equal(result.valid, true);
    });

    it('servers and every facade route, with GET and HEAD', () => {
      assert.equal(doc.openapi, '3.1.0');
      assert.deepEqual(doc.servers, [{ url: host.origin }]);
      for (const p of ['/api/agent/search', '/api/agent/resource/{id}', '/api/agent/schema']) {
        assert.ok(doc.paths[p], p);
        assert.ok(doc.paths[p].get && doc.paths[p].head, `${p} get and head`);
        assert.equal(doc.paths[p].head.responses['200'].content, undefined, 'HEAD has no body');
      }
    });

    it('parameters come from the zod schemas that validate requests', () => {
      const schemas = { search: searchQuery(host.agent.options) };
      const search = doc.paths['/api/agent/search'].get;
      assert.deepEqual(search.parameters.map((p: any) => p.name), Object.keys(schemas.search.shape));
      const pagelen = search.parameters.find((p: any) => p.name === 'pagelen');
      assert.deepEqual([pagelen.schema.type, pagelen.schema.minimum, pagelen.schema.maximum, pagelen.schema.default], ['integer', 1, 100, 20]);
      assert.equal(pagelen.required, false);
      const language = search.parameters.find((p: any) => p.name === 'language');
      assert.deepEqual(language.schema.enum, ['en', 'nl']);
      const id = doc.paths['/api/agent/resource/{id}'].get.parameters.find((p: any) => p.name === 'id');
      assert.equal(id.in, 'path');
      assert.equal(id.required, true);
      assert.equal(id.schema.type, 'string');
      for (const op of Object.values<any>(doc.paths)) for (const p of op.get.parameters) assert.equal(p.schema.$schema, undefined);
    });

    it('responses: the ok envelope around the result schema, the error envelope per error status, 304', () => {
      const read = doc.paths['/api/agent/resource/{id}'].get;
      const ok = read.responses['200'].content['application/json'].schema;
      assert.deepEqual(ok.required.sort(), ['result', 'status']);
      assert.equal(ok.properties.status.const, 'ok');
      assert.ok(ok.properties.result.properties.page_urls);
      for (const status of ['400', '404', '500', '503', '504']) {
        assert.equal(read.responses[status].content['application/json'].schema.$ref, '#/components/schemas/ErrorEnvelope', status);
      }
      assert.ok(read.responses['304']);
      assert.deepEqual(doc.components.schemas.ErrorEnvelope.properties.status, { type: 'string', const: 'error' });
    });

    it('a text response is documented with its media type', () => {
      const op: OperationSpec = {
        operationId: 'readMarkdown',
        path: '/agent/resource/{id}/markdown',
        summary: 'Markdown',
        description: 'The Markdown of a resource.',
        tags: ['content'],
        pathParams: resourcePath,
        query: z.object({}).strict(),
        response: { kind: 'text', mediaType: 'text/markdown; charset=utf-8' },
        errors: [404, 503],
      };
      const built = buildOpenApi([op], { title: 'T', base: 'https://example.org' }) as any;
      assert.deepEqual(built.paths[op.path].get.responses['200'].content, { 'text/markdown': { schema: { type: 'string' } } });
    });
  });
}

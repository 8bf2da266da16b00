import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import express from 'express';
import { requestInProcess, type RequestListener } from '../src/admin/in-process-request.js';

/** Express 4 (installed as `express4`; it ships no types). */
const express4 = createRequire(import.meta.url)('express4') as () => express.Express;

/**
 * `requestInProcess`: the admin overview's way of asking the host's app for a document without a
 * connection. Express 4 and 5 answer it as they answer a socket, and nothing is connected to.
 */
for (const [name, make] of [['express 5', express], ['express 4', express4]] as const) {
  describe(`requestInProcess (${name})`, () => {
    const app = make();
    const listener = app as unknown as RequestListener;
    app.get('/hello', (req, res) => {
      res.set('X-Seen', `${req.get('host')} ${req.ip} ${req.get('user-agent')}`);
      res.type('text/plain').send('hello');
    });
    app.get('/big', (_req, res) => {
      res.type('text/plain');
      res.write('a'.repeat(200_000));
      res.end('b');
    });
    app.get('/never', () => {});
    app.get('/throws', () => {
      throw new Error('boom');
    });
    app.use((_error: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => void res.status(500).send('failed'));

    it('returns the status, headers and body the app sends, with the Host given only as a header', async () => {
      let connections = 0;
      const bait: Server = createServer((_req, res) => res.end('bait')).on('connection', () => void (connections += 1));
      await new Promise<void>((resolve) => bait.listen(0, '127.0.0.1', resolve));
      const host = `127.0.0.1:${(bait.address() as AddressInfo).port}`;
      try {
        const res = await requestInProcess(listener, '/hello', { headers: { Host: host, 'User-Agent': 'probe' } });
        assert.equal(res.status, 200);
        assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8');
        assert.equal(res.headers['x-seen'], `${host} 127.0.0.1 probe`);
        assert.equal(res.body.toString(), 'hello');
        assert.equal(connections, 0);
      } finally {
        await new Promise((resolve) => bait.close(resolve));
      }
    });

    it('keeps a streamed body up to maxBodyBytes; answers 404 and 500 as the app does; gives up on silence', async () => {
      const big = await requestInProcess(listener, '/big', { maxBodyBytes: 1000 });
      assert.equal(big.status, 200);
      assert.equal(big.body.length, 1000);
      assert.equal((await requestInProcess(listener, '/missing')).status, 404);
      assert.equal((await requestInProcess(listener, '/throws')).status, 500);
      await assert.rejects(requestInProcess(listener, '/never', { timeoutMs: 100 }), /no answer in 0\.1 s/);
    });
  });
}

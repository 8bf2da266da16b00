import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { createExampleSite } from '../example-site/app.js';
import { DEMO } from '../example-site/seed.js';
import { backends } from './support/backends.js';
import { openDemoDatabase, pluginApp, type DemoDatabase } from './support/demo.js';

/** Raw requests whose clients leave: half at once, half after the first bytes of the answer (or a second). */
async function abortAll(app: Express, requests: string[], rounds: number): Promise<{ port: number; close(): Promise<void> }> {
  let closed = 0;
  let sent = 0;
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  server.on('request', (_req, res) => res.on('close', () => closed++));
  const port = (server.address() as AddressInfo).port;
  for (let round = 0; round < rounds; round++) {
    await Promise.all(
      requests.map(
        (raw, i) =>
          new Promise<void>((resolve) => {
            const socket = net.connect(port, '127.0.0.1', () => {
              socket.write(raw);
              sent++;
              if (i % 2 === 0) setImmediate(() => socket.destroy());
              else socket.once('data', () => socket.destroy()).setTimeout(1000, () => socket.destroy());
            });
            socket.on('error', () => {});
            socket.on('close', () => resolve());
          }),
      ),
    );
  }
  for (let i = 0; i < 200 && closed < sent; i++) await new Promise((resolve) => setTimeout(resolve, 25));
  assert.equal(closed, sent, 'the server finished every aborted request');
  return { port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: site.test\r\n\r\n`;

/** Everything written to stderr and every process warning while `work` runs. */
async function logsDuring(work: () => Promise<void>): Promise<string[]> {
  const logged: string[] = [];
  const write = process.stderr.write;
  const onWarning = (w: Error) => logged.push(`warning: ${w.message}`);
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    logged.push(String(chunk));
    return (write as (...args: unknown[]) => boolean).call(process.stderr, chunk, ...rest);
  }) as typeof process.stderr.write;
  process.on('warning', onWarning);
  try {
    await work();
  } finally {
    process.stderr.write = write;
    process.off('warning', onWarning);
  }
  return logged;
}

for (const backend of backends) {
  describe(`aborted requests [${backend.name}]`, () => {
    let demo: DemoDatabase;
    let welcome: number;
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    before(async () => {
      process.on('unhandledRejection', onUnhandled);
      demo = await openDemoDatabase(backend);
      welcome = await demo.id(DEMO.welcome);
    });
    after(async () => {
      process.off('unhandledRejection', onUnhandled);
      await demo.close();
    });

    it('on plugin routes: no report, no log line, no unhandled rejection; the next request is served', async () => {
      const reported: unknown[] = [];
      const { app } = await pluginApp(demo.db, { onError: (error) => reported.push(error) });
      const paths = [
        '/api/agent/search?pagelen=50',
        `/api/agent/resource/${welcome}`,
        `/agent/resource/${welcome}/markdown`,
        `/api/agent/related/${welcome}`,
        `/api/model/edge/get/o/${welcome}/author`,
        '/llms.txt',
        '/api-help',
        '/openapi.json',
      ];
      let port = 0;
      const logged = await logsDuring(async () => {
        const server = await abortAll(app, paths.map(get), 5);
        port = server.port;
        assert.equal((await fetch(`http://127.0.0.1:${port}/api/agent/resource/${welcome}`)).status, 200);
        await server.close();
      });
      assert.deepEqual(reported, []);
      assert.deepEqual(logged, []);
      assert.deepEqual(unhandled, []);
    });

    it('on the example site\'s pages and its sign-in form (a body cut short): no stack in the logs', async (t) => {
      const site = await createExampleSite({ database: { kysely: demo.db }, seed: false });
      t.after(() => site.close());
      const requests = [
        get('/'),
        get(`/en/page/${welcome}`),
        get('/login'),
        'POST /login HTTP/1.1\r\nHost: site.test\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\npassword=ad',
        get('/no/such/page'),
      ];
      const logged = await logsDuring(async () => {
        const server = await abortAll(site.app, requests, 4);
        assert.equal((await fetch(`http://127.0.0.1:${server.port}/en/page/${welcome}`)).status, 200);
        await server.close();
      });
      assert.deepEqual(logged, []);
      assert.deepEqual(unhandled, []);
    });
  });
}

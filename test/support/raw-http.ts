import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';

/** A response as read off the wire. */
export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One request exactly as given: the raw path and header values are sent unnormalised. */
export interface RawRequest {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

/** An app listening on an ephemeral port of 127.0.0.1, for requests that supertest would normalise. */
export interface RawServer {
  server: http.Server;
  port: number;
  request(r: RawRequest): Promise<RawResponse>;
  close(): Promise<void>;
}

export async function listen(app: Express): Promise<RawServer> {
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  // One connection per request: a server that closes a connection after refusing a body must not
  // make the next request on it fail.
  const agent = new http.Agent({ keepAlive: false, maxSockets: 8 });
  return {
    server,
    port,
    request(r) {
      return new Promise((resolve, reject) => {
        const headers = r.headers ?? {};
        const hasHost = Object.keys(headers).some((h) => h.toLowerCase() === 'host');
        const req = http.request(
          { host: '127.0.0.1', port, method: r.method ?? 'GET', path: r.path, headers, setHost: !hasHost, agent },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
            res.on('error', reject);
          },
        );
        req.on('error', reject);
        req.end(r.body);
      });
    },
    async close() {
      agent.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

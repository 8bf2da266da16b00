import { IncomingMessage, ServerResponse } from 'node:http';
import { Duplex } from 'node:stream';

/** A request handler as `http.createServer` takes it (an Express app is one). */
export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/** What an in-process request got. */
export interface InProcessResponse {
  readonly status: number;
  /** Header names in lower case; a repeated header's values joined with `, `. */
  readonly headers: Readonly<Record<string, string>>;
  /** The body, up to `maxBodyBytes`. */
  readonly body: Buffer;
}

/**
 * A socket that is not one: what the response writes is kept (up to `limit` bytes), nothing is read,
 * and it says it comes from the loopback address.
 */
class CaptureSocket extends Duplex {
  readonly chunks: Buffer[] = [];
  private size = 0;
  readonly remoteAddress = '127.0.0.1';
  readonly remotePort = 0;
  readonly encrypted = false;
  constructor(private readonly limit: number) {
    super();
  }
  override _read(): void {}
  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.size < this.limit) {
      this.chunks.push(chunk);
      this.size += chunk.length;
    }
    callback();
  }
  setTimeout(): this {
    return this;
  }
  setNoDelay(): this {
    return this;
  }
  setKeepAlive(): this {
    return this;
  }
}

/** The status, headers and body of the raw HTTP/1.0 response a `ServerResponse` wrote (never chunked). */
function parseResponse(raw: Buffer, maxBodyBytes: number): InProcessResponse {
  const end = raw.indexOf('\r\n\r\n');
  const head = raw.subarray(0, end < 0 ? raw.length : end).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head[0] ?? '')?.[1] ?? 0);
  const headers: Record<string, string> = {};
  for (const line of head.slice(1)) {
    const colon = line.indexOf(':');
    if (colon < 1) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
  }
  return { status, headers, body: end < 0 ? Buffer.alloc(0) : raw.subarray(end + 4, end + 4 + maxBodyBytes) };
}

/**
 * Hands a GET request to `app` in this process, as the HTTP server would, and collects what it
 * answers: no socket is opened and no address is connected to, so the request's `Host` is only a
 * header. The request is HTTP/1.0 (the response is never chunked) from 127.0.0.1; a handler that does
 * not answer in `timeoutMs` is given up on.
 *
 * ```ts
 * const res = await requestInProcess(req.app, '/llms.txt', { host: 'blog.example' })
 * ```
 */
export function requestInProcess(
  app: RequestListener,
  path: string,
  options: { readonly headers?: Readonly<Record<string, string>>; readonly timeoutMs?: number; readonly maxBodyBytes?: number } = {},
): Promise<InProcessResponse> {
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  const socket = new CaptureSocket(maxBodyBytes + 64 * 1024);
  const req = new IncomingMessage(socket as never);
  req.method = 'GET';
  req.url = path;
  req.httpVersion = '1.0';
  req.httpVersionMajor = 1;
  req.httpVersionMinor = 0;
  const headers = Object.fromEntries(Object.entries(options.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
  req.headers = headers;
  req.rawHeaders = Object.entries(headers).flat();
  req.push(null);
  const res = new ServerResponse(req);
  res.assignSocket(socket as never);
  return new Promise<InProcessResponse>((resolve, reject) => {
    const timer = setTimeout(() => {
      res.destroy();
      reject(new Error(`no answer in ${Math.round((options.timeoutMs ?? 5000) / 100) / 10} s`));
    }, options.timeoutMs ?? 5000);
    res.on('finish', () => {
      clearTimeout(timer);
      resolve(parseResponse(Buffer.concat(socket.chunks), maxBodyBytes));
    });
    try {
      app(req, res);
    } catch (error) {
      clearTimeout(timer);
      reject(error instanceof Error ? error : new Error(String(error)));
    }
  });
}

import net from 'node:net';

/** A TCP proxy on loopback in front of a server, whose connections a test can break. */
export interface TcpProxy {
  /** The loopback port the proxy listens on. */
  readonly port: number;
  /** Connections opened through the proxy so far. */
  readonly accepted: number;
  /**
   * Stops passing bytes either way, and holds new connections unanswered (a server whose backends are
   * stopped: nothing is refused, nothing answers); `resume()` lets everything through again.
   */
  pause(): void;
  resume(): void;
  /** Tears down every proxied connection with a TCP reset on both sides; returns how many pairs. */
  resetAll(): number;
  /** Stops accepting and destroys every proxied connection (the server seems to be gone). */
  close(): Promise<void>;
}

/**
 * Starts a proxy that forwards every connection to `target` byte for byte. Both halves of a pair are
 * torn down together when either side fails or closes. The first `silentFirst` connections are
 * accepted and never answered (a server too busy to reply), until the client gives up on them.
 */
export async function startTcpProxy(target: { host: string; port: number }, { silentFirst = 0 } = {}): Promise<TcpProxy> {
  const pairs = new Set<{ client: net.Socket; upstream: net.Socket }>();
  const silent = new Set<net.Socket>();
  const held: net.Socket[] = [];
  let accepted = 0;
  let paused = false;
  const forward = (client: net.Socket) => {
    const upstream = net.connect(target.port, target.host);
    const pair = { client, upstream };
    pairs.add(pair);
    client.pipe(upstream).pipe(client);
    const drop = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
  };
  const server = net.createServer((client) => {
    accepted++;
    if (accepted <= silentFirst) {
      silent.add(client);
      client.on('error', () => {}).on('close', () => silent.delete(client));
      return;
    }
    if (paused) {
      client.pause();
      client.on('error', () => {});
      held.push(client);
      return;
    }
    forward(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    get accepted() {
      return accepted;
    },
    pause() {
      paused = true;
      for (const { client, upstream } of pairs) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      }
    },
    resume() {
      paused = false;
      for (const { client, upstream } of pairs) client.pipe(upstream).pipe(client);
      for (const client of held.splice(0)) if (!client.destroyed) forward(client);
    },
    resetAll() {
      const broken = [...pairs];
      for (const { client, upstream } of broken) {
        client.resetAndDestroy();
        upstream.resetAndDestroy();
      }
      pairs.clear();
      return broken.length;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const { client, upstream } of pairs) {
          client.destroy();
          upstream.destroy();
        }
        pairs.clear();
        for (const client of [...silent, ...held]) client.destroy();
        server.close(() => resolve());
      }),
  };
}

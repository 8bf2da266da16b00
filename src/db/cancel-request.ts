import net from 'node:net';

/** Where a backend runs and the key that cancels its statement (a `pg` Client after connecting). */
export interface CancelTarget {
  readonly host: string;
  readonly port: number;
  readonly processID: number | null;
  readonly secretKey: number | null;
}

/** The CancelRequest code of the PostgreSQL protocol (1234 << 16 | 5678). */
const CANCEL_REQUEST_CODE = 80877102;

/**
 * Asks the server to cancel the statement the backend is running: PostgreSQL's CancelRequest on a
 * connection of its own (what `pg_cancel_backend` does, without a session). PgBouncer forwards it to
 * the server connection its client is linked to. Resolves when the server has closed the
 * connection (or after 2 s); never rejects: a failed cancel leaves the statement to finish.
 */
export function sendCancelRequest(target: CancelTarget): Promise<void> {
  return new Promise((resolve) => {
    if (target.processID === null || target.secretKey === null) {
      resolve();
      return;
    }
    const packet = Buffer.alloc(16);
    packet.writeInt32BE(16, 0);
    packet.writeInt32BE(CANCEL_REQUEST_CODE, 4);
    packet.writeInt32BE(target.processID, 8);
    packet.writeInt32BE(target.secretKey, 12);
    const socket = target.host.startsWith('/')
      ? net.connect(`${target.host}/.s.PGSQL.${target.port}`)
      : net.connect(target.port, target.host);
    socket.setTimeout(2000, () => socket.destroy());
    // Written without closing our side: PgBouncer drops a cancel whose client hangs up before it has
    // forwarded it ("client unexpected eof"). The server closes the connection when done.
    socket.once('connect', () => socket.write(packet));
    socket.once('error', () => {});
    socket.once('close', () => resolve());
  });
}

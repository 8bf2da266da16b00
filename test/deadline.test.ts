/**
 * deadlineSignal (src/http/deadline.ts): the timeout of the plugin's outgoing requests (Web Bot Auth key
 * directories, IndexNow), which must fire whatever the garbage collector does meanwhile.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { deadlineSignal } from '../src/http/deadline.js';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

describe('deadlineSignal', () => {
  it('aborts a request to a server that never answers, garbage collections meanwhile', async () => {
    const server = createServer(() => {}).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const deadline = deadlineSignal(250);
      const started = performance.now();
      const outcome = fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, { signal: deadline.signal }).then(
        () => 'answered',
        (error: Error) => error.name,
      );
      for (const ms of [20, 100]) setTimeout(collectGarbage, ms);
      assert.equal(await outcome, 'TimeoutError');
      assert.ok(performance.now() - started < 2000);
      deadline.clear();
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('follows the other signal at once, with its reason; cleared, it never fires', async () => {
    const closing = new AbortController();
    const deadline = deadlineSignal(60_000, closing.signal);
    closing.abort(new Error('closed'));
    assert.equal(deadline.signal.aborted, true);
    assert.equal((deadline.signal.reason as Error).message, 'closed');
    deadline.clear();

    const already = deadlineSignal(60_000, AbortSignal.abort('gone'));
    assert.equal(already.signal.reason, 'gone');
    already.clear();

    const cleared = deadlineSignal(30);
    cleared.clear();
    await new Promise((resolve) => setTimeout(resolve, 80));
    assert.equal(cleared.signal.aborted, false);
  });
});

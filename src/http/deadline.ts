/**
 * A signal for an outgoing request that aborts after `ms` (a `TimeoutError`) or as soon as `also`
 * aborts, and `clear`, to call once the request and its body are done.
 *
 * Not `AbortSignal.any([also, AbortSignal.timeout(ms)])`: on Node 20 the composite holds its sources
 * weakly, so once a garbage collection takes the timeout signal it never fires, and a server that
 * accepts the connection and never answers holds the request for ever (reproduced: a fetch to a silent
 * server with that signal, two `gc()` calls, still waiting after 3 s; Node 22 aborts at 300 ms). Here the
 * timer holds the controller.
 *
 * ```ts
 * const deadline = deadlineSignal(1500, closing.signal)
 * try { await (await fetch(url, { signal: deadline.signal })).text() } finally { deadline.clear() }
 * ```
 */
export function deadlineSignal(ms: number, also?: AbortSignal): { signal: AbortSignal; clear: () => void } {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException(`timed out after ${ms} ms`, 'TimeoutError')), ms);
  const follow = () => controller.abort(also?.reason);
  if (also?.aborted) follow();
  else also?.addEventListener('abort', follow, { once: true });
  return {
    signal: controller.signal,
    clear() {
      clearTimeout(timer);
      also?.removeEventListener('abort', follow);
    },
  };
}

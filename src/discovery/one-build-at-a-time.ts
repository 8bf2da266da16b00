/** A build that waits its turn: started when the running one settles. */
interface Queued<T> {
  key: string;
  result: Promise<T>;
  start(): void;
}

/**
 * At most one build at a time. A request for the key being built shares that build's result; one
 * build of another key may wait its turn (and is shared the same way); past that, `run` answers
 * `undefined` and the caller says 503. Nothing is kept once a build settles.
 *
 * ```ts
 * const builds = new OneBuildAtATime<string>()
 * const body = builds.run('https://example.org', () => buildBody()) // shared, queued, or undefined
 * ```
 */
export class OneBuildAtATime<T> {
  #running: { key: string; result: Promise<T> } | undefined;
  #queued: Queued<T> | undefined;
  /** How many builds were started, shared and refused (for tests and operators). */
  readonly counts = { started: 0, shared: 0, refused: 0 };

  run(key: string, build: () => Promise<T>): Promise<T> | undefined {
    if (this.#running?.key === key) return this.#share(this.#running.result);
    if (this.#queued?.key === key) return this.#share(this.#queued.result);
    if (!this.#running) return this.#start(key, build);
    if (this.#queued) {
      this.counts.refused++;
      return undefined;
    }
    let start!: () => void;
    const result = new Promise<T>((resolve, reject) => {
      start = () => this.#start(key, build).then(resolve, reject);
    });
    this.#queued = { key, result, start };
    return result;
  }

  /** Settles when no build runs or waits (at once when none does); never rejects. */
  async idle(): Promise<void> {
    while (this.#running || this.#queued) {
      await (this.#queued ?? this.#running)!.result.then(
        () => undefined,
        () => undefined,
      );
    }
  }

  #share(result: Promise<T>): Promise<T> {
    this.counts.shared++;
    return result;
  }

  #start(key: string, build: () => Promise<T>): Promise<T> {
    this.counts.started++;
    const running = { key, result: Promise.resolve().then(build) };
    this.#running = running;
    const settle = () => {
      if (this.#running !== running) return;
      this.#running = undefined;
      // Started here, in the same turn: no other request can start a build in between.
      const next = this.#queued;
      this.#queued = undefined;
      next?.start();
    };
    running.result.then(settle, settle);
    return running.result;
  }
}

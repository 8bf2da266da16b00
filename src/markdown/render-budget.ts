/** A deadline started once per representation: checked between template renders, and the end of its conversion. */
export class RenderBudget {
  readonly #deadline: number;
  constructor(readonly budgetMs: number) {
    this.#deadline = performance.now() + budgetMs;
  }
  get expired(): boolean {
    return performance.now() > this.#deadline;
  }
  /** Milliseconds left, 0 once expired. */
  get remainingMs(): number {
    return Math.max(0, this.#deadline - performance.now());
  }
}

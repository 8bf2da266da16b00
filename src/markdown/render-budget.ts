/** A deadline started once per representation, checked between template renders. */
export class RenderBudget {
  readonly #deadline: number;
  constructor(readonly budgetMs: number) {
    this.#deadline = performance.now() + budgetMs;
  }
  get expired(): boolean {
    return performance.now() > this.#deadline;
  }
}

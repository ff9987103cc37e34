// What a twin must have done before an operation runs (opening its store, building the indexes
// declared since), run one after another. A step that fails fails the operations waiting for it
// and is run again for the next one: a long-lived process (a worker, a server) must not keep a
// twin broken for its whole life by one refusal, such as a lock another process held too long.

export class RetriedSteps {
  private pending: Promise<void> | undefined;

  /**
   * `run` does whatever is still undone and returns once all of it is; `undone` says whether
   * anything is, so an operation after a failure knows to run it again.
   */
  constructor(
    private readonly run: () => Promise<void>,
    private readonly undone: () => boolean,
  ) {}

  /** Runs the steps again after the run in flight, whatever that one came to. */
  again(): void {
    const before = this.pending;
    const current = (this.pending =
      before === undefined ? this.run() : before.catch(() => undefined).then(() => this.run()));
    const settled = (): void => {
      if (this.pending === current) this.pending = undefined;
    };
    void current.then(settled, settled);
  }

  /** Resolves once nothing is undone; rejects with a step's failure (the next call runs it again). */
  async done(): Promise<void> {
    if (this.pending === undefined && this.undone()) this.again();
    while (this.pending !== undefined) await this.pending;
  }

  /** Waits for the run in flight, if any, without its failure: for closing. */
  async settled(): Promise<void> {
    await this.pending?.catch(() => undefined);
  }
}

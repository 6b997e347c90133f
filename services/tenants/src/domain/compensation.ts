/**
 * Undo steps of a multi-document write. FerretDB has no transactions, so a write that fails
 * half-way undoes what it already did, newest first, and the caller sees the original error.
 */
export class Compensation {
  private readonly steps: Array<() => Promise<unknown>> = [];

  add(step: () => Promise<unknown>): void {
    this.steps.push(step);
  }

  /** Passes the steps on to an enclosing write, which now owns undoing them. */
  handOver(outer: Compensation): void {
    for (const step of this.steps) outer.add(step);
    this.steps.length = 0;
  }

  async run(): Promise<void> {
    for (const step of this.steps.reverse()) {
      // One failed undo must not keep the others from running; the original error is reported.
      await step().catch(() => undefined);
    }
    this.steps.length = 0;
  }
}

/** Runs `work`; on failure runs the undo steps it registered, then rethrows. */
export async function withCompensation<T>(work: (undo: Compensation) => Promise<T>): Promise<T> {
  const undo = new Compensation();
  try {
    return await work(undo);
  } catch (err) {
    await undo.run();
    throw err;
  }
}

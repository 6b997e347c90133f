// Group commit: writes that arrive while one is under way wait for it and then go together, as one
// database command. At low load every write goes alone and at once (nothing waits for a timer);
// under load the batch grows with the wait, so a write costs the database a fraction of a command
// and each caller still answers only once its own write is durable. Imported by path
// (`@convo/kit/group-commit`) by the processes that write.
//
// DataLoader does the batching and hands each caller its own result or error; its schedule is the
// one thing set here: a batch is dispatched when the previous one has finished.
import DataLoader from 'dataloader';

export interface GroupCommit<T, R> {
  /** Resolves with this item's result once the command that carried it has finished; rejects with this item's error. */
  write(item: T): Promise<R>;
}

/**
 * `writeAll` writes a batch in one command and answers one result per item, in order, an Error for
 * an item that failed alone; a rejection fails the whole batch. `maxBatch` bounds one command.
 */
export function groupCommit<T, R>(writeAll: (items: readonly T[]) => Promise<ReadonlyArray<R | Error>>, maxBatch = 256): GroupCommit<T, R> {
  let inFlight: Promise<unknown> = Promise.resolve();
  const loader = new DataLoader<T, R>(
    (items) => {
      const batch = writeAll(items);
      inFlight = batch.catch(() => undefined);
      return batch;
    },
    {
      cache: false,
      maxBatchSize: maxBatch,
      // The batch collecting now goes when the one under way has finished (at once when none is).
      batchScheduleFn: (dispatch) => void inFlight.then(() => setImmediate(dispatch)),
    },
  );
  return { write: (item) => loader.load(item) };
}

/**
 * Maps a driver's bulk write error onto the items of the batch: those named in its `writeErrors`
 * (by index) fail with their own error, the others succeeded. Any other error fails them all.
 */
export function perItemErrors(count: number, err: unknown): Array<Error | undefined> {
  const writeErrors = (err as { writeErrors?: Array<{ index: number; code?: number; errmsg?: string; err?: { errmsg?: string } }> } | null)
    ?.writeErrors;
  if (!Array.isArray(writeErrors)) return Array.from({ length: count }, () => (err instanceof Error ? err : new Error(String(err))));
  const errors: Array<Error | undefined> = Array.from({ length: count }, () => undefined);
  for (const w of writeErrors) {
    const e = Object.assign(new Error(w.errmsg ?? w.err?.errmsg ?? 'write failed'), { code: w.code });
    errors[w.index] = e;
  }
  return errors;
}

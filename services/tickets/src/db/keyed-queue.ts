/**
 * Runs the tasks of one key one at a time, in arrival order; different keys run in parallel.
 *
 * Why: FerretDB (the dev and CI database) applies an update as read, change in memory, write back,
 * so two concurrent updates of one ticket can lose one of them, and a conditional update ("pause
 * unless already paused") can succeed twice. MongoDB applies each update atomically. Serialising a
 * ticket's updates inside the one tickets process gives the same outcome on both; it costs nothing
 * measurable, since a ticket rarely sees two writes at the same instant.
 */
export class KeyedQueue {
  private readonly tails = new Map<string | number, Promise<unknown>>();

  async run<T>(key: string | number, task: () => Promise<T>): Promise<T> {
    const previous: Promise<unknown> = this.tails.get(key) ?? Promise.resolve();
    const turn = previous.then(task, task);
    this.tails.set(key, turn);
    try {
      return await turn;
    } finally {
      if (this.tails.get(key) === turn) this.tails.delete(key);
    }
  }
}

import { groupCommit, perItemErrors } from '../src/group-commit';

/** A fake command: records each batch it is given and finishes when the test says so. */
function recorder() {
  const batches: number[][] = [];
  const pending: Array<() => void> = [];
  const writeAll = (items: readonly number[]) => {
    batches.push([...items]);
    return new Promise<Array<number | Error>>((resolve) =>
      pending.push(() => resolve(items.map((n) => (n < 0 ? new Error(`bad ${n}`) : n * 10)))),
    );
  };
  const finishNext = () => pending.shift()!();
  return {
    batches,
    writeAll,
    finishNext,
    get waiting() {
      return pending.length;
    },
  };
}

/** Lets scheduled work run: the schedule waits for a promise, then for the next turn of the loop. */
const turn = async () => {
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe('groupCommit', () => {
  it('sends a lone write at once, and the writes that arrive meanwhile together in the next command', async () => {
    const r = recorder();
    const commit = groupCommit(r.writeAll);
    const first = commit.write(1);
    await turn();
    expect(r.batches).toEqual([[1]]);
    const later = [2, 3, 4].map((n) => commit.write(n));
    await turn();
    // Nothing more goes while the first command is under way.
    expect(r.batches).toEqual([[1]]);
    r.finishNext();
    expect(await first).toBe(10);
    await turn();
    expect(r.batches).toEqual([[1], [2, 3, 4]]);
    r.finishNext();
    expect(await Promise.all(later)).toEqual([20, 30, 40]);
  });

  it('fails only the item its command failed, and every item of a command that failed as a whole', async () => {
    const r = recorder();
    const commit = groupCommit(r.writeAll);
    const results = [5, -1, 6].map((n) =>
      commit.write(n).then(
        (v) => v,
        (e: Error) => e.message,
      ),
    );
    await turn();
    r.finishNext();
    expect(await Promise.all(results)).toEqual([50, 'bad -1', 60]);

    const broken = groupCommit<number, number>(() => Promise.reject(new Error('connection lost')));
    const both = [1, 2].map((n) =>
      broken.write(n).then(
        (v) => v,
        (e: Error) => e.message,
      ),
    );
    expect(await Promise.all(both)).toEqual(['connection lost', 'connection lost']);
    // The next batch is not held back by the failed one.
    expect(await broken.write(3).catch((e: Error) => e.message)).toBe('connection lost');
  });

  it('keeps a command within maxBatch items', async () => {
    const r = recorder();
    const commit = groupCommit(r.writeAll, 2);
    const all = [1, 2, 3, 4, 5].map((n) => commit.write(n));
    for (let i = 0; i < 10 && r.batches.flat().length < 5; i++) {
      await turn();
      while (r.waiting) r.finishNext();
    }
    expect(await Promise.all(all)).toEqual([10, 20, 30, 40, 50]);
    expect(r.batches.every((b) => b.length <= 2)).toBe(true);
  });
});

describe('perItemErrors', () => {
  it('maps a bulk write error onto the items it names, keeping their codes', () => {
    const err = Object.assign(new Error('bulk'), { writeErrors: [{ index: 1, code: 11000, errmsg: 'E11000 duplicate key' }] });
    const mapped = perItemErrors(3, err);
    expect(mapped[0]).toBeUndefined();
    expect(mapped[1]).toMatchObject({ message: 'E11000 duplicate key', code: 11000 });
    expect(mapped[2]).toBeUndefined();
  });

  it('fails every item with any other error', () => {
    const err = new Error('timeout');
    expect(perItemErrors(2, err)).toEqual([err, err]);
  });
});

import { anyOf, firstOfEach, groupByKey } from '../src/batch-reads';

interface Row {
  key: number;
  n: number;
}

/** A collection of rows read as an index on (key, n) would: sorted by key, then n, cut at `max`. */
function collection(rows: Row[]) {
  const reads: Array<{ keys: number[]; max: number }> = [];
  const read = async (keys: readonly number[], max: number) => {
    reads.push({ keys: [...keys], max });
    return rows
      .filter((r) => keys.includes(r.key))
      .sort((a, b) => a.key - b.key || a.n - b.n)
      .slice(0, max);
  };
  return { read, reads };
}
const rowsOf = (key: number, count: number): Row[] => Array.from({ length: count }, (_, n) => ({ key, n }));
const ns = (m: Map<number, Row[]>) => Object.fromEntries([...m].map(([k, rows]) => [k, rows.map((r) => r.n)]));

describe('anyOf', () => {
  it('is the key itself for one key (an equality), $in for more', () => {
    expect(anyOf([7])).toBe(7);
    expect(anyOf([7, 8])).toEqual({ $in: [7, 8] });
  });
});

describe('groupByKey', () => {
  it('answers every key, in the order read, [] for a key without documents, and ignores strays', () => {
    const grouped = groupByKey(
      [1, 2, 3],
      [
        { key: 3, n: 0 },
        { key: 1, n: 1 },
        { key: 9, n: 0 },
        { key: 1, n: 0 },
      ],
      (r) => r.key,
    );
    expect(ns(grouped)).toEqual({ 1: [1, 0], 2: [], 3: [0] });
  });
});

describe('firstOfEach', () => {
  it('reads every key in one query when none has more than the limit', async () => {
    const c = collection([...rowsOf(1, 2), ...rowsOf(2, 3), ...rowsOf(4, 1)]);
    const got = await firstOfEach([1, 2, 3, 4], 3, (r: Row) => r.key, c.read);
    expect(ns(got)).toEqual({ 1: [0, 1], 2: [0, 1, 2], 3: [], 4: [0] });
    expect(c.reads).toEqual([{ keys: [1, 2, 3, 4], max: 12 }]);
  });

  it('cuts each key at the limit and reads again, one by one, the keys a large one crowded out', async () => {
    const c = collection([...rowsOf(1, 10), ...rowsOf(2, 2), ...rowsOf(3, 1)]);
    const got = await firstOfEach([1, 2, 3, 5], 3, (r: Row) => r.key, c.read);
    expect(ns(got)).toEqual({ 1: [0, 1, 2], 2: [0, 1], 3: [0], 5: [] });
    // The first read (12 rows) held key 1's ten and two of key 2's; 1 is complete (cut at 3), 2 was perhaps cut, 3 and 5 unseen.
    expect(c.reads).toEqual([
      { keys: [1, 2, 3, 5], max: 12 },
      { keys: [2], max: 3 },
      { keys: [3], max: 3 },
      { keys: [5], max: 3 },
    ]);
  });

  it('reads nothing again when the query came back full with every key complete', async () => {
    const c = collection([...rowsOf(1, 2), ...rowsOf(2, 2)]);
    const got = await firstOfEach([1, 2], 2, (r: Row) => r.key, c.read);
    expect(ns(got)).toEqual({ 1: [0, 1], 2: [0, 1] });
    expect(c.reads).toHaveLength(1);
  });
});

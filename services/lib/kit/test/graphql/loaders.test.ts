import { findByIds, requestLoader, tenantRowsLoader } from '../../src/graphql/loaders';

describe('requestLoader', () => {
  const source = () => {
    const batches: number[][] = [];
    const load = async (ids: readonly number[]) => {
      batches.push([...ids]);
      return new Map(ids.filter((id) => id !== 404).map((id) => [id, { id }]));
    };
    return { batches, load };
  };

  it('collects the keys asked in one tick into one batch of distinct keys, and answers a miss as null', async () => {
    const { batches, load } = source();
    const request = {};
    const answers = await Promise.all([1, 2, 1, 404, 2].map((id) => requestLoader(request, 'Thing', load).load(id)));
    expect(answers).toEqual([{ id: 1 }, { id: 2 }, { id: 1 }, null, { id: 2 }]);
    expect(batches).toEqual([[1, 2, 404]]);
  });

  it('keeps one loader per kind per request, and nothing across requests', async () => {
    const { batches, load } = source();
    const first = {};
    await requestLoader(first, 'Thing', load).load(1);
    await requestLoader(first, 'Thing', load).load(1);
    await requestLoader(first, 'Other', load).load(1);
    await requestLoader({}, 'Thing', load).load(1);
    expect(batches).toEqual([[1], [1], [1]]);
  });
});

describe('tenantRowsLoader', () => {
  it("asks each tenant for its own ids, once per batch, and never answers one tenant's row for another", async () => {
    const asked: Array<[number, number[]]> = [];
    // Rows 1 and 2 belong to tenant 10, row 3 to tenant 20: a tenant's read finds only its own.
    const owner = new Map([
      [1, 10],
      [2, 10],
      [3, 20],
    ]);
    const load = async (tenantId: number, ids: readonly number[]) => {
      asked.push([tenantId, [...ids]]);
      return new Map(ids.filter((id) => owner.get(id) === tenantId).map((id) => [id, `row ${id} of ${tenantId}`]));
    };
    const request = {};
    const answers = await Promise.all(
      [
        [10, 1],
        [10, 2],
        [20, 3],
        [10, 3],
        [10, 1],
      ].map(([t, id]) => tenantRowsLoader(request, 'Rows', load).load(t, id)),
    );
    expect(answers).toEqual(['row 1 of 10', 'row 2 of 10', 'row 3 of 20', null, 'row 1 of 10']);
    expect(asked.sort((a, b) => a[0] - b[0])).toEqual([
      [10, [1, 2, 3]],
      [20, [3]],
    ]);
  });
});

describe('findByIds', () => {
  it('looks each id up once and maps the found ones', async () => {
    const asked: string[] = [];
    const found = await findByIds(['a', 'b', 'c'], async (id) => (asked.push(id), id === 'b' ? null : { id }));
    expect(asked).toEqual(['a', 'b', 'c']);
    expect([...found.entries()]).toEqual([
      ['a', { id: 'a' }],
      ['c', { id: 'c' }],
    ]);
  });
});
